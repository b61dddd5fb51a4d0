"""The Korean Wikipedia corpus (llm_claims_lab/data/kowiki.py, llm_claims_lab/data/__init__.py): the cleaning rules, and the
real data rebuilt from the offline mirror and verified against the published sha256.

The real data is read only through the mirror that ``$CLAIMS_DATA_MIRROR`` names (``.ci/run`` sets it);
without it those tests skip. The cleaning runs on two small synthetic extracts.
"""

from __future__ import annotations

import dataclasses
import lzma
import os
from pathlib import Path

import pytest
from kowiki_mini import CLEANED, WIKI_00, WIKI_01, serve, sha256

from llm_claims_lab.data import kowiki
from llm_claims_lab import data

# the caller's data variables are cleared for every test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_named_data")

# the published corpus_ko.txt and its attribution.tsv (decompressed)
CORPUS_SHA256 = "55770a47294b47367aab9a70fe2f87ecc830ab613db81956de61d3c9ccc8c30e"
ATTRIBUTION_SHA256 = "bebb04119759051e6108c5f7235a6109ba441529529f4c3003f394e574480131"
# clean_kowiki.py, the script the published corpus was made with, on wiki_00 and wiki_01 only (4,392 lines)
TWO_FILES_SHA256 = "f67d740e2bac5fa3f909d6dc2eaba298698692008a0d2992f4ca03ad2b5ddda2"


@pytest.fixture(scope="module")
def real_mirror() -> Path:
    """The offline mirror of the real data named by ``$CLAIMS_DATA_MIRROR`` (read before the no_named_data
    fixture clears it), laid out as llm_claims_lab/data/__init__.py describes."""
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
    assert sha256(tsv) == ATTRIBUTION_SHA256 and tsv.count(b"\n") == 1 + 4_323
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
    with serve(real_mirror) as url:
        store = data.Store(tmp_path, data.mirror(url), registry=registry)
        assert data.pooch.file_hash(str(store.corpus())) == TWO_FILES_SHA256
        for f in data.REGISTRY.ko_eval.files:
            assert data.pooch.file_hash(str(store.ko_eval() / Path(f.path).name)) == f.sha256
