"""Every row id the report prints is a ``-k`` keyword that selects exactly its row (pytest's own
keyword matching: ``pytest -k 'pe.sin.shift_is_linear_map[k1]'``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.mark import KeywordMatcher
from _pytest.mark.expression import Expression

from fixtures.harness import row_id

ROOT = Path(__file__).resolve().parents[1]


def test_each_row_id_selects_exactly_its_row(pytester: pytest.Pytester) -> None:
    items, _ = pytester.inline_genitems(str(ROOT / "claims"), "-p", "no:cacheprovider", "--no-claims-report")
    rows = {item.nodeid: row_id(item) for item in items if item.get_closest_marker("claim")}
    assert len(rows) > 100
    matchers = {item.nodeid: KeywordMatcher.from_item(item) for item in items}
    wrong = {}
    for nodeid, rid in rows.items():
        expr = Expression.compile(rid)
        selected = [n for n, m in matchers.items() if expr.evaluate(m)]
        if selected != [nodeid]:
            wrong[rid] = selected
    assert not wrong


@pytest.mark.parametrize("expression, selected", [
    ("pe.sin.shift_is_linear_map[k1]", ["test_shift_is_linear_map[k1]"]),  # not [k10]
    ("pe.sin.shift_is_linear_map[k1] or pe.sin.shift_is_linear_map[k10]",
     ["test_shift_is_linear_map[k1]", "test_shift_is_linear_map[k10]"]),
])
def test_k_selects_a_row_copied_from_the_report(pytester: pytest.Pytester, expression: str,
                                                selected: list[str]) -> None:
    result = pytester.runpytest(str(ROOT / "claims" / "test_sinusoidal.py"), "--collect-only", "-q",
                                "-k", expression, "-p", "no:cacheprovider", "--no-claims-report")
    assert [line.split("::")[-1] for line in result.outlines if "::" in line] == selected
