"""A partial run rewrites only the rows it measured, whatever pytest was told (issue 41): each selection pytest
offers, run against a copy of a whole report of the toy suite, keeps every row it did not measure as it was (value,
verdict, run id) and the row set whole; a catalogue is written whole or refused. ``tests/test_partial_selection_suite.py``
runs the same matrix on this repository's suite and its committed report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness_toy import CLAIMS, CONFTEST, needs_xdist

MORE = '''
"""More toy claims, in a folder of their own: a gate a variable closes, a marked claim, one that a variable
interrupts."""
import os
import pytest
from llm_claims_harness.declare import claim, exact

@claim(id="more.gate", source="test", kind="control", expect_source="design", statement="the gate is open",
       post_value=0, tolerance=exact(reason="a flag"))
def test_gate(verify):
    verify(int(os.environ.get("TOY_FAIL", "0")))

@pytest.mark.quick
@claim(id="more.quick", source="test", kind="control", expect_source="design", statement="two", post_value=2,
       tolerance=exact(reason="an integer"))
def test_quick(verify):
    verify(2)

@claim(id="more.interrupt", source="test", kind="control", expect_source="design", statement="three",
       post_value=3, tolerance=exact(reason="an integer"))
def test_interrupt(verify):
    if os.environ.get("TOY_INTERRUPT"):
        raise KeyboardInterrupt
    verify(3)
'''

MARKER = '''
def pytest_configure(config):
    config.addinivalue_line("markers", "quick: a toy marker")
'''

TOY = ["toy.holds", "toy.refuted_as_expected", "toy.cases[a]", "toy.cases[b]", "toy.cases[c]", "toy.skipped"]
SUB = ["more.gate", "more.quick", "more.interrupt"]
LASTFAILED = {"test_toy.py::test_holds": True}

# pytest arguments, environment, lastfailed cache or None, the rows the run measures; the selection's name as id
SELECTIONS = [
    pytest.param(["test_toy.py"], {}, None, TOY, id="file"),
    pytest.param(["sub"], {}, None, SUB, id="directory"),
    pytest.param(["test_toy.py::test_holds"], {}, None, ["toy.holds"], id="node_id"),
    pytest.param(["test_toy.py::test_cases[b]"], {}, None, ["toy.cases[b]"], id="parametrised_node_id"),
    pytest.param(["-k", "toy.cases"], {}, None, ["toy.cases[a]", "toy.cases[b]", "toy.cases[c]"], id="k"),
    pytest.param(["-m", "quick"], {}, None, ["more.quick"], id="m"),
    pytest.param(["--deselect", "test_toy.py::test_holds"], {}, None, [r for r in SUB + TOY if r != "toy.holds"], id="deselect"),
    pytest.param(["--lf"], {}, LASTFAILED, ["toy.holds"], id="lf"),
    pytest.param(["--ff"], {}, LASTFAILED, SUB + TOY, id="ff"),
    pytest.param(["--sw"], {"TOY_FAIL": "1"}, None, ["more.gate"], id="sw"),
    pytest.param(["-x"], {"TOY_FAIL": "1"}, None, ["more.gate"], id="x"),
    pytest.param([], {"TOY_INTERRUPT": "1"}, None, ["more.gate", "more.quick"], id="interrupted"),
    pytest.param(["-n", "0", "test_toy.py::test_holds"], {}, None, ["toy.holds"], id="n0_node_id", marks=needs_xdist),
    pytest.param(["-n", "2", "test_toy.py::test_holds", "sub/test_more.py::test_quick"], {}, None,
                 ["toy.holds", "more.quick"], id="n2_node_ids", marks=needs_xdist),
    pytest.param(["-n", "2", "--lf"], {}, LASTFAILED, ["toy.holds"], id="n2_lf", marks=needs_xdist),
    pytest.param(["--co"], {}, None, [], id="collect_only"),
]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole report of the two-file toy suite, written once: ``<dir>/report``."""
    return tmp_path_factory.mktemp("whole")


def _suite(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST + MARKER)
    pytester.makepyfile(test_toy=CLAIMS)
    (pytester.path / "sub").mkdir()
    (pytester.path / "sub" / "test_more.py").write_text(MORE, encoding="utf-8")


def _full_report(pytester: pytest.Pytester, whole: Path) -> Path:
    """The whole report (written on first use into ``whole``), copied to a fresh directory of ``pytester``."""
    if not (whole / "report" / "results.json").exists():
        pytester.runpytest("--claims-report-dir", str(whole / "report"), "-p", "no:cacheprovider").assert_outcomes(
            passed=9, skipped=1)
    copy = pytester.path / "report"
    shutil.copytree(whole / "report", copy)
    return copy


def _rows(out: Path) -> tuple[dict, dict[str, dict]]:
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return data, {r["id"]: r for r in data["claims"]}


def _set_cache(pytester: pytest.Pytester, lastfailed: dict | None) -> None:
    shutil.rmtree(pytester.path / ".pytest_cache", ignore_errors=True)
    if lastfailed is not None:
        cache = pytester.path / ".pytest_cache" / "v" / "cache"
        cache.mkdir(parents=True)
        (cache / "lastfailed").write_text(json.dumps(lastfailed), encoding="utf-8")


@pytest.mark.parametrize(("args", "env", "lastfailed", "measured"), SELECTIONS)
def test_a_selection_keeps_every_row_it_did_not_measure(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, whole: Path, args: list[str],
        env: dict[str, str], lastfailed: dict | None, measured: list[str]) -> None:
    _suite(pytester)
    out = _full_report(pytester, whole)
    before, full = _rows(out)
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    _set_cache(pytester, lastfailed)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # a KeyboardInterrupt raised in this process would end this session too: that run gets a process of its own
    run = pytester.runpytest_subprocess if "TOY_INTERRUPT" in env else pytester.runpytest
    run("--claims-report-dir", str(out), *args)
    after, rows = _rows(out)
    if not measured:  # nothing measured: nothing written
        assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files
        return
    assert set(rows) == set(full)  # the row set whole
    assert sorted(rid for rid, r in rows.items() if r["run"] == after["latest_run"]) == sorted(measured)
    assert after["measured_this_run"] == len(measured) and after["latest_run"] != before["latest_run"]
    kept = {rid: r for rid, r in rows.items() if rid not in measured}
    assert kept == {rid: full[rid] for rid in kept}  # value, verdict and run id as they were


def test_lf_after_a_failed_run_keeps_every_row(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                               whole: Path) -> None:
    """The habit itself: a run fails, the user fixes it and runs ``--lf``; the report stays whole."""
    _suite(pytester)
    out = _full_report(pytester, whole)
    _, full = _rows(out)
    monkeypatch.setenv("TOY_FAIL", "1")
    pytester.runpytest("--claims-report-dir", str(out)).assert_outcomes(passed=8, failed=1, skipped=1)
    monkeypatch.delenv("TOY_FAIL")
    pytester.runpytest("--claims-report-dir", str(out), "--lf").assert_outcomes(passed=1)
    data, rows = _rows(out)
    assert set(rows) == set(full) and data["measured_this_run"] == 1
    assert rows["more.gate"]["verdict"] == "holds" and rows["more.gate"]["run"] == data["latest_run"]


def test_a_stale_row_is_still_dropped(pytester: pytest.Pytester, whole: Path) -> None:
    """Reading declarations instead of collected items still drops a row its file no longer declares, even when the
    run collected only another test of that file."""
    _suite(pytester)
    out = _full_report(pytester, whole)
    pytester.makepyfile(test_toy=CLAIMS.replace('id="toy.skipped"', 'id="toy.renamed"'))
    pytester.runpytest("--claims-report-dir", str(out), "test_toy.py::test_holds")
    _, rows = _rows(out)
    assert "toy.skipped" not in rows and "toy.renamed" not in rows and "more.gate" in rows


def test_a_catalogue_is_whole_or_refused(pytester: pytest.Pytester) -> None:
    _suite(pytester)
    out = pytester.path / "report"
    result = pytester.runpytest("--claims-catalogue", "--claims-report-dir", str(out))
    result.stdout.fnmatch_lines(["claims catalogue: 9 rows written to *CATALOGUE.md"])
    assert result.ret == pytest.ExitCode.OK and "<Module" not in result.stdout.str()  # its line, not pytest's tree
    whole = {p.name: p.read_bytes() for p in out.glob("CATALOGUE*.md")}
    for args in (["-k", "toy.holds"], ["-m", "quick"], ["--deselect", "test_toy.py::test_holds"]):  # every file
        result = pytester.runpytest("--claims-catalogue", "--claims-report-dir", str(out), *args)
        result.stdout.fnmatch_lines(["claims catalogue: 9 rows written to *CATALOGUE.md"])
        assert {p.name: p.read_bytes() for p in out.glob("CATALOGUE*.md")} == whole, args
    _set_cache(pytester, LASTFAILED)
    for args in (["sub"], ["test_toy.py::test_holds"], ["--lf"], ["--ignore", "sub"]):
        result = pytester.runpytest("--claims-catalogue", "--claims-report-dir", str(out), *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        result.stderr.fnmatch_lines(["*--claims-catalogue: this selection leaves out 1 test file the catalogue in *"
                                     "lists (*test_*.py); a catalogue is written from the whole suite*"])
        assert {p.name: p.read_bytes() for p in out.glob("CATALOGUE*.md")} == whole
