"""A computed reference is declared where the claim is (``reference=`` in words) and given where it is measured
(``verify(x, reference=r)``): a mismatch either way, or a ``close`` with a band given text, is an error row naming
the claim, never a verdict; the page says what a row was compared with."""

from __future__ import annotations

import json

import pytest

from harness_toy import CONFTEST, LOCAL_REPORT

ROWS = '''
from llm_claims_harness.declare import claim, close, exact
@claim(id="toy.computed", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=close(atol=1e-9, reason="float64"), reference="the closed form 2·sin(½)")
def test_computed(verify):
    verify(0.9588510772084060, reference=0.958851077208406)

@claim(id="toy.undeclared", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=1,
       tolerance=exact(reason="integers"))
def test_undeclared(verify):
    verify(1, reference=1)

@claim(id="toy.missing", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=exact(reason="integers"), reference="one")
def test_missing(verify):
    verify(1)

@claim(id="toy.text", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=close(atol=0.5, reason="half"), reference="a word")
def test_text(verify):
    verify("a", reference="a")
'''


def test_a_reference_given_where_none_is_declared_or_missing_is_an_error_row(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rows=ROWS)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=3)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert rows["toy.computed"]["verdict"] == "holds"
    assert rows["toy.computed"]["reference_source"] == "the closed form 2·sin(½)"
    assert {i: rows[i]["verdict"] for i in ("toy.undeclared", "toy.missing", "toy.text")} == dict.fromkeys(
        ("toy.undeclared", "toy.missing", "toy.text"), "error")
    assert "verify() got reference=1, and the declaration says of none: declare reference=" in \
        rows["toy.undeclared"]["reason"]
    assert "declares reference='one' but verify() got none" in rows["toy.missing"]["reason"]
    assert "close(atol=0.5, rtol=0) compares numbers, got 'a' against 'a'" in rows["toy.text"]["reason"]
    page = (pytester.path / LOCAL_REPORT / "CLAIMS-beyond.md").read_text(encoding="utf-8")  # rows of no post
    assert "`|Δ| ≤ 1e-09`: float64 · against the closed form 2·sin(½) · expects holds" in page
