"""A case may name its own section of the claim's post (``Case(section=...)``): one claim's sentences can sit in
two sections of one post (a sentence in the prose and the code that says it again, issue 30). The section is
checked against the registry like the claim's, and reaches the row."""

from __future__ import annotations

import json

import pytest
from harness_toy import CONFTEST, LOCAL_REPORT

from llm_claims_harness.declare import Case, ClaimDeclarationError, Quote, claim, exact

CLAIM = '''
import pytest
from llm_claims_harness.declare import Case, Quote, claim, exact
Q = Quote("1 더하기 1은 2", "one plus one is two")

@claim(id="toy.sections", source="test", kind="post", post="T", section="s", quote=Q, expect_source="arithmetic",
       statement="two sentences", tolerance=exact(reason="integers"), reference="2",
       cases={"first": Case(), "second": Case(section="{section}")})
def test_sections(verify, case):
    verify(2, reference=2)
'''


def test_a_case_s_section_reaches_its_row(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_sections=CLAIM.replace("{section}", "t"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    assert {r["id"]: r["section"] for r in rows} == {"toy.sections[first]": "s", "toy.sections[second]": "t"}


def test_a_case_s_unknown_section_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_sections=CLAIM.replace("{section}", "x"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*claim 'toy.sections': post 'T' has no section 'x'; its sections: s, t*"])


def test_a_case_section_needs_the_claim_s_post() -> None:
    with pytest.raises(ClaimDeclarationError, match="the claim names no post"):
        claim(id="toy.orphan", source="test", kind="beyond", expect_source="arithmetic", statement="s",
              tolerance=exact(reason="x"), cases={"a": Case(section="s")})
    with pytest.raises(ClaimDeclarationError, match="section must be a registered section id"):
        claim(id="toy.blank", source="test", kind="post", post="T", section="s", statement="s", expect_source="a",
              quote=Quote("q", "g"), tolerance=exact(reason="x"), cases={"a": Case(section=" ")})
