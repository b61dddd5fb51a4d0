"""The word2vec claims' data (fixtures/data.py, fixtures/kowiki.py): fetched from pinned sources or a
mirror, verified by sha256, built into the cache; named paths that do not hold what they should are usage
errors.

The real data is read only through the mirror that ``$CLAIMS_DATA_MIRROR`` names (``.ci/run`` sets it);
without it those tests skip. Everything else runs on small synthetic files and a mini registry.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import http.server
import lzma
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures import data, kowiki

ROOT = Path(__file__).resolve().parents[1]
# the published corpus_ko.txt and its attribution.tsv (decompressed)
CORPUS_SHA256 = "55770a47294b47367aab9a70fe2f87ecc830ab613db81956de61d3c9ccc8c30e"
ATTRIBUTION_SHA256 = "bebb04119759051e6108c5f7235a6109ba441529529f4c3003f394e574480131"
# clean_kowiki.py, the script the published corpus was made with, on wiki_00 and wiki_01 only (4,392 lines)
TWO_FILES_SHA256 = "f67d740e2bac5fa3f909d6dc2eaba298698692008a0d2992f4ca03ad2b5ddda2"

WIKI_00 = """\
<doc id="5" url="https://ko.wikipedia.org/wiki?curid=5" title="지미 카터">
지미 카터

제임스 얼 카터 주니어(, 1924년 10월 1일 ~ )는 미국의 제39대 대통령이다 .
그는 [[조지아주|조지아]]에서 &lt;b&gt;땅콩&lt;/b&gt; 농장을 운영했다. 그 뒤 정계
카터() 는 해군 장교로 복무하였다.
formula_1 은 수식이 들어간 문단이다.
|| 표 || 행이다 ||
English only sentence here.
짧은 문장이다.
목록의 항목 하나 둘
</doc>
"""
WIKI_01 = """\
<doc id="9" url="https://ko.wikipedia.org/wiki?curid=9" title="수학">
수학
수학은 수와 양을 연구하는 학문이다.
</doc>
"""
# What clean_kowiki.py (the reference) makes of WIKI_00 + WIKI_01.
CLEANED = ("제임스 얼 카터 주니어(1924년 10월 1일 ~ )는 미국의 제39대 대통령이다.\n"
           "그는 조지아에서 땅콩 농장을 운영했다. 그 뒤 정계\n"
           "카터 는 해군 장교로 복무하였다.\n"
           "수학은 수와 양을 연구하는 학문이다.\n")
EVAL_FILES = {"WS353_korean.csv": "word 1,word 2,kor_score\n사랑,섹스,6.42\n",
              "word_analogy_korean.txt": ": sem1\n아테네 그리스 방콕 태국\n"}


def _sha256(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


@dataclasses.dataclass
class Mini:
    """A mini registry with its files as published (``published/``, served as "the network") and a mirror."""

    registry: data.Registry
    published: Path
    mirror: Path


def _mini(tmp_path: Path, base_url: str = "http://127.0.0.1:9") -> Mini:
    published, mirror = tmp_path / "published", tmp_path / "mirror"
    published.mkdir()
    raw = {"wiki_00": WIKI_00, "wiki_01": WIKI_01}
    for name, text in {**EVAL_FILES, **raw}.items():
        (published / name).write_text(text, encoding="utf-8")
    for name, text in EVAL_FILES.items():
        (mirror / "ko_wordvec_eval").mkdir(parents=True, exist_ok=True)
        (mirror / "ko_wordvec_eval" / name).write_text(text, encoding="utf-8")
    (mirror / "corpus_ko" / "raw").mkdir(parents=True)
    for name, text in raw.items():
        (mirror / "corpus_ko" / "raw" / f"{name}.xz").write_bytes(lzma.compress(text.encode("utf-8")))

    def data_set(name: str, files: dict[str, str], mirror_dir: str, suffix: str) -> data.DataSet:
        return data.DataSet(name, f"mini {name}", tuple(
            data.PublishedFile(f"{mirror_dir}/{file}", f"{base_url}/{file}", _sha256(text),
                               f"{mirror_dir}/{file}{suffix}") for file, text in files.items()),
            license="test license", attribution="test attribution")

    registry = data.Registry(ko_eval=data_set("ko_wordvec_eval", EVAL_FILES, "ko_wordvec_eval", ""),
                             kowiki=data_set("corpus_ko", raw, "corpus_ko/raw", ".xz"),
                             corpus_sha256=_sha256(CLEANED))
    return Mini(registry, published, mirror)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port), in a thread; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    """A local port nothing listens on: connections to it are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def _no_named_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests name their data explicitly; the caller's variables (CI sets some) must not leak in."""
    for var in (data.DATA_DIR_ENV, data.MIRROR_ENV, "CLAIMS_CORPUS", "CLAIMS_KO_EVAL_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


@pytest.fixture(scope="module")
def real_mirror() -> Path:
    """The offline mirror of the real data named by ``$CLAIMS_DATA_MIRROR`` (read before the autouse fixture
    clears it), laid out as fixtures/data.py describes."""
    root = os.environ.get(data.MIRROR_ENV)
    if not root:
        pytest.skip(f"${data.MIRROR_ENV} is not set: no offline mirror of the real data to test against")
    return Path(root)


# --- cleaning -------------------------------------------------------------------------------------------


def test_cleaning_follows_the_published_rules() -> None:
    lines = (WIKI_00 + WIKI_01).splitlines(keepends=True)
    assert "".join(p + "\n" for p in kowiki.paragraphs(lines)) == CLEANED


def test_articles_come_from_the_doc_lines() -> None:
    assert list(kowiki.articles((WIKI_00 + WIKI_01).splitlines())) == [
        kowiki.Article(5, "https://ko.wikipedia.org/wiki?curid=5", "지미 카터"),
        kowiki.Article(9, "https://ko.wikipedia.org/wiki?curid=9", "수학")]
    with pytest.raises(ValueError, match="without id, url and title"):
        list(kowiki.articles(['<doc id="5" title="x">']))


# --- the real data, from the mirror ----------------------------------------------------------------------


def test_real_corpus_rebuilt_from_a_directory_mirror(real_mirror: Path, tmp_path: Path) -> None:
    store = data.Store(tmp_path / "cache", data.mirror(str(real_mirror)))
    corpus = store.corpus()
    assert data.pooch.file_hash(str(corpus)) == CORPUS_SHA256 == data.REGISTRY.corpus_sha256
    tsv = lzma.decompress((corpus.parent / data.ATTRIBUTION_FILE).read_bytes())
    assert _sha256(tsv) == ATTRIBUTION_SHA256 and tsv.count(b"\n") == 1 + 4_323
    assert "CC BY-SA 3.0" in (corpus.parent / data.SOURCES_FILE).read_text(encoding="utf-8")
    eval_dir = store.ko_eval()
    assert sorted(p.name for p in eval_dir.iterdir()) == [data.SOURCES_FILE, "WS353_korean.csv",
                                                           "word_analogy_korean.txt"]
    assert not list((tmp_path / "cache").rglob("wiki_*.xz"))  # the mirror's compressed copies are not kept


def test_real_files_from_an_http_mirror(real_mirror: Path, tmp_path: Path) -> None:
    """The same files served by a local HTTP server (a base-URL mirror): the evaluation sets and the first two
    corpus files, whose cleaning the reference script's sha256 pins (the full rebuild runs once, above)."""
    registry = dataclasses.replace(data.REGISTRY, corpus_sha256=TWO_FILES_SHA256, kowiki=dataclasses.replace(
        data.REGISTRY.kowiki, files=data.REGISTRY.kowiki.files[:2]))
    with _serve(real_mirror) as url:
        store = data.Store(tmp_path, data.mirror(url), registry=registry)
        assert data.pooch.file_hash(str(store.corpus())) == TWO_FILES_SHA256
        for f in data.REGISTRY.ko_eval.files:
            assert data.pooch.file_hash(str(store.ko_eval() / Path(f.path).name)) == f.sha256


# --- the mini registry ---------------------------------------------------------------------------------


def test_network_fetch_verifies_and_caches(tmp_path: Path) -> None:
    lines: list[str] = []
    with _serve(tmp_path / "published") as url:
        mini = _mini(tmp_path, url)
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
    mini = _mini(tmp_path)
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
                       registry=mini.registry)
    corpus, ws353 = store.corpus(), store.ko_eval() / "WS353_korean.csv"
    corpus.write_text(CLEANED.replace("수학", "과학"), encoding="utf-8")
    ws353.write_text("damaged", encoding="utf-8")
    assert store.corpus().read_text(encoding="utf-8") == CLEANED
    assert (store.ko_eval() / ws353.name).read_text(encoding="utf-8") == EVAL_FILES["WS353_korean.csv"]


def test_concurrent_builds_build_once(tmp_path: Path) -> None:
    mini = _mini(tmp_path)
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
    mini = _mini(tmp_path)
    _flip_byte(mini.mirror / "ko_wordvec_eval" / "WS353_korean.csv")
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=mini.registry),
                       registry=mini.registry)
    with pytest.raises(data.DataHashMismatch, match=r"WS353_korean\.csv.*expected sha256:[0-9a-f]{64} "
                                                    r"but got [0-9a-f]{64}.*Fix: replace .*WS353_korean\.csv"
                       ) as info:
        store.ko_eval()
    assert mini.registry.ko_eval.files[0].sha256 in str(info.value)
    assert not (tmp_path / "cache" / "ko_wordvec_eval" / "WS353_korean.csv").exists()


def test_a_wrong_xz_copy_in_the_mirror_is_a_hash_error_naming_it(tmp_path: Path) -> None:
    mini = _mini(tmp_path)
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
    with _serve(tmp_path / "published") as url:
        mini = _mini(tmp_path, url)
        _flip_byte(mini.published / "wiki_00")
        store = data.Store(tmp_path / "cache", registry=mini.registry)
        expected = mini.registry.kowiki.files[0].sha256
        with pytest.raises(data.DataHashMismatch,
                           match=rf"corpus_ko/raw/wiki_00 from {url}/wiki_00: .*expected "
                                 rf"sha256:{expected}.*Fix: "):
            store.corpus()


def test_the_built_corpus_must_match_the_pinned_hash(tmp_path: Path) -> None:
    mini = _mini(tmp_path)
    registry = dataclasses.replace(mini.registry, corpus_sha256="0" * 64)
    store = data.Store(tmp_path / "cache", data.mirror(str(mini.mirror), registry=registry),
                       registry=registry)
    with pytest.raises(data.DataHashMismatch, match=r"corpus_ko\.txt built from the verified raw .*kowiki"):
        store.corpus()
    assert not (tmp_path / "cache" / "corpus_ko" / data.CORPUS_FILE).exists()


def test_offline_without_mirror_or_cache_says_how_to_fetch(tmp_path: Path) -> None:
    mini = _mini(tmp_path, f"http://127.0.0.1:{_closed_port()}")
    store = data.Store(tmp_path / "cache", registry=mini.registry)
    for fetch in (store.corpus, store.ko_eval):
        with pytest.raises(data.DataUnavailable) as info:
            fetch()
        message = str(info.value)
        assert data.FETCH_COMMAND in message and "--claims-data-dir" in message and data.MIRROR_ENV in message


def test_fetch_command_fills_a_data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    mini = _mini(tmp_path)
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    assert data.main(["fetch", "--data-dir", str(tmp_path / "d"), "--mirror", str(mini.mirror)]) == 0
    assert str(tmp_path / "d" / "corpus_ko" / data.CORPUS_FILE) in capsys.readouterr().out
    assert data.main(["fetch", "--data-dir", str(tmp_path / "e"), "--mirror", str(tmp_path / "nope")]) == 1
    assert "--mirror names" in capsys.readouterr().err
    assert data.main(["list"]) == 0
    assert "test license" in capsys.readouterr().out


# --- through pytest: skips for defaults, usage errors for named paths ------------------------------------

NEEDS_DATA = """
def test_corpus(word2vec):
    pass

def test_eval(ko_eval_dir):
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A run with this repository's conftest (its data fixtures and options) and tests needing the data."""
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_needs_data=NEEDS_DATA)
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(pytester.path / "weights"))
    return pytester


def test_offline_default_data_skips_with_the_fetch_command(suite: pytest.Pytester,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    mini = _mini(suite.path, f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    result = suite.runpytest(f"--claims-data-dir={suite.path / 'empty'}", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines([f"*SKIPPED*{data.FETCH_COMMAND}*"] * 2)


def test_default_data_from_a_mirror_is_found(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    mini = _mini(suite.path)
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    monkeypatch.setenv(data.MIRROR_ENV, str(mini.mirror))
    suite.makepyfile(test_needs_data="def test_eval(ko_eval_dir):\n"
                                     "    assert (ko_eval_dir / 'WS353_korean.csv').is_file()\n")
    suite.runpytest(f"--claims-data-dir={suite.path / 'cache'}").assert_outcomes(passed=1)


@pytest.mark.parametrize("named, expected", [
    (("--claims-corpus", "absent.txt"), "absent.txt, which is not a file: expected a UTF-8 text file"),
    (("CLAIMS_CORPUS", "."), "$CLAIMS_CORPUS names * which is not a file"),
    (("--claims-ko-eval-dir", "empty"), "lacks WS353_korean.csv and word_analogy_korean.txt: expected*"),
    (("CLAIMS_KO_EVAL_DIR", "absent"), "$CLAIMS_KO_EVAL_DIR names *absent, which lacks WS353_korean.csv"),
    (("--claims-data-dir", "a_file"), "--claims-data-dir names *a_file, which is not a directory"),
    (("CLAIMS_DATA_DIR", "a_file/sub"), "which does not exist and cannot be created under *a_file"),
    (("--claims-data-mirror", "empty"), "lacks 22 of the 22 mirrored files*corpus_ko/raw/wiki_00.xz*"),
    (("CLAIMS_DATA_MIRROR", "absent"), "$CLAIMS_DATA_MIRROR names *absent, which is not a directory*"),
    (("--claims-data-mirror", "ftp://example.org/data"), "expected a directory, a file:// URL or an http*"),
], ids=["corpus-option", "corpus-env", "ko-eval-option", "ko-eval-env", "data-dir-option", "data-dir-env",
        "mirror-option", "mirror-env", "mirror-scheme"])
def test_a_named_path_that_does_not_hold_what_it_should_is_a_usage_error(
        suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, named: tuple[str, str],
        expected: str) -> None:
    (suite.path / "empty").mkdir()
    (suite.path / "a_file").write_text("not a directory", encoding="utf-8")
    name, value = named
    if name.startswith("--"):
        result = suite.runpytest(f"{name}={value}")
    else:
        monkeypatch.setenv(name, value)
        result = suite.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: *{expected}*"])


def test_a_named_corpus_that_cannot_be_read_is_a_usage_error(suite: pytest.Pytester) -> None:
    (suite.path / "latin1.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    result = suite.runpytest("--claims-corpus=latin1.txt", "-k", "test_corpus")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*UsageError: corpus at latin1.txt is unreadable (UnicodeDecodeError*"])
