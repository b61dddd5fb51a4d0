"""The expectation ledger: every row carries the expectation registered before measuring; a revised one (a finding
of the suite, or a regression check of a fixed input) is marked, explained and counted apart (issue 18)."""

from __future__ import annotations

import json

import pytest
from harness_toy import CONFTEST, LOCAL_REPORT



def _rows(pytester: pytest.Pytester) -> dict[str, dict]:
    data = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    return {r["id"]: r for r in data["claims"]}


def test_expectation_ledger(pytester: pytest.Pytester) -> None:
    """Every row carries its pre-registered expectation; a revised one is marked, explained and counted apart."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy_ledger='''
from llm_claims_harness.declare import NO_PREDICTION, Quote, Revision, claim, exact
@claim(id="toy.kept", source="test", kind="post", post="T", section="s", quote=Quote("문장", "a sentence"), expect_source="the post", statement="s", tolerance=exact(reason="x"), reference="1")
def test_kept(verify):
    verify(1, reference=1)
@claim(id="toy.revised", source="test", kind="beyond", expect_source="finding", statement="s", tolerance=exact(reason="x"), reference="1",
       expect="refuted", revised=Revision("holds", "a paper", "seeds 1-20 all fail", "calibration/x.json", "abc123"))
def test_revised(verify):
    verify(2, reference=1)
@claim(id="toy.pinned", source="test", kind="beyond", expect_source="regression", statement="s", tolerance=exact(reason="x"), reference="1",
       revised=Revision(NO_PREDICTION, "nothing predicts it", "a fixed file gave it", "reports/results.json", "f00"))
def test_pinned(verify):
    verify(1, reference=1)
''')
    result = pytester.runpytest()
    result.assert_outcomes(passed=3)
    rows = _rows(pytester)
    assert rows["toy.kept"]["preregistered_expect"] == "holds" and rows["toy.kept"]["revision"] is None
    assert rows["toy.kept"]["preregistered_source"] == "the post"
    assert rows["toy.revised"]["preregistered_expect"] == "holds"
    assert rows["toy.revised"]["revision"] == {"preregistered": "holds", "source": "a paper",
                                              "why": "seeds 1-20 all fail", "evidence": "calibration/x.json",
                                              "code": "abc123"}
    assert rows["toy.pinned"]["preregistered_expect"] == "none"
    text = (pytester.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")
    assert "✎ 2 expectations set after an earlier measurement (findings of the suite" in text
    # the headline says which decided verdict is not the prediction registered before measuring, not only the ✎ list
    assert ("every decided verdict matches its declared expectation; **1 prediction registered before measuring "
            "failed** and its expectation was revised after (✎): [toy.revised](") in text
    result.stdout.fnmatch_lines(["✎ rows whose expectation was set after an earlier measurement*not changes made by "
                                 "this run): toy.pinned (regression check: holds), toy.revised (registered holds, "
                                 "revised to refuted)"])
    assert "- beyond the posts: ✎ on expectations set after measuring: 1 holds, 1 refuted" in text
    assert "- the posts' claims: 1 confirmed" in text
    pages = "".join(p.read_text(encoding="utf-8") for p in (pytester.path / LOCAL_REPORT).glob("CLAIMS-*.md"))
    assert sum(line.count("✎") for line in pages.splitlines() if line.startswith("| ") and "r-toy-" in line) == 2


def test_a_revised_row_that_errors_is_not_listed_as_its_expectation(pytester: pytest.Pytester) -> None:
    """The ✎ list names each revised row's expectation; one whose run gave another verdict (here an error) says
    so, so that the expectation is not read as its result."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy_broken='''
from llm_claims_harness.declare import NO_PREDICTION, Revision, claim, exact
@claim(id="toy.pinned", source="test", kind="beyond", expect_source="regression", statement="s",
       tolerance=exact(reason="x"), reference="1", expect="refuted",
       revised=Revision(NO_PREDICTION, "nothing predicts it", "a fixed file gave it", "reports/results.json", "f00"))
def test_pinned(verify):
    raise RuntimeError("input missing")
''')
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["✎ rows whose expectation was set after an earlier measurement*: toy.pinned "
                                 "(regression check: refuted; measured: error)"])
