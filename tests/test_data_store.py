"""The data store of llm_claims_lab/data/__init__.py on a mini registry of small synthetic files: fetched from the
network or a mirror, verified by sha256, built into the cache once; damaged or wrong files are rebuilt or
are hash errors that name them; offline with nothing to read says how to fetch; the fetch command."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import lzma
from pathlib import Path

import pytest
from kowiki_mini import CLEANED, EVAL_FILES, WIKI_01, closed_port, mini_registry, serve

from llm_claims_lab import data
from llm_claims_lab.data import command

# the caller's data variables are cleared for every test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_named_data")


def test_network_fetch_verifies_and_caches(tmp_path: Path) -> None:
    lines: list[str] = []
    with serve(tmp_path / "published") as url:
        mini = mini_registry(tmp_path, url)
        store = data.Store(tmp_path / "cache", registry=mini.registry, say=lines.append)
        corpus = store.corpus()
        assert corpus.read_text(encoding="utf-8") == CLEANED
        ws353 = store.ko_eval() / "WS353_korean.csv"
        assert ws353.read_text(encoding="utf-8") == EVAL_FILES["WS353_korean.csv"]
    assert lzma.decompress((corpus.parent / data.ATTRIBUTION_FILE).read_bytes()).decode() == (
        "curid\turl\ttitle\n5\thttps://ko.wikipedia.org/wiki?curid=5\t지미 카터\n"
        "9\thttps://ko.wikipedia.org/wiki?curid=9\t수학\n")
    assert store.corpus() == corpus and len(lines) == 3  # the server is gone: served from the cache


def test_a_damaged_cache_is_fetched_or_built_again(tmp_path: Path) -> None:
    mini = mini_registry(tmp_path)
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
                       registry=mini.registry)
    corpus, ws353 = store.corpus(), store.ko_eval() / "WS353_korean.csv"
    corpus.write_text(CLEANED.replace("수학", "과학"), encoding="utf-8")
    ws353.write_text("damaged", encoding="utf-8")
    assert store.corpus().read_text(encoding="utf-8") == CLEANED
    assert (store.ko_eval() / ws353.name).read_text(encoding="utf-8") == EVAL_FILES["WS353_korean.csv"]


def test_a_damaged_copy_offline_is_said_to_fail_its_sha256(tmp_path: Path) -> None:
    """Offline, a cached file that fails its sha256 is named as such, not as missing (a newcomer's garbage wiki_00
    was said to be lacking); it is replaced once the file can be fetched."""
    mini = mini_registry(tmp_path, f"http://127.0.0.1:{closed_port()}")
    data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
               registry=mini.registry).ko_eval()  # filled from the mirror, then read with the network alone
    ws353 = tmp_path / "cache" / "ko_wordvec_eval" / "WS353_korean.csv"
    ws353.write_text("garbage", encoding="utf-8")
    with pytest.raises(data.DataUnavailable, match="holds a copy of ko_wordvec_eval/WS353_korean.csv that fails "
                                                   "its sha256 check"):
        data.Store(tmp_path / "cache", registry=mini.registry).ko_eval()


def test_concurrent_builds_build_once(tmp_path: Path) -> None:
    mini = mini_registry(tmp_path)
    lines: list[str] = []
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
                       registry=mini.registry, say=lines.append)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        paths = set(pool.map(lambda _: store.corpus(), range(4)))
    assert len(paths) == 1 and sum(line.startswith("building") for line in lines) == 1


def _flip_byte(path: Path, offset: int = -3) -> None:
    content = bytearray(path.read_bytes())
    content[offset] ^= 0x01
    path.write_bytes(bytes(content))


def test_a_corrupted_mirror_file_is_a_hash_error_naming_it(tmp_path: Path) -> None:
    mini = mini_registry(tmp_path)
    _flip_byte(mini.mirror / "ko_wordvec_eval" / "WS353_korean.csv")
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
                       registry=mini.registry)
    with pytest.raises(data.DataHashMismatch, match=r"WS353_korean\.csv is not the published file .*: it has sha256 "
                                                    r"[0-9a-f]{64}, the published file .*Fix: replace .*WS353_korean\.csv"
                       ) as info:
        store.ko_eval()
    assert mini.registry.ko_eval.files[0].sha256 in str(info.value)
    assert not (tmp_path / "cache" / "ko_wordvec_eval" / "WS353_korean.csv").exists()


def test_a_wrong_xz_copy_in_the_mirror_is_a_hash_error_naming_it(tmp_path: Path) -> None:
    mini = mini_registry(tmp_path)
    packed = mini.mirror / "corpus_ko" / "raw" / "wiki_01.xz"
    packed.write_bytes(lzma.compress(WIKI_01.replace("수학은", "수학이").encode("utf-8")))
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
                       registry=mini.registry)
    expected = mini.registry.kowiki.files[1].sha256
    with pytest.raises(data.DataHashMismatch, match=rf"corpus_ko/raw/wiki_01 from {packed} \(decompressed\) "
                                                    rf"has sha256 [0-9a-f]{{64}}, the published file has "
                                                    rf"{expected}"):
        store.corpus()
    assert not (tmp_path / "cache" / "corpus_ko" / "raw" / "wiki_01").exists()
    assert not list((tmp_path / "cache").rglob("*.xz"))


def test_a_corrupted_download_is_a_hash_error_naming_it(tmp_path: Path) -> None:
    with serve(tmp_path / "published") as url:
        mini = mini_registry(tmp_path, url)
        _flip_byte(mini.published / "wiki_00")
        store = data.Store(tmp_path / "cache", registry=mini.registry)
        expected = mini.registry.kowiki.files[0].sha256
        with pytest.raises(data.DataHashMismatch,
                           match=rf"{url}/wiki_00 is not the published file .*the published file "
                                 rf"corpus_ko/raw/wiki_00 has {expected}.*Fix: "):
            store.corpus()


def test_the_built_corpus_must_match_the_pinned_hash(tmp_path: Path) -> None:
    mini = mini_registry(tmp_path)
    registry = dataclasses.replace(mini.registry, corpus_sha256="0" * 64)
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=registry),
                       registry=registry)
    with pytest.raises(data.DataHashMismatch, match=r"corpus_ko\.txt built from the verified raw .*kowiki"):
        store.corpus()
    assert not (tmp_path / "cache" / "corpus_ko" / data.CORPUS_FILE).exists()


def test_offline_without_mirror_or_cache_says_how_to_fetch(tmp_path: Path) -> None:
    mini = mini_registry(tmp_path, f"http://127.0.0.1:{closed_port()}")
    store = data.Store(tmp_path / "cache", registry=mini.registry)
    for fetch in (store.corpus, store.ko_eval):
        with pytest.raises(data.DataUnavailable) as info:
            fetch()
        message = str(info.value)
        assert data.FETCH_COMMAND in message and "--claims-data-dir" in message and data.MIRROR_ENV in message


def test_fetch_command_fills_a_data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    mini = mini_registry(tmp_path)
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    assert command.main(["fetch", "--data-dir", str(tmp_path / "d"), "--mirror", str(mini.mirror)]) == 0
    assert str(tmp_path / "d" / "corpus_ko" / data.CORPUS_FILE) in capsys.readouterr().out
    assert command.main(["fetch", "--data-dir", str(tmp_path / "e"), "--mirror", str(tmp_path / "nope")]) == 1
    assert "--mirror names" in capsys.readouterr().err
    assert command.main(["list"]) == 0
    assert "test license" in capsys.readouterr().out
