"""The mutation tests' check of how a planted bug shows (:func:`planted.assert_breaks`): a bug meant to be judged that
crashes its row instead, or one meant to be stopped that gets a verdict, fails it (issue 43's review: a plant that
errored its row passed as if it had refuted it)."""

from __future__ import annotations

import types

import pytest
from planted import ERROR, JUDGED, assert_breaks, broken_as

FAILED = types.SimpleNamespace(ret=pytest.ExitCode.TESTS_FAILED, stdout=types.SimpleNamespace(str=lambda: ""))
ROWS = {"a": {"verdict": "refuted", "as_expected": False}, "b": {"verdict": "error", "as_expected": False},
        "c": {"verdict": "holds", "as_expected": True}}


def test_each_broken_row_shows_as_stopped_or_judged() -> None:
    assert broken_as(ROWS) == {"a": JUDGED, "b": ERROR}
    assert_breaks(FAILED, ROWS, {"a": JUDGED, "b": ERROR})


@pytest.mark.parametrize("expected", [{"a", "b"}, {"a": ERROR, "b": ERROR}, {"a": JUDGED, "b": JUDGED}, {"a": JUDGED}])
def test_a_row_that_shows_otherwise_fails_the_check(expected) -> None:
    with pytest.raises(AssertionError, match="the planted bug shows as"):
        assert_breaks(FAILED, ROWS, expected)
