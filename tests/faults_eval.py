"""Fault scenarios (tests/faults_common.py): a corpus named with --claims-corpus, and the Korean evaluation sets
(named with --claims-ko-eval-dir, or the registry's copy). A fault is a clear error naming the file, or, where a
damaged file still parses (a score cut from 6.42 to 6.4), a warning that it is not the published file; an
evaluation set that covers too few pairs skips the row with the counts (errors, when the user named the sets)."""

from __future__ import annotations

import dataclasses
import hashlib
import lzma
import os
import sys
import warnings
from pathlib import Path

import child_pytest
import pytest
import torch
from faults_common import TRUNCATIONS, assert_clear, flip_byte, replace_with, scenario, truncate

from llm_claims_lab.word2vec import corpus, ko_eval
from llm_claims_lab import data
from llm_claims_lab.core.analogy import WordList
from llm_claims_lab.word2vec.relatedness import MIN_PAIRS, covered_pairs, rho_difference, ws353_score
from llm_claims_lab.core.stats import NotMeasurable

ROOT = Path(__file__).resolve().parents[1]
WORDS = [f"낱말{i}" for i in range(40)]
WS353 = "word 1,word 2,kor_score\n" + "".join(f"{WORDS[i]},{WORDS[i + 20]},{(7 * i) % 10}.42\n" for i in range(20))
ANALOGIES = ": sem1\n" + "".join(f"{WORDS[i]} {WORDS[i + 1]} {WORDS[i + 2]} {WORDS[i + 3]}\n" for i in range(12))
CORPUS = "".join(f"{' '.join(WORDS[i:i + 8])}\n" for i in range(30)) * 3
EVAL_ERRORS = (ko_eval.EvalDataUnavailable, ko_eval.MalformedEvalFile)
LOADERS = {ko_eval.WS353_FILE: ko_eval.load_ws353, ko_eval.ANALOGY_FILE: ko_eval.load_analogies}


def _eval_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "ko_eval"
    directory.mkdir()
    (directory / ko_eval.WS353_FILE).write_text(WS353, encoding="utf-8")
    (directory / ko_eval.ANALOGY_FILE).write_text(ANALOGIES, encoding="utf-8")
    return directory


def _published_as(directory: Path) -> data.Registry:
    """The registry with ``directory``'s two files as the published evaluation sets."""
    files = tuple(dataclasses.replace(f, sha256=hashlib.sha256((directory / Path(f.path).name).read_bytes()).hexdigest())
                  for f in data.REGISTRY.ko_eval.files)
    return dataclasses.replace(data.REGISTRY, ko_eval=dataclasses.replace(data.REGISTRY.ko_eval, files=files))


def _damaged_eval_file_is_an_error_or_said(tmp_path: Path, damage) -> None:
    """Damage each file of a named copy: loading it is a clear error naming it, or it still parses and the
    check of the named copy warns that it is not the published file."""
    directory = _eval_dir(tmp_path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(data, "REGISTRY", _published_as(directory))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ko_eval.warn_if_unpublished(directory)  # the clean copy is the published one: no warning
        for name, load in LOADERS.items():
            path = directory / name
            clean = path.read_bytes()
            damage(path)
            try:
                load(path)
            except EVAL_ERRORS as exc:
                assert_clear(exc, names=path, types=EVAL_ERRORS)
            else:
                with pytest.warns(ko_eval.UnpublishedEvalFile, match=str(path)):
                    ko_eval.warn_if_unpublished(directory)
            path.write_bytes(clean)


@scenario("Korean evaluation sets", "missing", ("directory", "file", "one file of a named directory"))
def eval_missing(tmp_path: Path, variant: str) -> None:
    directory = _eval_dir(tmp_path)
    if variant == "directory":
        with pytest.raises(data.ExplicitPathError) as caught:
            ko_eval.explicit_dir(str(tmp_path / "absent"))
        assert_clear(caught.value, names=tmp_path / "absent", types=(data.ExplicitPathError,))
    elif variant == "file":
        (directory / ko_eval.WS353_FILE).unlink()
        with pytest.raises(ko_eval.EvalDataUnavailable) as caught:
            ko_eval.load_ws353(directory / ko_eval.WS353_FILE)
        assert_clear(caught.value, names=directory / ko_eval.WS353_FILE, types=EVAL_ERRORS)
    else:
        (directory / ko_eval.ANALOGY_FILE).unlink()
        with pytest.raises(data.ExplicitPathError, match=ko_eval.ANALOGY_FILE) as caught:
            ko_eval.explicit_dir(str(directory))
        assert_clear(caught.value, names=directory, types=(data.ExplicitPathError,))


@scenario("Korean evaluation sets", "empty", tuple(LOADERS))
def eval_empty(tmp_path: Path, variant: str) -> None:
    path = _eval_dir(tmp_path) / variant
    replace_with(path, "empty")
    with pytest.raises(ko_eval.MalformedEvalFile) as caught:
        LOADERS[variant](path)
    assert_clear(caught.value, names=path, types=EVAL_ERRORS)


@scenario("Korean evaluation sets", "truncated", TRUNCATIONS)
def eval_truncated(tmp_path: Path, variant: str) -> None:
    _damaged_eval_file_is_an_error_or_said(tmp_path, lambda path: truncate(path, variant))


@scenario("Korean evaluation sets", "byte flip", ("start", "middle", "end"))
def eval_byte_flip(tmp_path: Path, variant: str) -> None:
    _damaged_eval_file_is_an_error_or_said(tmp_path, lambda path: flip_byte(path, variant))


@scenario("Korean evaluation sets", "wrong format", ("git-lfs pointer", "html page", "euc-kr text",
                                                     "English WS-353 header"))
def eval_wrong_format(tmp_path: Path, variant: str) -> None:
    directory = _eval_dir(tmp_path)
    for name, load in LOADERS.items():
        path = directory / name
        if variant == "euc-kr text":
            path.write_bytes(path.read_text(encoding="utf-8").encode("euc-kr"))
        elif variant == "English WS-353 header":
            path.write_text("Word 1,Word 2,Human (mean)\nlove,sex,6.77\n", encoding="utf-8")
        else:
            replace_with(path, variant)
        with pytest.raises(EVAL_ERRORS) as caught:
            load(path)
        assert_clear(caught.value, names=path, types=EVAL_ERRORS)
        if variant in ("git-lfs pointer", "html page"):
            assert variant.split()[-2] in str(caught.value).lower() or "lfs" in str(caught.value).lower()


@scenario("Korean evaluation sets", "low coverage", ("ws353 score", "rho difference", "through pytest",
                                                     "through pytest, sets named"))
def eval_low_coverage(tmp_path: Path, variant: str) -> None:
    few = WordList(WORDS[:3] + WORDS[20:23], name="a 6-word vocabulary", hint="")  # covers 3 of the 20 pairs
    table = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))  # [V, D]
    if variant.startswith("through pytest"):
        _low_coverage_through_pytest(tmp_path, named=variant.endswith("named"))
        return
    pairs = ko_eval.load_ws353(_eval_dir(tmp_path) / ko_eval.WS353_FILE)
    if variant == "ws353 score":
        with pytest.raises(NotMeasurable, match=f"3 of the 20 WS-353 pairs .* at least {MIN_PAIRS}"):
            ws353_score(table, few, pairs)
        full = WordList(WORDS, name="all", hint="")
        cos, human, _ = ws353_score(torch.randn(40, 4, generator=torch.Generator().manual_seed(0)), full, pairs)
        assert len(cos) == len(human) == 20  # enough pairs: measured
    elif variant == "rho difference":
        with pytest.raises(NotMeasurable, match=f"cover 3 of the 20 WS-353 pairs together .* at least {MIN_PAIRS}"):
            rho_difference({"a": (table, few), "b": (table, few)}, pairs, "a", "b", seed=0)


def _low_coverage_through_pytest(tmp_path: Path, *, named: bool) -> None:
    """A row whose WS-353 pairs are too few skips with the counts; with the sets named by the user, it errors."""
    directory, suite = _eval_dir(tmp_path), tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text((ROOT / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    (suite / "test_row.py").write_text(
        "from pathlib import Path\nimport torch\nfrom llm_claims_lab.core.analogy import WordList\nfrom llm_claims_lab.word2vec.ko_eval import load_ws353\n"
        "from llm_claims_lab.word2vec.relatedness import ws353_score\n\ndef test_ws353_row():\n"
        f"    few = WordList({WORDS[:3] + WORDS[20:23]!r}, name='a 6-word vocabulary', hint='')\n"
        f"    ws353_score(torch.zeros(6, 4), few, load_ws353(Path({str(directory / ko_eval.WS353_FILE)!r})))\n",
        encoding="utf-8")
    args = ["-p", "no:cacheprovider", "-p", "no:randomly", "--no-claims-report", "-rs", "-q", f"--claims-cache-dir={tmp_path / 'weights'}", str(suite / "test_row.py")]
    if named:
        args.append(f"--claims-ko-eval-dir={directory}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAIMS_", "PYTEST_"))}
    result = child_pytest.run(args, cwd=suite, env={**env, "PYTHONPATH": str(ROOT)}, timeout=300)
    expected = ("1 failed", "NotMeasurable: 3 of the 20 WS-353 pairs") if named else (
        "1 skipped", "not measurable: 3 of the 20 WS-353 pairs")
    assert all(text in str(result.stdout) for text in expected), f"{result.stdout}\n{result.stderr}"


def _corpus(tmp_path: Path, suffix: str = ".txt") -> Path:
    path = tmp_path / f"corpus{suffix}"
    raw = CORPUS.encode("utf-8")
    path.write_bytes(lzma.compress(raw) if suffix == ".txt.xz" else raw)
    return path


def _corpus_error(path: Path) -> None:
    with pytest.raises(corpus.CorpusUnavailable) as caught:
        corpus.build_corpus(path)
    assert_clear(caught.value, names=path, types=(corpus.CorpusUnavailable,))


@scenario("named corpus", "missing")
def corpus_missing(tmp_path: Path, variant: str) -> None:
    with pytest.raises(data.ExplicitPathError) as caught:
        corpus.explicit_corpus(str(tmp_path / "absent.txt"))
    assert_clear(caught.value, names=tmp_path / "absent.txt", types=(data.ExplicitPathError,))
    _corpus_error(tmp_path / "absent.txt")


@scenario("named corpus", "empty", (".txt", ".txt.xz"))
def corpus_empty(tmp_path: Path, variant: str) -> None:
    path = tmp_path / f"corpus{variant}"
    path.write_bytes(lzma.compress(b"") if variant == ".txt.xz" else b"")
    _corpus_error(path)


@scenario("named corpus", "truncated", (*(f".txt.xz, {how}" for how in TRUNCATIONS), ".txt, inside a character"))
def corpus_truncated(tmp_path: Path, variant: str) -> None:
    """A truncated xz stream is an error; plain text cut between lines is a shorter corpus (its sha256 is in the
    rows' corpus statistics), cut inside a character it is not UTF-8."""
    if variant.startswith(".txt.xz"):
        path = _corpus(tmp_path, ".txt.xz")
        truncate(path, variant.split(", ")[1])
    else:
        path = _corpus(tmp_path)
        raw = path.read_bytes()
        path.write_bytes(raw[:raw.rindex("낱".encode()) + 1])  # the first of the syllable's 3 bytes
    _corpus_error(path)


@scenario("named corpus", "wrong format", ("git-lfs pointer", "html page", "euc-kr text", "xz of euc-kr text"))
def corpus_wrong_format(tmp_path: Path, variant: str) -> None:
    path = _corpus(tmp_path)
    if variant == "euc-kr text":
        path.write_bytes(CORPUS.encode("euc-kr"))
    elif variant == "xz of euc-kr text":
        path = tmp_path / "corpus.txt.xz"
        path.write_bytes(lzma.compress(CORPUS.encode("euc-kr")))
    else:
        replace_with(path, variant)
    _corpus_error(path)


@scenario("named corpus", "low coverage", ("no stem 5 times", "WS-353 pairs"))
def corpus_low_coverage(tmp_path: Path, variant: str) -> None:
    """Too small a corpus: no vocabulary at all is an error naming it; a vocabulary that covers too few WS-353
    pairs makes those rows not measurable, with the counts (the low-coverage scenarios of the evaluation sets
    show the skip and the error)."""
    path = tmp_path / "corpus.txt"
    if variant == "no stem 5 times":
        path.write_text(" ".join(WORDS) + "\n", encoding="utf-8")
        _corpus_error(path)
        return
    path.write_text(f"{' '.join(WORDS[:3] + WORDS[20:23])}\n" * 5, encoding="utf-8")
    built = corpus.build_corpus(path)
    vocab = WordList(built.vocab, name="the skip-gram vocabulary", hint="")
    pairs = ko_eval.load_ws353(_eval_dir(tmp_path) / ko_eval.WS353_FILE)
    with pytest.raises(NotMeasurable, match=r"3 of the 20 WS-353 pairs .* of the skip-gram vocabulary"):
        covered_pairs(vocab, pairs)  # the vocabulary alone decides it: the rows check before training


@scenario("named corpus", "byte-order mark", (".txt", ".txt.xz"))
def corpus_byte_order_mark(tmp_path: Path, variant: str) -> None:
    """A UTF-8 byte-order mark before the first line is stripped and said once, naming the file: the corpus is
    the one without it (the first word keeps its count), and a second read says nothing more."""
    clean = corpus.build_corpus(_corpus(tmp_path, variant))
    path = tmp_path / f"bom{variant}"
    raw = b"\xef\xbb\xbf" + CORPUS.encode("utf-8")
    path.write_bytes(lzma.compress(raw) if variant == ".txt.xz" else raw)
    with pytest.warns(corpus.CorpusByteOrderMark, match=f"corpus at {path} starts with a UTF-8 byte-order mark") as said:
        built = corpus.build_corpus(path)
    assert len(said) == 1
    assert (built.vocab, built.ids.tolist(), built.sha256) == (clean.vocab, clean.ids.tolist(), clean.sha256)
    assert not any(word.startswith(corpus.BOM) for word in built.vocab)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert corpus.read_paragraphs(path) == corpus.read_paragraphs(clean.path)


@scenario("Kiwi analyser", "missing", ("kiwipiepy", "kiwipiepy_model"))
def kiwi_missing(tmp_path: Path, variant: str) -> None:
    """Without the package (or its model, which Kiwi loads as it starts), the Kiwi rows skip with the install
    command."""
    from llm_claims_lab.word2vec import segmenters

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, variant, None)  # import of it raises ImportError
        if variant == "kiwipiepy_model":
            pytest.importorskip("kiwipiepy", reason='the kiwi extra: pip install -e ".[kiwi]"')
            mp.delitem(sys.modules, "kiwipiepy", raising=False)
            mp.delitem(sys.modules, "kiwipiepy._wrap", raising=False)
        with pytest.raises(segmenters.SegmenterUnavailable, match=r"install it with .*\[kiwi\]") as caught:
            segmenters.load("kiwi")
    assert_clear(caught.value, names="kiwipiepy", types=(segmenters.SegmenterUnavailable,))
