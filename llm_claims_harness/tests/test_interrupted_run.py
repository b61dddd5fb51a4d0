"""An interrupted run says so (issue 32, item 6): a run ended by Ctrl-C (``KeyboardInterrupt``, pytest's exit status
``INTERRUPTED``), by ``pytest.exit``, or told to stop (``-x``, a plugin's ``session.shouldstop``) still writes the
rows it measured, and its environment in ``results.json`` (``interrupted``: why), its entry in the index and every
page that holds its rows say that it was interrupted; a row carried into a later report stays marked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_toy import TOY_POSTS

CLAIMS = '''
"""Rows before and after a stop."""
import pytest
from llm_claims_harness.declare import Quote, claim, exact

@claim(id="stop.before", source="test", kind="post", post="T", section="s", quote=Quote("하나", "one"),
       expect_source="arithmetic", statement="one is one", post_value=1, tolerance=exact(reason="integers"))
def test_before(verify):
    verify(1)

def test_stop(request):
    how = request.config.getoption("--stop")
    if how == "ctrl-c":
        raise KeyboardInterrupt
    if how == "exit":
        pytest.exit("enough for today")
    if how == "fail":
        pytest.fail("a plain failure")
    if how == "shouldstop":
        request.session.shouldstop = "a plugin stopped the session"

@claim(id="stop.after", source="test", kind="control", expect_source="design", statement="two is two",
       post_value=2, tolerance=exact(reason="integers"))
def test_after(verify):
    verify(2)
'''

OPTION = '''
def pytest_addoption(parser):
    parser.addoption("--stop", default="")
'''


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict, Path]:
    out = pytester.path / "report"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--claims-report-dir={out}", *args)
    return result, json.loads((out / "results.json").read_text(encoding="utf-8")), out


@pytest.fixture
def stopping(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(TOY_POSTS + OPTION)
    pytester.makepyfile(test_stop=CLAIMS)
    return pytester


@pytest.mark.parametrize(("how", "args", "status", "why"), [
    ("ctrl-c", (), pytest.ExitCode.INTERRUPTED, "KeyboardInterrupt"),
    ("exit", (), pytest.ExitCode.INTERRUPTED, "Exit: enough for today"),
    ("fail", ("-x",), pytest.ExitCode.TESTS_FAILED, "the session was told to stop: stopping after 1 failures"),
    # pytest ends the session on shouldstop by raising its Interrupted (a KeyboardInterrupt)
    ("shouldstop", (), pytest.ExitCode.INTERRUPTED, "Interrupted: a plugin stopped the session"),
])
def test_an_interrupted_run_says_so(stopping: pytest.Pytester, how: str, args: tuple, status: int, why: str) -> None:
    result, data, out = _run(stopping, f"--stop={how}", *args)
    assert result.ret == status, result.stdout.str()[-2000:]
    assert [r["id"] for r in data["claims"]] == ["stop.before"]  # the row measured before the stop is kept
    assert data["runs"][data["latest_run"]]["interrupted"] == why
    index = (out / "CLAIMS.md").read_text(encoding="utf-8")
    assert f"  - ⚠ **interrupted** ({why}): the run ended before measuring all it selected" in index
    page = (out / "CLAIMS-T.md").read_text(encoding="utf-8")
    assert "(1 row, from an interrupted run)" in page


def test_a_complete_run_is_not_marked_and_a_carried_row_stays_marked(stopping: pytest.Pytester) -> None:
    _run(stopping, "--stop=ctrl-c")
    result, data, out = _run(stopping, "-k", "after")  # measures stop.after only; stop.before is carried
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    runs = {r["id"]: data["runs"][r["run"]]["interrupted"] for r in data["claims"]}
    assert runs == {"stop.before": "KeyboardInterrupt", "stop.after": ""}
    index = (out / "CLAIMS.md").read_text(encoding="utf-8")
    assert index.count("⚠ **interrupted**") == 1
    assert "(1 row, from an interrupted run)" in (out / "CLAIMS-T.md").read_text(encoding="utf-8")
    assert "interrupted" not in (out / "CLAIMS-beyond.md").read_text(encoding="utf-8")
