"""The suite's data fixtures and options through pytest (pytester, with this repository's conftest): default
data that cannot be had skips with the fetch command, default data from a mirror is found, named paths
that do not hold what they should are usage errors, and a damaged file is one line in each row it stops and once
in the summary (issue 32), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from faults_common import replace_with, truncate
from kowiki_mini import closed_port, mini_registry

from llm_claims_lab import data

ROOT = Path(__file__).resolve().parents[1]

# the caller's data variables are cleared for every test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_named_data")

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
    mini = mini_registry(suite.path, f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    result = suite.runpytest(f"--claims-data-dir={suite.path / 'empty'}", "-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines([f"*SKIPPED*{data.FETCH_COMMAND}*"] * 2)


def test_default_data_from_a_mirror_is_found(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    mini = mini_registry(suite.path)
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    monkeypatch.setenv(data.MIRROR_ENV, str(mini.mirror))
    suite.makepyfile(test_needs_data="def test_eval(ko_eval_dir):\n"
                                     "    assert (ko_eval_dir / 'WS353_korean.csv').is_file()\n")
    suite.runpytest(f"--claims-data-dir={suite.path / 'cache'}").assert_outcomes(passed=1)


@pytest.mark.parametrize("named, expected", [
    (("--claims-corpus", "absent.txt"), "absent.txt, which is not a file: expected a UTF-8 text file"),
    (("CLAIMS_CORPUS", "."), "$CLAIMS_CORPUS names * which is not a file"),
    (("--claims-ko-eval-dir", "empty"), "lacks WS353_korean.csv and word_analogy_korean.txt: expected*"),
    (("CLAIMS_KO_EVAL_DIR", "absent"), "$CLAIMS_KO_EVAL_DIR names *absent, which does not exist: expected*"),
    (("--claims-data-dir", "a_file"), "--claims-data-dir names *a_file, which is not a directory"),
    (("CLAIMS_DATA_DIR", "a_file/sub"), "which is not a directory this run can write in (cannot be created: *a_file is not a directory)"),
    (("--claims-data-mirror", "empty"), "lacks 22 of the 22 mirrored files*corpus_ko/raw/wiki_00.xz*"),
    (("CLAIMS_DATA_MIRROR", "absent"), "$CLAIMS_DATA_MIRROR names *absent, which is not a directory*"),
    (("--claims-data-mirror", "ftp://example.org/data"), "expected a directory, a file:// URL or an http*"),
    (("--claims-corpus", "pointer.txt"), "corpus at pointer.txt is a Git LFS pointer, not the file*"),
    (("--claims-ko-eval-dir", "html"), "*WS353_korean.csv is an HTML page, not the file*"),
], ids=["corpus-option", "corpus-env", "ko-eval-option", "ko-eval-env", "data-dir-option", "data-dir-env",
        "mirror-option", "mirror-env", "mirror-scheme", "corpus-pointer", "ko-eval-html"])
def test_a_named_path_that_does_not_hold_what_it_should_is_a_usage_error(
        suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, named: tuple[str, str],
        expected: str) -> None:
    (suite.path / "empty").mkdir()
    (suite.path / "a_file").write_text("not a directory", encoding="utf-8")
    (suite.path / "pointer.txt").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n")
    (suite.path / "html").mkdir()  # both files there, the WS-353 one an error page saved in its place
    (suite.path / "html" / "WS353_korean.csv").write_text("<!DOCTYPE html><html>404</html>\n")
    (suite.path / "html" / "word_analogy_korean.txt").write_text(": sem1\na b c d\n", encoding="utf-8")
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
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # at configure time, before anything is measured
    result.stderr.fnmatch_lines(["ERROR: corpus at latin1.txt is unreadable (UnicodeDecodeError*"])


@pytest.mark.parametrize("damaged, stopped, says", [
    ("corpus_ko/raw/wiki_00.xz", "test_corpus", "is a truncated xz file"),
    ("ko_wordvec_eval/WS353_korean.csv", "test_eval", "is an HTML page"),
], ids=["truncated-xz", "html-page"])
def test_a_damaged_file_is_one_line_per_row_and_once_in_the_summary(
        suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, damaged: str, stopped: str, says: str) -> None:
    mini = mini_registry(suite.path)
    monkeypatch.setattr(data, "REGISTRY", mini.registry)
    (truncate(mini.mirror / damaged, "half") if damaged.endswith(".xz")
     else replace_with(mini.mirror / damaged, "html page"))
    suite.makepyfile(test_needs_data=NEEDS_DATA + "\ndef test_eval_again(ko_eval_dir, word2vec):\n    pass\n")
    args = (f"--claims-data-dir={suite.path / 'cache'}", f"--claims-data-mirror={mini.mirror}", "-p", "no:randomly")
    result = suite.runpytest(*args)
    errors = [line.strip() for line in result.outlines if line.strip().startswith("DataHashMismatch: ")]
    assert len(errors) == 2 + 1, result.outlines  # the row that needs it, the one that also does, the summary
    assert all(says in line and str(mini.mirror / damaged) in line and "Fix: replace" in line for line in errors)
    assert len(set(errors)) == 1 and not any(line.startswith(("E ", "Traceback", "fixtures/")) for line in result.outlines)
    for name in (stopped, "test_eval_again"):  # in the order the suite runs them (fixtures/trained.py orders them)
        result.stdout.fnmatch_lines([f"*ERROR at setup of {name}*", errors[0]])
    result.stdout.fnmatch_lines(["*= input faults =*", "2 rows stopped by 1 fault*", f"  {errors[0]}"])
    rows = next(line for line in result.outlines if line.startswith("    rows: "))
    assert sorted(rows.removeprefix("    rows: ").split(", ")) == [f"test_needs_data.py::{name}"
                                                                  for name in sorted((stopped, "test_eval_again"))]
    # the check fails on the old handling: without fixtures/faults.py each row is a traceback through the fixture
    old = suite.runpytest(*args, "-p", "no:fixtures.faults")
    assert any(line.startswith("E   ") and "DataHashMismatch" in line for line in old.outlines)
    assert "input faults" not in old.stdout.str()
