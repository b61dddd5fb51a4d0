"""How the report prints a number (``report.show``): four significant digits, more only where four would misstate
the value: a number that is not whole never reads as a whole one, and a measured value never reads as its bound
unless it is that bound."""

from __future__ import annotations

import pytest

from llm_claims_harness.report import show


@pytest.mark.parametrize(("value", "bound", "text"), [
    (0.99995, 0.99, "0.99995"),  # the case: "1" beside "≥ 0.99" read as a perfect score
    (99.996, None, "99.996"),
    (1.0, None, "1"),
    (100.0, 95.0, "100"),
    (0.123456, 0.12, "0.1235"),  # four digits already tell it from the bound
    (0.0100004, 0.01, "0.0100004"),  # "0.01" beside "≤ 0.01" would read as holding; it is refuted
    (0.01, 0.01, "0.01"),
    (2.5e6, None, "2.50e+06"),
    ([0.99995, 2, "a"], None, "[0.99995, 2, a]"),
])
def test_a_number_is_never_shown_as_what_it_is_not(value, bound, text) -> None:
    assert show(value, apart_from=bound) == text

