"""Selecting by post (issue 42 item 5): ``--claims-post ID`` runs exactly that post's rows (its claims and literal
readings; other posts' rows, rows of no registered post, plain tests: deselected), an unregistered id is a usage error naming
the registered ones, and ``--claims-list`` prints one line per selected row (id, post, kind, the last report's verdict)
instead of pytest's collection tree."""

from __future__ import annotations

import json

import pytest

from harness_toy import LOCAL_REPORT

POSTS = '''
from llm_claims_harness.posts import Post, Section

def pytest_claims_posts(config):
    return [Post("T", "A toy post", (Section("s", "its section"),)),
            Post("U", "Another toy post", (Section("u", "its section"),))]
'''
CLAIMS = '''
from llm_claims_harness.declare import Case, Quote, claim, exact
Q = Quote("하나", "one")

@claim(id="t.one", source="test", kind="post", post="T", section="s", quote=Q, expect_source="arithmetic",
       statement="one", post_value=1, tolerance=exact(reason="integers"))
def test_t_one(verify):
    verify(1)

@claim(id="u.cases", source="test", kind="post", post="U", section="u", quote=Q, expect_source="arithmetic",
       statement="small", post_value=1, tolerance=exact(reason="integers"),
       cases={"a": Case(), "b": Case(kind="literal", expect="refuted", expect_source="the words, strictly",
                                     post_value=2)})
def test_u_cases(verify, case):
    verify(1)

@claim(id="control.two", source="test", kind="control", expect_source="design", statement="two", post_value=2,
       tolerance=exact(reason="integers"))
def test_control(verify):
    verify(2)

def test_plain():
    assert True
'''


@pytest.fixture
def two_posts(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(POSTS)
    pytester.makepyfile(test_posts=CLAIMS)
    return pytester


def _measured(pytester: pytest.Pytester) -> list[str]:
    data = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    return sorted(r["id"] for r in data["claims"] if r["run"] == data["latest_run"])


def test_one_post_runs_exactly_its_rows(two_posts: pytest.Pytester) -> None:
    result = two_posts.runpytest("-p", "no:cacheprovider", "--claims-post", "U")
    result.assert_outcomes(passed=2, deselected=3)
    assert _measured(two_posts) == ["u.cases[a]", "u.cases[b]"]
    two_posts.runpytest("-p", "no:cacheprovider", "--claims-post", "T", "--claims-post", "U").assert_outcomes(
        passed=3, deselected=2)


def test_an_unknown_post_is_a_usage_error(two_posts: pytest.Pytester) -> None:
    result = two_posts.runpytest("-p", "no:cacheprovider", "--claims-post", "V")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --claims-post V: no such post; the suite's posts are T, U"])


def test_the_listing_prints_one_line_per_row(two_posts: pytest.Pytester) -> None:
    before = two_posts.runpytest("-p", "no:cacheprovider", "--claims-list")
    assert before.ret == pytest.ExitCode.OK
    before.stdout.fnmatch_lines(["t.one *T *post *not measured", "u.cases[[]a] *U *post *not measured",
                                 "u.cases[[]b] *U *literal *not measured", "control.two *- *control *not measured",
                                 "claims: 4 rows listed (verdicts from no report)"])
    assert "<Module" not in before.stdout.str() and not (two_posts.path / LOCAL_REPORT).exists()
    two_posts.runpytest("-p", "no:cacheprovider")
    after = two_posts.runpytest("-p", "no:cacheprovider", "--claims-list", "--claims-post", "U", "-k", "cases")
    after.stdout.fnmatch_lines(["u.cases[[]a] *U *post *holds", "u.cases[[]b] *U *literal *refuted",
                                "claims: 2 rows listed (verdicts from *results.json)"])
    assert "t.one" not in after.stdout.str()
