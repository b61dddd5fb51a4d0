"""The trained-weights cache (llm_claims_lab/core/cache.py): train once, load after; safe, atomic,
self-repairing storage; once per run across processes and pytest-xdist workers."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import child_pytest
import pytest
import torch
from safetensors import safe_open

from llm_claims_lab.core.cache import Entry, WeightCache, code_digest, fingerprint, tensors_digest

# the harness is the plugin of its entry point; the suite's options and device come from fixtures/
SUITE_CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n'

ROOT = Path(__file__).resolve().parents[1]


class Builder:
    """A build function that counts its calls and returns a fixed set of tensors."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, progress) -> dict[str, torch.Tensor]:
        self.calls += 1
        progress(1, 2)
        progress(2, 2)
        return {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3), "step": torch.tensor([3000]),
                "rng": torch.arange(5, dtype=torch.uint8)}


def events(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "events.jsonl").read_text().splitlines()]


def test_builds_once_then_loads(tmp_path):
    build, said = Builder(), []
    entry = Entry("toy", {"lr": 1e-3}, build)
    first = WeightCache(tmp_path, run_id="a", say=said.append).fetch(entry)
    second = WeightCache(tmp_path, run_id="b").fetch(entry)  # a later run
    assert build.calls == 1
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
    assert [e["event"] for e in events(tmp_path)] == ["build-start", "build", "load"]
    assert any("2/2 (100 %)" in line for line in said)  # progress is reported


def test_changed_fingerprint_trains_a_new_entry(tmp_path):
    build = Builder()
    cache = WeightCache(tmp_path, run_id="a")
    a, b = Entry("toy", {"lr": 1e-3}, build), Entry("toy", {"lr": 2e-3}, build)
    cache.fetch(a)
    cache.fetch(b)
    cache.fetch(a)
    assert build.calls == 2 and a.key != b.key
    assert cache.path(a).exists() and cache.path(b).exists()


def test_entry_is_safetensors_with_fingerprint_and_checksum(tmp_path):
    entry = Entry("toy", {"lr": 1e-3}, Builder())
    cache = WeightCache(tmp_path, run_id="a")
    tensors = cache.fetch(entry)
    with safe_open(cache.path(entry), framework="pt") as f:  # no pickle involved
        meta = f.metadata()
    assert json.loads(meta["fingerprint"]) == {"lr": 1e-3}
    assert meta["sha256"] == tensors_digest(tensors) and meta["run_id"] == "a"


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-7])


def _flip_last_byte(path: Path) -> None:  # inside the tensor data: loads fine, checksum differs
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00" * 3)


def _other_fingerprint(path: Path) -> None:  # a valid entry of another fingerprint, e.g. copied by hand
    other = WeightCache(path.parent / "other", run_id="x")
    entry = Entry("toy", {"lr": 9.0}, Builder())
    other.fetch(entry)
    path.write_bytes(other.path(entry).read_bytes())


@pytest.mark.parametrize("corrupt", [_truncate, _flip_last_byte, _garbage, _other_fingerprint],
                         ids=["truncated", "flipped_byte", "garbage", "other_fingerprint"])
def test_corrupt_entry_is_detected_and_rebuilt(tmp_path, corrupt):
    build, said = Builder(), []
    entry = Entry("toy", {"lr": 1e-3}, build)
    cache = WeightCache(tmp_path, run_id="a", say=said.append)
    good = cache.fetch(entry)
    corrupt(cache.path(entry))
    again = cache.fetch(entry)
    assert build.calls == 2
    assert all(torch.equal(good[k], again[k]) for k in good)
    assert any("corrupt" in line for line in said)
    assert WeightCache(tmp_path, run_id="b").fetch(entry) is not None and build.calls == 2  # repaired


def test_interrupted_build_leaves_no_entry(tmp_path):
    def dies(progress):
        raise KeyboardInterrupt

    cache = WeightCache(tmp_path, run_id="a")
    entry = Entry("toy", {"lr": 1e-3}, dies)
    with pytest.raises(KeyboardInterrupt):
        cache.fetch(entry)
    assert not cache.path(entry).exists()
    stale = tmp_path / f".{entry.key}.safetensors.killed.tmp"  # what a SIGKILLed writer leaves behind
    stale.write_bytes(b"partial")
    build = Builder()
    cache.fetch(Entry("toy", {"lr": 1e-3}, build))
    assert build.calls == 1 and not stale.exists() and not list(tmp_path.glob("*.tmp"))


def test_retrain_rebuilds_once_per_run(tmp_path):
    build = Builder()
    entry = Entry("toy", {"lr": 1e-3}, build)
    WeightCache(tmp_path, run_id="first").fetch(entry)
    retraining = WeightCache(tmp_path, run_id="second", retrain=True)
    retraining.fetch(entry)
    retraining.fetch(entry)
    WeightCache(tmp_path, run_id="second", retrain=True).fetch(entry)  # e.g. another xdist worker
    assert build.calls == 2


def test_fingerprint_covers_code_torch_and_device():
    fp = fingerprint({"steps": 3000}, code=[code_digest], device="cpu")
    assert fp["config"] == {"steps": 3000} and fp["torch"] == torch.__version__
    assert fp["device"].startswith("cpu (") and len(fp["code"]) == 64
    assert fingerprint({"steps": 3000}, code=[tensors_digest], device="cpu")["code"] != fp["code"]


def _worker(root: str, keys: list[int], barrier, out) -> None:
    def build(progress):
        time.sleep(0.5)
        return {"w": torch.ones(2)}

    cache = WeightCache(root, run_id="shared")
    barrier.wait()
    cache.fetch_many([Entry(f"toy{k}", {"k": k}, build) for k in keys])
    out.put("done")


@pytest.mark.parametrize("roots", ["one root", "two roots, one directory through a symlink"])
def test_processes_split_the_work_and_build_each_entry_once(tmp_path, roots):
    """Also where the two processes name the cache by two paths of one directory (a host's own path and a shared
    filesystem's mount, as ``--tx`` workers on other hosts do, here a symlink): the entries' locks are files of
    that directory, so both take the same ones."""
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    paths = [tmp_path, tmp_path]
    if roots != "one root":
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / "elsewhere" / "cache").symlink_to(tmp_path, target_is_directory=True)
        paths[1] = tmp_path / "elsewhere" / "cache"
    procs = [ctx.Process(target=_worker, args=(str(path), list(range(6)), barrier, out)) for path in paths]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0, 0]
    built = [e for e in events(tmp_path) if e["event"] == "build"]
    assert sorted(e["entry"].split("-")[0] for e in built) == [f"toy{k}" for k in range(6)]  # each once
    assert len({e["pid"] for e in built}) == 2  # both processes trained some


XDIST_TEST = '''
import pytest, time, torch
from llm_claims_lab.core.cache import Entry


def build(progress):
    time.sleep(1.0)
    progress(1, 1)
    return {"w": torch.ones(3)}

@pytest.mark.parametrize("i", range(4))
def test_uses_cached_weights(weight_cache, i):
    assert weight_cache.fetch(Entry("toy", {"v": 1}, build))["w"].sum().item() == 3
'''


def test_xdist_workers_train_once_per_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_toy=XDIST_TEST)
    root = pytester.path / "weights"
    args = ["-n", "2", "-p", "no:cacheprovider", "--no-claims-report", "--claims-cache-dir", str(root)]

    cold = child_pytest.runpytest(pytester, *args)
    cold.assert_outcomes(passed=4)
    log = events(root)
    assert [e["event"] for e in log].count("build") == 1
    assert {e["worker"] for e in log} == {"gw0", "gw1"}  # both workers used the one entry
    assert "training toy-" in cold.stderr.str()  # progress reaches the terminal

    child_pytest.runpytest(pytester, *args).assert_outcomes(passed=4)
    assert [e["event"] for e in events(root)].count("build") == 1  # warm: nothing trained

    child_pytest.runpytest(pytester, *args, "--claims-retrain").assert_outcomes(passed=4)
    retrained = [e for e in events(root)[len(log):] if e["event"] == "build"]
    assert len(retrained) == 1  # retrained once for the whole run, not once per worker


@pytest.mark.parametrize("value", ["0", "many"])
def test_bad_seed_count_is_a_usage_error(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", f"--claims-seeds={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--claims-seeds" in result.stderr.str() and "Traceback" not in result.stderr.str()


def test_the_renamed_word2vec_option_names_its_replacement(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", "--claims-w2v-optimizer", "adam")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "replaced by --claims-w2v-kernels" in result.stderr.str() and "Traceback" not in result.stderr.str()


def _run_with_cache_dir(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str,
                        path: Path) -> tuple[pytest.RunResult, str]:
    """A run naming ``path`` as the cache, by option or environment variable; also how messages name it."""
    monkeypatch.delenv("CLAIMS_CACHE_DIR", raising=False)
    pytester.makeconftest(SUITE_CONFTEST)
    pytester.makepyfile("def test_nothing():\n    pass\n")
    if how == "option":
        return pytester.runpytest(f"--claims-cache-dir={path}"), f"--claims-cache-dir={path}"
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(path))
    return pytester.runpytest(), f"CLAIMS_CACHE_DIR={path}"


@pytest.mark.parametrize("how", ["option", "env"])
@pytest.mark.parametrize("case", ["a-file", "under-a-file"])
def test_named_cache_dir_that_cannot_be_a_directory_is_a_usage_error(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     how: str, case: str):
    file = pytester.path / "weights"
    file.write_text("not a directory")
    path = file if case == "a-file" else file / "cache"
    result, named = _run_with_cache_dir(pytester, monkeypatch, how, path)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    if case == "a-file":
        problem = f"{file} exists and is not a directory"
    else:
        problem = f"cannot be created: {file} is not a directory"
    expected = f"ERROR: trained-weights cache: {named}: {problem}; expected a directory this run can create or write to"
    result.stderr.fnmatch_lines([expected])
    assert "Traceback" not in result.stderr.str()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to any directory")
def test_named_cache_dir_that_cannot_be_written_is_a_usage_error(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch):
    locked = pytester.path / "locked"
    locked.mkdir(mode=0o555)
    result, named = _run_with_cache_dir(pytester, monkeypatch, "env", locked / "cache")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = f"ERROR: trained-weights cache: {named}: cannot be created: {locked} is not writable; *"
    result.stderr.fnmatch_lines([expected])


def test_named_cache_dir_is_checked_without_being_created(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch):
    path = pytester.path / "new" / "cache"
    result, _ = _run_with_cache_dir(pytester, monkeypatch, "option", path)
    assert result.ret == pytest.ExitCode.OK
    assert not path.parent.exists()  # created when the cache is first used, not by the check
