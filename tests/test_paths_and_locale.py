"""Paths and text as users have them (issue 32, item 4): a directory option that names a dangling symbolic link is
a usage error naming the link and its missing target (:func:`llm_claims_harness.paths.not_writable_dir`, which the
report directory and the trained-weights cache share, and the library's copy for the data directory), and a report is written whatever the locale: under
``LC_ALL=C`` (no UTF-8 mode) a Korean argument reaches Python as lone surrogates, which the report records as the
UTF-8 text it was (:func:`llm_claims_harness.text.utf8`) instead of crashing while writing the index.

The locale tests start a new interpreter (``LC_ALL=C`` acts as Python starts); the others run pytest in a preloaded
child (:mod:`child_pytest`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import child_pytest
import pytest

from llm_claims_harness.paths import not_writable_dir
from llm_claims_lab.core.paths import not_writable_dir as library_not_writable_dir
from llm_claims_harness.text import utf8
from toy_suite import TOY_POSTS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def links(tmp_path: Path) -> Path:
    """``dangling`` → a missing directory, ``loop`` ↔ ``loop2``, ``to_dir`` → a directory, ``to_file`` → a file."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    (tmp_path / "loop").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop")
    (tmp_path / "to_dir").symlink_to("dir")
    (tmp_path / "to_file").symlink_to("file")
    return tmp_path


@pytest.mark.parametrize("not_writable_dir", [not_writable_dir, library_not_writable_dir], ids=["harness", "library"])
def test_a_dangling_link_is_named_with_its_missing_target(links: Path, not_writable_dir) -> None:
    for named in (links / "dangling", links / "dangling" / "sub" / "dir"):  # the link itself, or an ancestor
        assert not_writable_dir(named) == (f"{links / 'dangling'} is a dangling symbolic link: its target "
                                           f"'{links / 'missing'}' does not exist")
    assert "loop of links" in not_writable_dir(links / "loop")
    assert not_writable_dir(links / "to_file") == f"{links / 'to_file'} (a symbolic link to file) exists and is not a directory"
    assert not_writable_dir(links / "to_dir") is None  # a link to a writable directory serves
    assert not_writable_dir(links / "to_dir" / "new") is None


def test_a_dangling_report_dir_is_a_usage_error(pytester: pytest.Pytester, links: Path) -> None:
    pytester.makeconftest(TOY_POSTS)
    pytester.makepyfile(test_one=CLAIMS)
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", f"--claims-report-dir={links / 'dangling'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: report: --claims-report-dir={links / 'dangling'}: {links / 'dangling'} is a "
                                 f"dangling symbolic link: its target '{links / 'missing'}' does not exist; expected*"])
    assert not (links / "missing").exists()


def test_a_dangling_cache_dir_is_a_usage_error(links: Path) -> None:
    """The suite's ``--claims-cache-dir`` uses the same check, before anything is collected or measured."""
    run = child_pytest.run(["-p", "no:cacheprovider", "claims", "--co", "-q", "--no-claims-report",
                            f"--claims-cache-dir={links / 'dangling'}"], cwd=ROOT, timeout=300)
    said = str(run.stderr)
    assert run.ret == pytest.ExitCode.USAGE_ERROR, str(run.stdout)[-2000:] + said[-2000:]
    assert (f"ERROR: trained-weights cache: --claims-cache-dir={links / 'dangling'}: {links / 'dangling'} is a "
            f"dangling symbolic link: its target '{links / 'missing'}' does not exist") in said
    assert "Traceback" not in said


def test_an_empty_path_option_is_a_usage_error() -> None:
    """``--claims-cache-dir=`` (a shell variable left unset) names nothing: a usage error naming the option, for
    every path option of the suite, never the default read in its place."""
    options = ["--claims-cache-dir", "--claims-corpus", "--claims-gpt2-dir", "--claims-ko-eval-dir",
               "--claims-data-dir", "--claims-data-mirror"]
    for option in options:
        run = child_pytest.run(["-p", "no:cacheprovider", "--co", "-q", "--no-claims-report", f"{option}=",
                                "claims/test_alibi.py"], cwd=ROOT, timeout=300)
        said = str(run.stderr)
        assert run.ret == pytest.ExitCode.USAGE_ERROR, option
        assert f"argument {option}: an empty value names no path" in said and "Traceback" not in said


def test_utf8_keeps_text_and_decodes_smuggled_bytes() -> None:
    smuggled = "캐시".encode("utf-8").decode("ascii", "surrogateescape")  # what LC_ALL=C makes of the argument
    assert utf8("캐시 ✎") == "캐시 ✎"
    assert utf8(f"--claims-cache-dir={smuggled}") == "--claims-cache-dir=캐시"
    assert utf8(b"caf\xe9".decode("ascii", "surrogateescape")) == "caf\\xe9"  # not UTF-8: escaped, never a crash
    assert utf8("a\ud800b") == "a\\ud800b"  # a lone surrogate no byte stands for


# A claim whose skip reason holds the report directory the user named (a path, as the locale decoded it).
CLAIMS = '''
"""Rows under any locale."""
import pytest
from llm_claims_harness.declare import claim, exact

@claim(id="loc.holds", source="test", kind="control", expect_source="design", statement="one is one",
       post_value=1, tolerance=exact(reason="integers"))
def test_holds(verify):
    verify(1)

@claim(id="loc.skipped", source="test", kind="control", expect_source="design", statement="needs a directory",
       post_value=1, tolerance=exact(reason="n/a"))
def test_skipped(request):
    pytest.skip(f"nothing in {request.config.getoption('claims_report_dir')}")
'''


def _c_locale(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """pytest under the C locale with Python's UTF-8 mode off: arguments it cannot decode arrive as surrogates."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTEST_"))}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          env={**environ, "LC_ALL": "C", "PYTHONUTF8": "0", **(env or {})},
                          capture_output=True, timeout=300)


def test_a_korean_argument_under_the_c_locale_is_recorded(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(TOY_POSTS)
    pytester.makepyfile(test_loc=CLAIMS)
    out = pytester.path / "보고서"
    run = _c_locale(pytester.path, f"--claims-report-dir={out}")
    assert run.returncode == 0, (run.stdout + run.stderr).decode("utf-8", "replace")[-3000:]
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    command = data["runs"][data["latest_run"]]["command"]
    assert command.endswith(f"'--claims-report-dir={out}'")  # shlex quotes a non-ASCII argument
    assert {r["id"]: r["reason"] for r in data["claims"]}["loc.skipped"] == f"nothing in {out}"
    assert f"--claims-report-dir={out}" in (out / "CLAIMS.md").read_text(encoding="utf-8")


def test_the_report_would_crash_without_the_escape(pytester: pytest.Pytester) -> None:
    """The planted bug: the text kept as the locale decoded it (no :func:`utf8`) loses the report again, as the
    issue found (``UnicodeEncodeError: … surrogates not allowed``); the test above catches that."""
    pytester.makeconftest(TOY_POSTS + "\nfrom llm_claims_harness import environment, results, row\n"
                          "environment.utf8 = results.utf8 = row.utf8 = lambda text: text\n")
    pytester.makepyfile(test_loc=CLAIMS)
    out = pytester.path / "보고서"
    run = _c_locale(pytester.path, f"--claims-report-dir={out}")
    assert b"surrogates not allowed" in run.stdout + run.stderr
    assert not (out / "results.json").exists()


def test_the_issue_reproduction_writes_its_report(tmp_path: Path) -> None:
    """The issue's command, as written (the cache directory under ``tmp_path``): one row, its report written (about
    5 s: the suite's imports; the row trains nothing)."""
    out = tmp_path / "report"
    run = _c_locale(ROOT, "claims", "-k", "pe.sin.table_8x6", f"--claims-cache-dir={tmp_path / '캐시'}",
                    f"--claims-report-dir={out}")
    assert run.returncode == 0, (run.stdout + run.stderr).decode("utf-8", "replace")[-3000:]
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in data["claims"]] == ["pe.sin.table_8x6"]
    assert f"--claims-cache-dir={tmp_path / '캐시'}" in data["runs"][data["latest_run"]]["command"]


def test_a_dangling_link_as_the_data_directory_is_named_before_anything_is_fetched(tmp_path: Path) -> None:
    from llm_claims_lab.data.locations import ExplicitPathError, data_dir

    link = tmp_path / "data"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(ExplicitPathError, match=r"--claims-data-dir names .*data, which .*data is a dangling symbolic link: its target"):
        data_dir(str(link))
    assert not (tmp_path / "gone").exists()
