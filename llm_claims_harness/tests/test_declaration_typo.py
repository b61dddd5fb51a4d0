"""A misspelt ``@claim`` keyword (issue 41): the collection error names the line of the offending argument, not the
decorator's first line, and the closest keyword; ``--continue-on-collection-errors`` lets the rest of a ``-k`` run
go on."""

from __future__ import annotations

import pytest

from harness_toy import CONFTEST

BAD = '''from llm_claims_harness.declare import claim, exact

@claim(
    id="toy.typo",
    source="test", kind="control", expect_source="design", statement="two",
    post_vale=2,
    tolerance=exact(reason="integers"),
)
def test_typo(verify):
    verify(2)
'''
GOOD = '''from llm_claims_harness.declare import claim, exact

@claim(id="toy.good", source="test", kind="control", expect_source="design", statement="two", post_value=2,
       tolerance=exact(reason="integers"))
def test_good(verify):
    verify(2)
'''


@pytest.mark.parametrize(("keyword", "hint"), [
    ("post_vale", "did you mean 'post_value'?"),
    ("tolerence", "did you mean 'tolerance'?"),
    ("wibble", "the arguments are id, source, statement, kind, *"),
])
def test_a_misspelt_keyword_names_its_line_and_the_closest_one(pytester: pytest.Pytester, keyword: str,
                                                               hint: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_bad=BAD.replace("post_vale", keyword))
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"E   *ClaimDeclarationError: *test_bad.py:6: claim 'toy.typo': unknown argument "
                                 f"'{keyword}'; {hint}"])
    assert "unexpected keyword argument" not in result.stdout.str()


def test_the_rest_runs_with_continue_on_collection_errors(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_bad=BAD, test_good=GOOD)
    result = pytester.runpytest("-p", "no:cacheprovider", "-k", "toy.good", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
