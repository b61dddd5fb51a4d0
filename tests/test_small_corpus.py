"""A named corpus too small for any word2vec row (issue 32: six natural sentences, no stem occurring 5 times): every
row that needs the corpus skips, once each, with the counts (stems, the most any occurs, WS-353 pairs covered), never
an error row with a fixture traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from planted import run_with_bug

SENTENCES = ["나는 오늘 밥을 먹었다.", "고양이가 창밖을 본다.", "비가 오면 우산을 쓴다.", "서울은 한국의 수도이다.",
             "학생들이 도서관에서 공부한다.", "그는 매일 아침 달린다."]


def test_a_corpus_too_small_for_a_vocabulary_skips_every_row_with_the_counts(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    corpus = tmp_path / "six.txt"
    corpus.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    result, rows = run_with_bug(pytester, monkeypatch, ["test_word2vec.py"], "", f"--claims-corpus={corpus}",
                                "-k", "w2v.ws353")
    assert rows and result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert {r["verdict"] for r in rows.values()} == {"skipped"}
    for r in rows.values():
        assert f"corpus at {corpus} has no stem that occurs 5 times" in r["reason"], r["reason"]
        assert "covers 0 of WS-353's 353 pairs" in r["reason"] and "Traceback" not in r["reason"]


def test_the_stand_in_corpus_check_skips_on_a_named_corpus(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``w2v.corpus_stats`` checks the registry's stand-in corpus against post A's '2M': on a corpus the user named
    (here large enough for a vocabulary) it skips, never a control 'not as designed' on someone else's corpus."""
    corpus = tmp_path / "repeated.txt"
    corpus.write_text("\n".join(SENTENCES * 10) + "\n", encoding="utf-8")  # every stem 10 times: a vocabulary
    result, rows = run_with_bug(pytester, monkeypatch, ["test_word2vec.py"], "", f"--claims-corpus={corpus}",
                                "-k", "w2v.corpus_stats")
    assert set(rows) == {"w2v.corpus_stats[raw]", "w2v.corpus_stats[kept]"}, result.stdout.str()[-3000:]
    assert all(r["verdict"] == "skipped" and f"the corpus named ({corpus})" in r["reason"] for r in rows.values())
