"""Faults of the run's own output are one line each (issue 41): a figure or a report that cannot be written (a full
disk: ``ENOSPC`` raised by the writer) is said once, naming the path and the fix, never as a library traceback per
row; nothing is left half-made (no empty ``figures/``, the previous report byte-identical, no temporary file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_toy import CONFTEST, LOCAL_REPORT

FIGURES = '''
import errno
import pytest
from llm_claims_harness.declare import Case, claim, exact

def full_disk(path):
    raise OSError(errno.ENOSPC, "No space left on device", str(path))

@claim(id="fig.drawn", source="test", kind="control", expect_source="design", statement="two figures",
       post_value=1, tolerance=exact(reason="integers"), cases={"a": Case(), "b": Case(), "c": Case()})
def test_drawn(verify, figure, case):  # case c shares case a's figure, as a claim's cases often do
    verify(1, figures=figure(f"plot_{'a' if case == 'c' else case}.png", full_disk))
'''

FULL_AT_THE_THIRD_FILE = '''
import errno, os
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    if os.environ.get("TOY_FULL_DISK"):
        real, calls = os.fsync, []
        def fsync(fd):
            calls.append(fd)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(fd)
        os.fsync = fsync
'''


def test_a_figure_on_a_full_disk_is_one_line_and_leaves_no_empty_folder(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_figures=FIGURES)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the report lacks what it should hold
    result.assert_outcomes(passed=3)  # the measurements themselves held
    said = result.stdout.lines + result.stderr.lines
    faults = [line for line in said if "not written" in line]
    assert faults == [f"report: 2 figures not written to {pytester.path / LOCAL_REPORT / 'figures'} (No space left on "
                      "device: plot_a.png, plot_b.png); their rows were measured and link no figure. Fix: free space "
                      "on its disk, or name a writable --claims-report-dir"], said
    assert not any("Traceback" in line or "OSError" in line for line in said)
    assert not (pytester.path / LOCAL_REPORT / "figures").exists()
    assert (pytester.path / LOCAL_REPORT / "results.json").is_file()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_directory_no_mkdir_can_make_is_refused_before_measuring(pytester: pytest.Pytester) -> None:
    """Permissions say /proc is writable to root; making a directory there fails: found up front, not after the
    measuring (the newcomer's --claims-report-dir /proc/nonexistent/x ran every test first)."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_figures=FIGURES)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--claims-report-dir=/proc/claims/report")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: report: --claims-report-dir=/proc/claims/report: cannot be created: /proc "
                                 "refuses a new directory (*); expected a directory this run can create or write to*"])
    assert "passed" not in result.stdout.str()


def test_a_report_on_a_full_disk_is_one_line_and_leaves_the_previous_one(pytester: pytest.Pytester,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest(CONFTEST + FULL_AT_THE_THIRD_FILE)
    pytester.makepyfile(test_figures=FIGURES.replace("full_disk))", "lambda p: p.write_text('png')))"))
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=3)
    out = pytester.path / LOCAL_REPORT
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    monkeypatch.setenv("TOY_FULL_DISK", "1")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    said = result.stdout.lines + result.stderr.lines
    assert [line for line in said if line.startswith("report: ")] == [
        f"report: the report could not be written to {out} (No space left on device); the rows above were measured. "
        "Fix: free space on its disk, or name a writable --claims-report-dir"], said
    assert not any("Traceback" in line for line in said)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # every file as it was
