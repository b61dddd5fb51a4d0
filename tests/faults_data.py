"""Fault scenarios (tests/faults_common.py) of the word2vec data on the mini registry (tests/kowiki_mini.py).
A damaged source (the mirror, the network) is an error naming the file, its sha256 and the published one, or
for the network a skip naming the URL; nothing of it is kept. A damaged or half-fetched data directory is
fetched or built again into exactly what a clean one holds; one that cannot be written is an error naming
it."""

from __future__ import annotations

import concurrent.futures
import lzma
import multiprocessing
from collections.abc import Callable
from pathlib import Path

import pytest
from faults_common import (TRUNCATIONS, assert_clear, damage_said, flip_byte, leftovers, replace_with, scenario,
                          truncate, variants_of)
from kowiki_mini import Mini, closed_port, digest, full_disk, mini_registry, read_only, serve, sha256

from llm_claims_lab import data

MIRRORED = {"WS353_korean.csv": "ko_wordvec_eval/WS353_korean.csv", "wiki_00.xz": "corpus_ko/raw/wiki_00.xz"}
CACHED = {"WS353_korean.csv": "ko_wordvec_eval/WS353_korean.csv", "wiki_00": "corpus_ko/raw/wiki_00",
          "corpus_ko.txt": "corpus_ko/corpus_ko.txt"}
PUBLISHED = ("WS353_korean.csv", "wiki_00")
DAMAGE: dict[str, Callable[[Path, str], None]] = {
    "empty": lambda path, _how: replace_with(path, "empty"), "truncated": truncate, "byte flip": flip_byte,
    "wrong format": replace_with}
WAYS = {"empty": ("",), "truncated": TRUNCATIONS, "byte flip": ("start", "middle", "end"),
        "wrong format": ("git-lfs pointer", "html page")}


def _store(mini: Mini, root: Path, say: Callable[[str], None] = lambda _line: None) -> data.Store:
    """A store on ``root`` that reads the mini registry's mirror directory."""
    return data.Store(root, data.mirror(str(mini.mirror), registry=mini.registry), registry=mini.registry,
                      say=say)


def _fill(store: data.Store) -> None:
    store.ko_eval()
    store.corpus()


def _clean(mini: Mini, tmp_path: Path) -> dict[str, str]:
    """What a clean store holds (the sha256 of every file), built in a directory of its own."""
    _fill(_store(mini, tmp_path / "clean"))
    return digest(tmp_path / "clean")


def _reader(store: data.Store, name: str) -> Callable[[], Path]:
    """The call of ``store`` that reads the file ``name``."""
    return store.ko_eval if name.startswith("WS353") else store.corpus


def _published(mini: Mini, name: str) -> data.PublishedFile:
    files = (*mini.registry.ko_eval.files, *mini.registry.kowiki.files)
    return next(f for f in files if Path(f.path).name == name.removesuffix(".xz"))


def _nothing_kept(root: Path, clean: dict[str, str]) -> None:
    """After a failed fetch, ``root`` holds no temporary file and no file that a clean store does not hold."""
    assert not leftovers(root), leftovers(root)
    kept = digest(root) if root.exists() else {}
    assert all(clean.get(path) == sha for path, sha in kept.items()), kept


def _repaired(store: data.Store, root: Path, clean: dict[str, str]) -> None:
    """The next use of ``store`` serves what a clean store holds, and leaves no temporary file."""
    _fill(store)
    assert digest(root) == clean and not leftovers(root), leftovers(root)


def _mirror_damage(fault: str) -> Callable[[Path, str], None]:
    def damaged_mirror_file_is_a_hash_error(tmp_path: Path, variant: str) -> None:
        name, _, how = variant.partition(":")
        mini = mini_registry(tmp_path)
        clean, cache, path = _clean(mini, tmp_path), tmp_path / "cache", mini.mirror / MIRRORED[name]
        good = path.read_bytes()
        DAMAGE[fault](path, how)
        store = _store(mini, cache)
        with pytest.raises(data.DataError) as info:
            _reader(store, name)()
        assert_clear(info.value, names=path, types=(data.DataHashMismatch,))
        message = str(info.value)
        assert sha256(path.read_bytes()) in message and _published(mini, name).sha256 in message, message
        assert f"replace {path}" in message and "--claims-data-mirror" in message, message
        assert damage_said(fault, how, packed=name.endswith(".xz")) in message, message
        _nothing_kept(cache, clean)
        path.write_bytes(good)
        _repaired(store, cache, clean)
    return damaged_mirror_file_is_a_hash_error


for _fault in ("empty", "truncated", "byte flip", "wrong format"):
    scenario("data mirror", _fault, variants_of(MIRRORED, WAYS[_fault]))(_mirror_damage(_fault))


@scenario("data mirror", "missing", ("at configure", *MIRRORED, "url mirror"))
def _mirror_missing(tmp_path: Path, variant: str) -> None:
    mini = mini_registry(tmp_path)
    clean, cache = _clean(mini, tmp_path), tmp_path / "cache"
    name = {"at configure": "wiki_00.xz", "url mirror": "WS353_korean.csv"}.get(variant, variant)
    path = mini.mirror / MIRRORED[name]
    good = path.read_bytes()
    if variant == "at configure":
        path.unlink()
        with pytest.raises(data.DataError) as info:
            data.mirror(str(mini.mirror), registry=mini.registry)
        assert_clear(info.value, names=mini.mirror, types=(data.ExplicitPathError,))
        assert MIRRORED["wiki_00.xz"] in str(info.value)
        return
    with serve(mini.mirror) as url:
        source = url if variant == "url mirror" else str(mini.mirror)
        store = data.Store(cache, data.mirror(source, registry=mini.registry), registry=mini.registry)
        path.unlink()
        with pytest.raises(data.DataError) as info:
            _reader(store, path.name)()
        named = f"{url}/{path.relative_to(mini.mirror)}" if variant == "url mirror" else path
        assert_clear(info.value, names=named, types=(data.ExplicitPathError,))
        assert "404" in str(info.value) or variant != "url mirror", info.value
        _nothing_kept(cache, clean)
        path.write_bytes(good)
        _repaired(store, cache, clean)


def _download_fault(tmp_path: Path, name: str, damage: Callable[[Path], None], error: type[data.DataError],
                    says: tuple[str, ...] = (), cut: bool = False) -> None:
    """Serve ``published/`` as the network, the file ``name`` damaged (or its connection ``cut``): an
    ``error`` naming its URL and saying ``says`` and the sha256 served and the published one (a hash error)
    or ``says`` alone; nothing kept; served again whole, the next fetch gives what a clean store holds."""
    cutting = {name} if cut else set()
    with serve(tmp_path / "published", cutting) as url:
        mini = mini_registry(tmp_path, url)
        clean, cache, path = _clean(mini, tmp_path), tmp_path / "cache", mini.published / name
        f = _published(mini, name)
        good = path.read_bytes()
        damage(path)
        store = data.Store(cache, registry=mini.registry)
        says = (*says, sha256(path.read_bytes()), f.sha256) if error is data.DataHashMismatch else says
        with pytest.raises(data.DataError) as info:
            _reader(store, name)()
        assert_clear(info.value, names=f.url, types=(error,))
        assert all(part in str(info.value) for part in says), (says, str(info.value))
        _nothing_kept(cache, clean)
        path.write_bytes(good)
        cutting.clear()
        _repaired(store, cache, clean)


@scenario("published download", "missing", (*PUBLISHED, "unreachable"))
def _download_missing(tmp_path: Path, variant: str) -> None:
    if variant != "unreachable":
        _download_fault(tmp_path, variant, Path.unlink, data.DataUnavailable, ("HTTP 404",))
        return
    mini = mini_registry(tmp_path, f"http://127.0.0.1:{closed_port()}")
    store = data.Store(tmp_path / "cache", registry=mini.registry)
    for name in PUBLISHED:
        with pytest.raises(data.DataError) as info:
            _reader(store, name)()
        assert_clear(info.value, names=_published(mini, name).url, types=(data.DataUnavailable,))
        assert data.FETCH_COMMAND in str(info.value)
    _nothing_kept(tmp_path / "cache", {})


@scenario("published download", "wrong format", variants_of(PUBLISHED, WAYS["wrong format"]))
def _download_wrong_format(tmp_path: Path, variant: str) -> None:
    name, _, what = variant.partition(":")
    _download_fault(tmp_path, name, lambda path: replace_with(path, what), data.DataHashMismatch,
                    (damage_said("wrong format", what, packed=False),))


@scenario("published download", "truncated", variants_of(PUBLISHED, (*TRUNCATIONS, "connection cut")))
def _download_truncated(tmp_path: Path, variant: str) -> None:
    name, _, how = variant.partition(":")
    if how == "connection cut":
        _download_fault(tmp_path, name, lambda _path: None, data.DataUnavailable, ("cannot be fetched",),
                        cut=True)
    else:
        _download_fault(tmp_path, name, lambda path: truncate(path, how), data.DataHashMismatch,
                        (damage_said("truncated", how, packed=False),))


def _cache_damage(fault: str) -> Callable[[Path, str], None]:
    def damaged_cache_is_fetched_or_built_again(tmp_path: Path, variant: str) -> None:
        name, _, how = variant.partition(":")
        mini = mini_registry(tmp_path)
        clean, cache = _clean(mini, tmp_path), tmp_path / "cache"
        store = _store(mini, cache)
        _fill(store)
        DAMAGE[fault](cache / CACHED[name], how)
        if name == "wiki_00":  # as an interrupted fetch leaves it: the corpus not yet built from it
            (cache / CACHED["corpus_ko.txt"]).unlink()
        _repaired(store, cache, clean)
    return damaged_cache_is_fetched_or_built_again


for _fault in ("empty", "truncated", "byte flip"):
    scenario("data directory", _fault, variants_of(CACHED, WAYS[_fault]))(_cache_damage(_fault))

STALE = {"partial xz download": ("corpus_ko/raw/wiki_00.xz",),
         "temporary files of ours": ("ko_wordvec_eval/.WS353_korean.csv.k3j5h2a9.tmp",
                                     "corpus_ko/.corpus_ko.txt.a8d7f6s5.tmp",
                                     "corpus_ko/raw/.wiki_00.xz.q1w2e3r4.tmp/wiki_00.xz"),
         "pooch's temporary files": ("ko_wordvec_eval/tmpa1b2c3d4", "corpus_ko/raw/tmp_x9y8z7w")}


@scenario("data directory", "stale leftover", tuple(STALE))
def _stale_leftover(tmp_path: Path, variant: str) -> None:
    """An interrupted fetch left its temporary files (each a cut xz stream, as a partial download is), not
    the files it was writing: they are removed, said, and never trusted; a file of the user's stays."""
    mini = mini_registry(tmp_path)
    clean, cache, lines = _clean(mini, tmp_path), tmp_path / "cache", []
    store = _store(mini, cache, lines.append)
    _fill(store)
    for name in CACHED.values():
        (cache / name).unlink()
    for name in STALE[variant]:
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_bytes(lzma.compress(b"<doc id=1>\n")[:-8])
    (cache / "corpus_ko" / "keep.txt").write_text("the user's", encoding="utf-8")
    _fill(store)
    assert (cache / "corpus_ko" / "keep.txt").read_text(encoding="utf-8") == "the user's"
    (cache / "corpus_ko" / "keep.txt").unlink()
    assert digest(cache) == clean and not leftovers(cache) and not (cache / STALE[variant][0]).exists()
    assert any("removed" in line and Path(STALE[variant][0]).parts[0] in line for line in lines), lines


@scenario("data directory", "read-only target", ("empty data directory", "WS353_korean.csv", "corpus_ko.txt"))
def _read_only_target(tmp_path: Path, variant: str) -> None:
    mini = mini_registry(tmp_path)
    clean, cache = _clean(mini, tmp_path), tmp_path / "cache"
    store = _store(mini, cache)
    cache.mkdir()
    if variant != "empty data directory":
        _fill(store)
        flip_byte(cache / CACHED[variant], "middle")
    before = digest(cache)
    with read_only(cache), pytest.raises(data.DataError) as info:
        _fill(store)
    assert_clear(info.value, names=cache, types=(data.DataError,))
    assert type(info.value) is data.DataError and "Permission denied" in str(info.value), info.value
    assert "--claims-data-dir" in str(info.value) and data.DATA_DIR_ENV in str(info.value), info.value
    assert digest(cache) == before and not leftovers(cache)
    _repaired(store, cache, clean)


FULL = {"copying WS353_korean.csv": {"copying": "WS353_korean.csv"},
        "copying wiki_00.xz": {"copying": "wiki_00.xz"},
        "flushing wiki_00": {"flushing": ".wiki_00."},  # unpacking the mirror's xz copy
        "flushing corpus_ko.txt": {"flushing": ".corpus_ko.txt."}}  # building the corpus


@scenario("data directory", "full disk", tuple(FULL))
def _full_disk(tmp_path: Path, variant: str) -> None:
    mini = mini_registry(tmp_path)
    clean, cache = _clean(mini, tmp_path), tmp_path / "cache"
    store = _store(mini, cache)
    with full_disk(**FULL[variant]), pytest.raises(data.DataError) as info:
        _fill(store)
    assert_clear(info.value, names=cache, types=(data.DataError,))
    assert type(info.value) is data.DataError and "No space left on device" in str(info.value), info.value
    assert "free space" in str(info.value) and "--claims-data-dir" in str(info.value), info.value
    _nothing_kept(cache, clean)
    _repaired(store, cache, clean)


def _writer(root: str, mirror: str, registry: data.Registry, index: int) -> tuple[list[str], list[str]]:
    """One of several writers (a thread or a process): both data sets (in turn, in an order set by ``index``)
    from a store of its own on ``root``; the sha256 of the corpus and WS-353 file it was served, and the lines
    it said."""
    lines: list[str] = []
    store = data.Store(Path(root), data.mirror(mirror, registry=registry), registry=registry,
                       say=lines.append)
    eval_dir = store.ko_eval() if index % 2 else None
    corpus, eval_dir = store.corpus(), eval_dir or store.ko_eval()
    return [sha256(corpus.read_bytes()), sha256((eval_dir / "WS353_korean.csv").read_bytes())], lines


@scenario("data directory", "concurrent writers",
          ("threads, empty cache", "threads, damaged cache", "processes, damaged cache"))
def _concurrent_writers(tmp_path: Path, variant: str) -> None:
    mini = mini_registry(tmp_path)
    clean, cache = _clean(mini, tmp_path), tmp_path / "cache"
    if "damaged" in variant:
        _fill(_store(mini, cache))
        flip_byte(cache / CACHED["WS353_korean.csv"], "middle")
        truncate(cache / CACHED["corpus_ko.txt"], "half")
    pool = (concurrent.futures.ThreadPoolExecutor(6) if variant.startswith("threads") else
            concurrent.futures.ProcessPoolExecutor(3, mp_context=multiprocessing.get_context("spawn")))
    with pool:
        results = list(pool.map(_writer, *zip(*[(str(cache), str(mini.mirror), mini.registry, i)
                                                for i in range(6)])))
    served = {(clean[CACHED["corpus_ko.txt"]], clean[CACHED["WS353_korean.csv"]])}
    assert {tuple(hashes) for hashes, _ in results} == served
    said = [" ".join(line.split()[:2]) for _, lines in results for line in lines]
    assert sorted(said) == sorted(["fetching ko_wordvec_eval", f"building {cache / CACHED['corpus_ko.txt']}",
                                   *(["fetching corpus_ko"] if "empty" in variant else [])]), said
    assert digest(cache) == clean and not leftovers(cache)
