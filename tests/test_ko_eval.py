"""The loaders of the Korean evaluation sets (llm_claims_lab/word2vec/ko_eval.py) read the published format only."""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_claims_lab.data import ExplicitPathError
from llm_claims_lab.word2vec.ko_eval import (
    ANALOGY_FILE,
    WS353_FILE,
    Analogy,
    EvalDataUnavailable,
    MalformedEvalFile,
    ScoredPair,
    eval_dir,
    explicit_dir,
    load_analogies,
    load_ws353,
)

WS353 = "\ufeffword 1,word 2,kor_score\n사랑,섹스,6.42\n회사,주식,4.00 \n\n호랑이,호랑이,10.00\n"
ANALOGIES = ": sem1\n아테네 그리스 방콕 태국\n: syn2\n가다 갔다 나오다 나왔다\n가다 갔다 놓다 놓았다\n"


def _write(tmp_path: Path, text: str, name: str = "f.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_ws353_reads_the_published_format(tmp_path: Path) -> None:
    pairs = load_ws353(_write(tmp_path, WS353))  # BOM, a trailing space after a score, a blank line
    assert pairs == [ScoredPair("사랑", "섹스", 6.42), ScoredPair("회사", "주식", 4.0),
                     ScoredPair("호랑이", "호랑이", 10.0)]


@pytest.mark.parametrize("text, message", [
    ("w1,w2,score\n사랑,섹스,6.42\n", "header"),
    ("word 1,word 2,kor_score\n사랑,6.42\n", ":2: expected 'word,word,score'"),
    ("word 1,word 2,kor_score\n사랑,,6.42\n", ":2: expected 'word,word,score'"),
    ("word 1,word 2,kor_score\n사랑,섹스,높음\n", "is not a number"),
    ("word 1,word 2,kor_score\n사랑,섹스,11\n", "outside"),
    ("word 1,word 2,kor_score\n", "no pair"),
    ("\n\n", "empty"),
], ids=["header", "two-fields", "empty-word", "score-text", "score-range", "no-pair", "empty"])
def test_ws353_refuses_malformed_files(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(MalformedEvalFile, match=message):
        load_ws353(_write(tmp_path, text))


def test_analogies_read_sections_in_order(tmp_path: Path) -> None:
    sections = load_analogies(_write(tmp_path, ANALOGIES))
    assert list(sections) == ["sem1", "syn2"]
    assert sections["sem1"] == [Analogy("아테네", "그리스", "방콕", "태국")]
    assert len(sections["syn2"]) == 2


@pytest.mark.parametrize("text, message", [
    ("아테네 그리스 방콕 태국\n", "before the first"),
    (": sem1\n아테네 그리스 방콕\n", ":2: expected 4 words"),
    (": sem1\n아테네 그리스 방콕 태국\n: sem1\n가 나 다 라\n", "repeated"),
    (": sem1\n: syn1\n가 나 다 라\n", "without items"),
    (":\n가 나 다 라\n", "empty or repeated"),
], ids=["no-section", "three-words", "repeated-section", "empty-section", "unnamed-section"])
def test_analogies_refuse_malformed_files(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(MalformedEvalFile, match=message):
        load_analogies(_write(tmp_path, text))


def test_missing_or_undecodable_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(EvalDataUnavailable, match="--claims-ko-eval-dir"):
        load_ws353(tmp_path / "absent.csv")
    (tmp_path / "latin1.txt").write_bytes(": sem1\n\xe9\xe9 a b c\n".encode("latin-1"))
    with pytest.raises(EvalDataUnavailable, match="unreadable"):
        load_analogies(tmp_path / "latin1.txt")


class _Store:
    """A stand-in for the data store: it serves a directory without fetching anything."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def ko_eval(self) -> Path:
        return self.path


def test_eval_dir_prefers_the_option_then_the_environment(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    option, env, default = (tmp_path / name for name in ("option", "env", "default"))
    for path in (option, env):
        path.mkdir()
        _write(path, WS353, WS353_FILE)
        _write(path, ANALOGIES, ANALOGY_FILE)
    store = _Store(default)
    monkeypatch.setenv("CLAIMS_KO_EVAL_DIR", str(env))
    assert eval_dir(str(option), store) == option
    assert eval_dir(None, store) == env
    monkeypatch.delenv("CLAIMS_KO_EVAL_DIR")
    assert eval_dir(None, store) == default  # the registry's copy (llm_claims_lab/data/__init__.py)


def test_a_named_dir_without_the_files_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, WS353, WS353_FILE)
    with pytest.raises(ExplicitPathError, match=rf"--claims-ko-eval-dir names {tmp_path}, which lacks "
                                                rf"{ANALOGY_FILE}: expected a directory holding"):
        explicit_dir(str(tmp_path))
    monkeypatch.setenv("CLAIMS_KO_EVAL_DIR", str(tmp_path / "absent"))
    with pytest.raises(ExplicitPathError, match=r"\$CLAIMS_KO_EVAL_DIR names .*absent, which does not exist: "
                                                rf"expected a directory holding {WS353_FILE} and {ANALOGY_FILE}"):
        explicit_dir(None)
    monkeypatch.setenv("CLAIMS_KO_EVAL_DIR", str(tmp_path / WS353_FILE))
    with pytest.raises(ExplicitPathError, match=rf"names .*{WS353_FILE}, which is not a directory: expected"):
        explicit_dir(None)
