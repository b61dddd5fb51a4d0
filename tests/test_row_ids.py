"""Every row id the report prints is a ``-k`` keyword that selects exactly its row (pytest's own
keyword matching: ``pytest -k 'pe.sin.shift_is_linear_map[k1]'``).

The real suite is collected in a subprocess: an in-process run would drop the C extensions its claims
import from ``sys.modules`` afterwards, and numpy's cannot be loaded twice in one process.
"""

from __future__ import annotations

import json
from pathlib import Path

import child_pytest
import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = '''
import json
from _pytest.mark import KeywordMatcher
from _pytest.mark.expression import Expression
from llm_claims_harness.plugin import row_id

def pytest_collection_finish(session):
    """Evaluate each row id as a -k expression against every collected item, as -k does."""
    matchers = {item.nodeid: KeywordMatcher.from_item(item) for item in session.items}
    rows = {item.nodeid: row_id(item) for item in session.items if item.get_closest_marker("claim")}
    selected = {rid: [n for n, m in matchers.items() if Expression.compile(rid).evaluate(m)]
                for rid in rows.values()}
    with open("selection.json", "w") as fh:
        json.dump({"rows": rows, "selected": selected}, fh)
'''


def test_each_row_id_selects_exactly_its_row(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(rowid_probe=PROBE)
    pytester.syspathinsert()
    result = child_pytest.runpytest(pytester, str(ROOT / "claims"), "--collect-only", "-q", "-p", "rowid_probe",
                                              "-p", "no:cacheprovider", "--no-claims-report")
    assert result.ret == 0, result.stderr.str()
    probe = json.loads((pytester.path / "selection.json").read_text(encoding="utf-8"))
    assert len(probe["rows"]) > 100
    wrong = {rid: probe["selected"][rid] for nodeid, rid in probe["rows"].items()
             if probe["selected"][rid] != [nodeid]}
    assert not wrong


def test_k_selects_rows_copied_from_the_report(pytester: pytest.Pytester) -> None:
    """Two row ids joined by ``or``, as a user copies them from the report: exactly those rows, and ``[k1]``
    does not select ``[k10]`` (one run of pytest checks both)."""
    expression = "pe.sin.shift_is_linear_map[k1] or pe.sin.shift_is_linear_map[k3]"
    result = child_pytest.runpytest(pytester, str(ROOT / "claims" / "test_sinusoidal.py"), "--collect-only", "-q",
                                              "-k", expression, "-p", "no:cacheprovider", "--no-claims-report")
    assert [line.split("::")[-1] for line in result.outlines if "::" in line] == [
        "test_shift_is_linear_map[k1]", "test_shift_is_linear_map[k3]"]  # not [k10], [k30]
