"""Claim modules run with a planted bug: the runner of the mutation tests (``tests/test_*_catch_bugs.py``).

A mutation test copies the claim modules a bug concerns into a ``pytester`` directory, plants the bug (Python source,
run at the end of a copy of the suite's conftest), runs pytest there in a child process (:mod:`child_pytest`) and
reads the report that run writes. The claims' shared helpers (``claims/*_common.py``) are not copied: the modules
import them as ``claims.<helper>`` from the repository root, which the child has on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Mapping
from pathlib import Path

import child_pytest
import pytest

from harness_toy import LOCAL_REPORT

ROOT = Path(__file__).resolve().parents[1]


def run_with_bug(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, modules: list[str], patch: str,
                 *args: str) -> tuple[pytest.RunResult, dict[str, dict]]:
    """Run the claim ``modules`` (file names in ``claims/``) with ``patch`` planted, passing ``args`` to pytest: the
    subprocess's result and the rows of the report it wrote, by id (none when it wrote no report)."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    for name in modules:
        shutil.copy(ROOT / "claims" / name, pytester.path / name)
    conftest = (ROOT / "conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(conftest + "\n# --- planted bug ---\n" + textwrap.dedent(patch))
    report = pytester.path / LOCAL_REPORT / "results.json"
    report.unlink(missing_ok=True)  # a second run in one directory must not read the first one's rows
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", *args)
    rows = json.loads(report.read_text(encoding="utf-8"))["claims"] if report.exists() else []
    return result, {r["id"]: r for r in rows}


ERROR, JUDGED = "error", "judged"  # how a planted bug shows in a row: stopped (a run check, a control) or a verdict


def broken(rows: dict[str, dict]) -> set[str]:
    """The ids of the rows whose verdict is not the declared expectation."""
    return {rid for rid, r in rows.items() if r["as_expected"] is False}


def broken_as(rows: dict[str, dict]) -> dict[str, str]:
    """:func:`broken`'s rows, each with how the bug shows in it: :data:`ERROR` (the row stopped: its run check, a
    control, or a shape the bug broke) or :data:`JUDGED` (a verdict other than the declared one)."""
    return {rid: ERROR if rows[rid]["verdict"] == "error" else JUDGED for rid in broken(rows)}


def kinds(expected: set[str] | Mapping[str, str]) -> dict[str, str]:
    """A mutation's broken rows as ``{row: ERROR or JUDGED}``: a set means every row JUDGED."""
    return dict.fromkeys(expected, JUDGED) if isinstance(expected, (set, frozenset)) else dict(expected)


def assert_breaks(result: pytest.RunResult, rows: dict[str, dict], expected: set[str] | Mapping[str, str]) -> None:
    """The planted bug's run failed and exactly the ``expected`` rows are not as expected, each as the bug is meant
    to show in it (``{row: ERROR or JUDGED}``; a set: every row JUDGED). A bug meant to be judged that crashes its
    row instead, or one meant to be stopped that gets a verdict, would pass for the wrong reason."""
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    assert broken_as(rows) == kinds(expected), f"the planted bug shows as {broken_as(rows)}, expected {kinds(expected)}"
