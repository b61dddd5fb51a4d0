"""Fault scenarios (tests/faults_common.py) of kept state: hub config.json, weight cache, build log, calibrations,
previous report, report directory, option values; an unwritable directory is simulated (root writes anyway)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from faults_common import TRUNCATIONS, assert_clear, flip_byte, leftovers, replace_with, scenario, truncate

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("git-lfs pointer", "html page", "json of another schema", "utf-16 text")
REVISION = "0123456789abcdef0123456789abcdef01234567"
INSERTED = ("garbage line", "json of another schema")  # build log: a line among good ones (else the whole file)


def damage(path: Path, fault: str, way: str, other: object = None) -> None:
    """Do ``fault`` to ``path`` the ``way`` a variant names (``other``: the JSON of another schema)."""
    if fault == "missing":
        path.unlink()
    elif fault in ("truncated", "byte flip"):
        (truncate if fault == "truncated" else flip_byte)(path, way)
    elif way == "json of another schema":
        path.write_text(json.dumps(other), encoding="utf-8")
    elif way == "utf-16 text":
        path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    else:
        replace_with(path, way or fault)


def run(*argv: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, check=False)


def hub_fails(tmp_path: Path, fault: str, way: str) -> None:
    """A config.json in the Hugging Face cache's layout, damaged, read offline for a row reading n_positions."""
    from llm_claims_lab.pretrained import configs

    path = tmp_path / "models--org--model" / "snapshots" / REVISION / "config.json"
    path.parent.mkdir(parents=True)
    shape = {"a field missing": {}, "a field of another type": {"n_positions": "1024"}}.get(way, {"n_positions": 1024})
    path.write_text(json.dumps({"model_type": "gpt2", "n_embd": 768, **shape}), encoding="utf-8")
    if fault != "wrong shape":
        damage(path, fault, way, {"tokenizer_class": "GPT2Tokenizer"})
    with pytest.MonkeyPatch.context() as mp, pytest.raises(configs.ConfigUnavailable) as exc:
        mp.setattr(configs, "hub_reachable", lambda: False)
        configs.hub_config("org/model", REVISION, cache_dir=tmp_path, fields={"n_positions": int})
    assert_clear(exc.value, names=path, types=(configs.ConfigUnavailable,))
    assert "--force-download" in str(exc.value)


for _fault, _ways in {"truncated": TRUNCATIONS, "wrong format": FORMATS,
                      "wrong shape": ("a field missing", "a field of another type")}.items():
    scenario("hub config.json", _fault, _ways)(lambda tmp_path, way, fault=_fault: hub_fails(tmp_path, fault, way))


def build(progress) -> dict[str, torch.Tensor]:
    time.sleep(0.05)  # long enough for concurrent callers to meet
    return {"w": torch.arange(1000, dtype=torch.float32), "step": torch.tensor([7])}


def builds(root: Path) -> int:
    """How many builds the cache's log records."""
    return sum(json.loads(line)["event"] == "build" for line in (root / "events.jsonl").read_text().splitlines())


def rebuilt(tmp_path: Path, fault: str, way: str) -> None:
    """A cache entry, damaged: reported, rebuilt to what a clean build gives, then loaded."""
    from llm_claims_lab.core.cache import Entry, WeightCache

    said, entry, other = [], Entry("toy", {"v": 1}, build), Entry("toy", {"v": 2}, build)
    cache = WeightCache(tmp_path, run_id="a", say=said.append)
    clean = cache.fetch(entry)
    if way == "torch pickle":
        torch.save({"w": torch.zeros(3)}, cache.path(entry))
    elif way == "another entry":  # a valid entry of another fingerprint, copied by hand
        (copy := WeightCache(tmp_path / "other", run_id="x")).fetch(other)
        cache.path(entry).write_bytes(copy.path(other).read_bytes())
    else:
        damage(cache.path(entry), fault, way)
    again = WeightCache(tmp_path, run_id="b", say=said.append).fetch(entry)
    assert builds(tmp_path) == 2 and any(f"{cache.path(entry).name} is corrupt" in line for line in said), said
    assert all(torch.equal(clean[k], again[k]) for k in clean) and not leftovers(tmp_path)
    WeightCache(tmp_path, run_id="c").fetch(entry)
    assert builds(tmp_path) == 2  # repaired: the next run loads it


for _fault, _ways in {"empty": ("",), "truncated": TRUNCATIONS, "byte flip": ("start", "middle", "end"),
                      "wrong format": ("git-lfs pointer", "html page", "torch pickle", "another entry")}.items():
    scenario("weight cache", _fault, _ways)(lambda tmp_path, way, fault=_fault: rebuilt(tmp_path, fault, way))


@scenario("weight cache", "stale leftover", variants=("before a build", "beside a good entry", "being written"))
def _(tmp_path: Path, where: str) -> None:
    """A killed build's temp file is removed when a cache is opened, or by the entry's next build; one whose
    entry's lock is held (another process writing it now) is kept."""
    from filelock import FileLock

    from llm_claims_lab.core.cache import Entry, WeightCache

    cache, entry = WeightCache(tmp_path, run_id="a"), Entry("toy", {"v": 1}, build)
    clean = cache.fetch(entry) if where != "before a build" else None
    (tmp_path / f".{cache.path(entry).name}.killed.tmp").write_bytes(b"partial")  # what a killed writer leaves
    if where == "being written":
        with FileLock(tmp_path / f"{entry.key}.lock"):
            WeightCache(tmp_path, run_id="b")
        assert leftovers(tmp_path) == [f".{cache.path(entry).name}.killed.tmp"]
        return
    got = WeightCache(tmp_path, run_id="b").fetch(entry)
    assert builds(tmp_path) == 1 and not leftovers(tmp_path)
    assert all(torch.equal(clean[k], got[k]) for k in clean) if clean else True


@scenario("weight cache", "read-only target", variants=("option", "environment variable"))
def _(tmp_path: Path, how: str) -> None:
    from fixtures import options

    locked = tmp_path / "locked"
    locked.mkdir()
    config = SimpleNamespace(rootpath=tmp_path, getoption=lambda name: str(locked / "cache") if (
        name == "claims_cache_dir" and how == "option") else None)  # what check_named_paths reads of a config
    access = os.access
    with pytest.MonkeyPatch.context() as mp, pytest.raises(pytest.UsageError) as exc:
        mp.setattr(os, "access", lambda p, mode: Path(p) != locked and access(p, mode))
        if how != "option":
            mp.setenv(options.CACHE_DIR_ENV, str(locked / "cache"))
        options.check_named_paths(config)
    assert_clear(exc.value, names=locked, types=(pytest.UsageError,))
    assert not (locked / "cache").exists()


@scenario("weight cache", "full disk")
def _(tmp_path: Path, _variant: str) -> None:
    """The disk fills as a built entry is written: one line naming the cache and the fix, nothing kept, and the
    next run (space freed) builds what a clean run has."""
    import errno

    from llm_claims_lab.core import cache

    entry = cache.Entry("toy", {"v": 1}, build)
    with pytest.MonkeyPatch.context() as mp, pytest.raises(cache.CacheUnwritable) as caught:
        mp.setattr(cache, "save_file", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
        cache.WeightCache(tmp_path, run_id="a").fetch(entry)
    assert_clear(caught.value, names=tmp_path, types=(cache.CacheUnwritable,))
    assert not leftovers(tmp_path) and not cache.WeightCache(tmp_path, run_id="b").path(entry).exists()
    again = cache.WeightCache(tmp_path, run_id="b").fetch(entry)
    assert all(torch.equal(again[k], v) for k, v in build(None).items())


@scenario("weight cache", "concurrent writers")
def _(tmp_path: Path, _variant: str) -> None:
    from llm_claims_lab.core.cache import Entry, WeightCache

    barrier = threading.Barrier(4)
    entries = [Entry(f"toy{k}", {"k": k}, build) for k in range(4)]

    def writer(i: int) -> list[dict[str, torch.Tensor]]:
        cache = WeightCache(tmp_path, run_id="shared")
        barrier.wait()
        return cache.fetch_many(entries[i:] + entries[:i])
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(writer, range(4)))
    assert len(got) == 4 and builds(tmp_path) == 4 and not leftovers(tmp_path)  # each entry built once
    assert all(torch.equal(a["w"], b["w"]) for fetched in got for a, b in zip(fetched, got[0]))


def build_log(tmp_path: Path, spoil) -> tuple[int, str, str]:
    """A log of two builds and a load, ``spoil``-ed, through ``python -m llm_claims_lab.core.build_log``."""
    from llm_claims_lab.core.cache import Entry, WeightCache

    cache = WeightCache(tmp_path, run_id="a")
    cache.fetch_many([Entry("toy", {"v": 1}, build), Entry("other", {"v": 2}, build)])
    cache.fetch(Entry("toy", {"v": 1}, build))
    spoil(tmp_path / "events.jsonl")
    proc = run("-m", "llm_claims_lab.core.build_log", str(tmp_path / "events.jsonl"), "--check-once")
    assert f"{tmp_path / 'events.jsonl'}" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


@scenario("build log", "truncated", variants=("last line cut", "a line cut and appended to", "only a cut line"))
def _(tmp_path: Path, how: str) -> None:
    def spoil(path: Path) -> None:
        lines = path.read_bytes().splitlines(keepends=True)
        kept = [lines[0][:16]] if how == "only a cut line" else [*lines[:-1], lines[-1][:len(lines[-1]) // 2]]
        path.write_bytes(b"".join(kept + ([lines[-1]] if how == "a line cut and appended to" else [])))
    code, out, err = build_log(tmp_path, spoil)
    assert code == 0 and "cut short" in err and (how == "only a cut line" or "builds of 2 entries" in out), err


@scenario("build log", "wrong format", variants=(*INSERTED, *FORMATS[:2], FORMATS[3]))
def _(tmp_path: Path, what: str) -> None:
    def spoil(path: Path) -> None:
        if what in INSERTED:
            lines = path.read_text().splitlines(keepends=True)
            path.write_text("".join([lines[0], "garbage\n" if what == "garbage line" else "[1, 2]\n", *lines[1:]]))
        else:
            damage(path, "wrong format", what)
    code, out, err = build_log(tmp_path, spoil)
    assert (code, "2 builds of 2 entries" in out) == ((0, True) if what in INSERTED else (2, False)), (code, err)


CALIBRATIONS = {"extrapolation.json": ("word2vec.json", "noise"), "word2vec.json": ("heads.json", "sd"),  # file:
                "heads.json": ("extrapolation.json", "per_seed"), "relative_bias.json": ("word2vec.json", "noise")}
# a file of another schema, the section its rows read


def calibration_fails(tmp_path: Path, fault: str, variant: str) -> None:
    """A copy of a committed calibration file, damaged, read as the rows read it: a clear error naming it."""
    from llm_claims_lab.heads import rows as heads_rows
    from llm_claims_lab.word2vec import lab as word2vec
    from llm_claims_lab.extrapolation import calibration
    from llm_claims_lab.core.json_files import InputFileError

    file, _, way = variant.partition(":")
    path = tmp_path / file
    path.write_bytes((ROOT / "calibration" / file).read_bytes().rstrip())  # "one byte short" cuts the JSON
    other, section = CALIBRATIONS[file]
    if fault == "wrong shape":
        data = json.loads(path.read_text(encoding="utf-8"))
        kept = data.pop(section)
        path.write_text(json.dumps({**data, section: list(kept)} if "list" in way else data))
    else:
        damage(path, fault, way, json.loads((ROOT / "calibration" / other).read_text(encoding="utf-8")))
    readers = {"extrapolation.json": lambda: calibration.Calibration.for_device("cpu", tmp_path).describe("rope", "acc40"),
               "word2vec.json": lambda: word2vec.seed_noise("trained", "fast", path),
               "heads.json": lambda: heads_rows.HeadsCalibration(path).describe(next(iter(heads_rows.ROWS))),
               "relative_bias.json": lambda: calibration.relative_probes_for("cpu", tmp_path)}
    with pytest.raises(Exception) as exc:
        readers[file]()
    assert_clear(exc.value, names=path, types=(InputFileError,))
    assert f"calibration/calibrate_{file.removesuffix('.json')}.py" in str(exc.value), exc.value  # the fix


for _fault, _ways in {"missing": ("",), "truncated": TRUNCATIONS, "wrong format": FORMATS,
                      "wrong shape": ("a section missing", "a section a list")}.items():
    scenario("calibration files", _fault, [f"{f}{':' + w if w else ''}" for f in CALIBRATIONS for w in _ways])(
        lambda tmp_path, variant, fault=_fault: calibration_fails(tmp_path, fault, variant))
