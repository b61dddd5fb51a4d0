"""A ``-k`` naming a claim row this version does not have (an id copied from an older report, a case since renamed)
says which rows exist under its prefix and quotes the version notes that mention it (issue 32), serial and under
xdist; the exit status stays pytest's (5: nothing selected)."""

from __future__ import annotations

import pytest

from harness_toy import needs_xdist
from llm_claims_harness.selection import claim_tokens, unmatched_hints

RENAMED = '''
@claim(id="toy.renamed", source="test", kind="control", expect_source="design", statement="a renamed case",
       tolerance=exact(reason="integers"), cases={"new": Case(post_value=1)}, version=2,
       version_note="v2: the case old is now new, measured the same way")
@pytest.mark.parametrize("x", [pytest.param(1, id="new")])
def test_renamed(verify, x):
    verify(x)
'''
DECLARED = {"toy.cases[a]": "", "toy.cases[b]": "", "toy.holds": "", "toy.renamed[new]": "v2: the case old is now new"}


def test_claim_tokens_are_the_dotted_identifiers() -> None:
    assert claim_tokens("(toy.cases[a] or toy.holds) and not slow") == ["toy.cases[a]", "toy.holds"]
    assert claim_tokens("test_plain") == []


@pytest.mark.parametrize("expression, expected", [
    ("toy.cases[a]", []),  # a row that exists: no hint
    ("TOY.HOLDS", []),  # -k matches case-insensitively
    ("toy.cases", []),  # a prefix of rows that exist selects them
    ("toy.cases[z]", ["-k 'toy.cases[z]' matches no claim row of this version; closest: toy.cases[b], toy.cases[a]; "
                      "rows that exist under 'toy.cases': toy.cases[a], toy.cases[b]"]),
    ("toy.renamed[old]", ["-k 'toy.renamed[old]' matches no claim row of this version; rows that exist under "
                          "'toy.renamed': toy.renamed[new]", "  toy.renamed: v2: the case old is now new"]),
    ("toy.holdz or toy.cases[a]", ["-k 'toy.holdz' matches no claim row of this version; closest: toy.holds; rows "
                                   "that exist under 'toy.hold': toy.holds"]),
    ("toy.x", ["-k 'toy.x' matches no claim row of this version; rows that exist under 'toy.': toy.cases[a], "
               "toy.cases[b], toy.holds, toy.renamed[new]"]),
    ("other.thing", ["-k 'other.thing' matches no claim row of this version; no row of this version shares its "
                     "first name"]),
], ids=["exists", "case-insensitive", "prefix", "unknown-case", "renamed-case", "one-of-two", "first-name", "unknown-claim"])
def test_unmatched_hints(expression: str, expected: list[str]) -> None:
    assert unmatched_hints(expression, DECLARED) == expected


@pytest.mark.parametrize("workers", [[], pytest.param(["-n", "2"], marks=needs_xdist)], ids=["serial", "xdist"])
def test_a_stale_id_says_what_exists(suite: pytest.Pytester, workers: list[str]) -> None:
    suite.makepyfile(test_toy=(suite.path / "test_toy.py").read_text(encoding="utf-8") + RENAMED)
    result = suite.runpytest("-k", "toy.renamed[old]", "-p", "no:randomly", *workers)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(["*= claims =*",
                                 "-k 'toy.renamed[[]old]' matches no claim row of this version; rows that exist "
                                 "under 'toy.renamed': toy.renamed[[]new]",
                                 "  toy.renamed: v2: the case old is now new, measured the same way"])
