"""The harness's posts registry (llm_claims_harness.posts, the pytest_claims_posts hook), what a row carries to
JUnit XML, and the report files' mode and absence, through pytester."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from test_harness import CLAIMS
from toy_posts import TOY_POSTS

from llm_claims_harness.posts import Post, PostRegistryError, Registry, Section

CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n' + TOY_POSTS


@pytest.mark.parametrize(("where", "message"), [
    ('post="Z", section="s"', "post 'Z' is not registered; registered posts: T"),
    ('post="T", section="x"', "post 'T' has no section 'x'; its sections: s, t"),
])
def test_unregistered_post_or_section_is_a_declaration_error(pytester: pytest.Pytester, where: str,
                                                             message: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_where=f'''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.where", source="test", kind="beyond", expect_source="arithmetic", statement="s", {where},
       tolerance=exact("x"))
def test_where(verify):
    verify(1, reference=1)
''')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*test_where.py::test_where: ClaimDeclarationError: claim 'toy.where': {message}*"])


@pytest.mark.parametrize("posts, message", [
    ([Post("A", "a", ())], "sections must be one or more"),
    ([Post("A", "a", (Section("s", "x"),)), Post("A", "b", (Section("s", "x"),))], "malformed, repeated"),
    ([Post("beyond", "a", (Section("s", "x"),))], "'beyond'"),
    ([Post("A", "a", (Section("s", "x"), Section("s", "y")))], "distinct ids"),
    (["A"], "must return Post objects"),
])
def test_a_malformed_registry_is_refused(posts, message: str) -> None:
    with pytest.raises(PostRegistryError, match=message):
        Registry.of(posts)


def test_a_malformed_registry_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('def pytest_claims_posts(config):\n    return ["A"]\n')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pytest_claims_posts: pytest_claims_posts must return Post objects, got str*"])


def test_rows_reach_junit_xml_as_properties(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_junit='''
from llm_claims_harness.declare import Quote, at_most, claim
@claim(id="toy.junit", source="test", kind="post", post="T", section="t", quote=Quote("q", "q"),
       expect_source="arithmetic", statement="s", tolerance=at_most(1.0, "one"))
def test_junit(verify):
    verify(0.5, noise=0.1)

@claim(id="toy.skips", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=at_most(1.0, "one"))
def test_skips(verify):
    import pytest
    pytest.skip("no weights")
''')
    pytester.runpytest("--junitxml=junit.xml").assert_outcomes(passed=1, skipped=1)
    cases = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")}
             for c in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")}
    assert cases["test_junit"]["claim.id"] == "toy.junit" and cases["test_junit"]["claim.verdict"] == "holds"
    assert (cases["test_junit"]["claim.post"], cases["test_junit"]["claim.section"]) == ("T", "t")
    assert cases["test_junit"]["claim.measured"] == "0.5" and cases["test_junit"]["claim.noise_sd"] == "0.1"
    assert cases["test_junit"]["claim.as_expected"] == "true"
    assert cases["test_skips"]["claim.verdict"] == "skipped" and cases["test_skips"]["claim.reason"] == "no weights"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=CLAIMS)
    return pytester


def test_report_files_get_the_usual_mode(suite: pytest.Pytester) -> None:
    """Atomic writes go through mkstemp (0600); the report is readable like any file the user writes."""
    import os

    suite.runpytest().assert_outcomes(passed=5, skipped=1)
    mask = os.umask(0o022)
    os.umask(mask)
    for name in ("results.json", "CLAIMS.md"):
        assert (suite.path / "reports" / name).stat().st_mode & 0o777 == 0o666 & ~mask


def test_no_report_option(suite: pytest.Pytester) -> None:
    suite.runpytest("--no-claims-report").assert_outcomes(passed=5, skipped=1)
    assert not (suite.path / "reports").exists()
