"""The harness's posts registry (llm_claims_harness.posts, the pytest_claims_posts hook), what a row carries to
JUnit XML, and the report files' mode and absence, through pytester."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from harness_toy import CLAIMS, CONFTEST, LOCAL_REPORT

from llm_claims_harness.pages import GENERATED
from llm_claims_harness.posts import Post, PostRegistryError, Registry, Section



def _declared_where(pytester: pytest.Pytester, conftest: str, where: str) -> pytest.RunResult:
    """A run of one claim declared with ``where`` (its post= and section=) under ``conftest``'s registry."""
    pytester.makeconftest(conftest)
    pytester.makepyfile(test_where=f'''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.where", source="test", kind="beyond", expect_source="arithmetic", statement="s", {where},
       tolerance=exact(reason="x"), reference="r")
def test_where(verify):
    verify(1, reference=1)
''')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    return result


@pytest.mark.parametrize(("where", "message"), [
    ('post="Z", section="s"', "post 'Z' is not registered; registered posts: T"),
    ('post="T", section="x"', "post 'T' has no section 'x'; its sections: s, t"),
])
def test_unregistered_post_or_section_is_a_declaration_error(pytester: pytest.Pytester, where: str,
                                                             message: str) -> None:
    result = _declared_where(pytester, CONFTEST, where)
    result.stderr.fnmatch_lines([f"*test_where.py::test_where: ClaimDeclarationError: claim 'toy.where': {message}*"])


NAMED_POSTS = '''
from llm_claims_harness.posts import Post, Section

POST_T = Post("T", "A toy post", (Section("s", "the toy section"),))

POSTS = [POST_T]


def pytest_claims_posts(config):
    return POSTS
'''


@pytest.mark.parametrize(("where", "message"), [
    ('post="Z", section="s"', "post 'Z' is not registered; registered posts: T; to register it, add Post(id='Z', "
                              "title='<the post's title>', sections=(Section('<id>', '<heading>', '<short label>'),)) "
                              "to POSTS in conftest.py:5"),
    ('post="T", section="x"', "post 'T' has no section 'x'; to add it: Section('x', '<the post's heading>', "
                              "'<short label>') in the sections of POST_T in conftest.py:3; its sections: s"),
])
def test_the_error_names_the_file_and_line_to_edit(pytester: pytest.Pytester, where: str, message: str) -> None:
    """A new post or section missing from the registry: the error names the definition to add it to (issue 42)."""
    _declared_where(pytester, NAMED_POSTS, where).stderr.fnmatch_lines([f"*claim 'toy.where': {message}"])


@pytest.mark.parametrize("posts, message", [
    ([Post("A", "a", ())], "sections must be a non-empty tuple"),
    ([Post("A", "a", (Section("s", "x"),)), Post("A", "b", (Section("s", "x"),))], "'A' is registered twice"),
    ([Post("beyond", "a", (Section("s", "x"),))], "'beyond' is taken by a page"),
    ([Post("Unplaced", "a", (Section("s", "x"),))], "'Unplaced' is taken by a page"),
    ([Post("A", "a", (Section("s", "x"), Section("s", "y")))], "section ids repeat"),
    ([Post("A.2", "a", (Section("s", "x"),))], "'A.2' is malformed"),
    ([Post(3, "a", (Section("s", "x"),))], "post id 3 is malformed"),
    ([Post("A", "a", None)], "sections must be a non-empty tuple"),
    ([Post("A", "a", (("s", "x"),))], "is not a Section"),
    (Post("A", "a", (Section("s", "x"),)), "must return a list of Post objects, got Post"),
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
       expect_source="arithmetic", statement="s", tolerance=at_most(1.0, reason="one"))
def test_junit(verify):
    verify(0.5, noise=0.1)

@claim(id="toy.skips", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=at_most(1.0, reason="one"))
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


def test_report_files_get_the_usual_mode(suite: pytest.Pytester) -> None:
    """Atomic writes go through mkstemp (0600); the report is readable like any file the user writes."""
    import os

    suite.runpytest().assert_outcomes(passed=6, skipped=1)
    mask = os.umask(0o022)
    os.umask(mask)
    for name in ("results.json", "CLAIMS.md"):
        assert (suite.path / LOCAL_REPORT / name).stat().st_mode & 0o777 == 0o666 & ~mask


def test_no_report_option(suite: pytest.Pytester) -> None:
    suite.runpytest("--no-claims-report").assert_outcomes(passed=6, skipped=1)
    assert not (suite.path / LOCAL_REPORT).exists()


BROKEN = '''
import math
import pytest
from llm_claims_harness.declare import at_most, claim, exact

@claim(id="toy.nan", source="test", kind="beyond", expect_source="design", statement="s", expect="refuted",
       tolerance=at_most(0.5, reason="a bound"))
def test_nan(verify):
    verify(math.nan)

@claim(id="toy.twice", source="test", kind="beyond", expect_source="design", statement="s", post_value=4.0,
       tolerance=exact(reason="x"))
def test_twice(verify):
    verify(4.0)
    verify(5.0)

@claim(id="toy.after", source="test", kind="beyond", expect_source="design", statement="s", post_value=4.0,
       tolerance=exact(reason="x"))
def test_after(verify):
    verify(4.0)
    raise RuntimeError("the measurement's cleanup failed")
'''


def test_a_broken_measurement_is_an_error_row_never_a_verdict(pytester: pytest.Pytester) -> None:
    """NaN is no value to judge; a test that fails after verify() has no verdict (newcomer's trial of issue 21)."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_broken=BROKEN)
    pytester.runpytest().assert_outcomes(failed=3)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert {rid: r["verdict"] for rid, r in rows.items()} == {"toy.nan": "error", "toy.twice": "error",
                                                              "toy.after": "error"}
    assert "measured value is NaN" in rows["toy.nan"]["reason"]
    assert rows["toy.twice"]["reason"].startswith("the test failed after verify(): ClaimError:")
    assert "cleanup failed" in rows["toy.after"]["reason"] and rows["toy.after"]["measured"] is None


def test_a_tolerance_no_judgement_can_use_is_refused_at_declaration() -> None:
    """The factories never raise where they are called (a module-level constant has no claim to name): they return a
    refused declaration, which the claim declaring it reports, naming itself (test_harness's collection cases), and
    which judges nothing if used alone."""
    from llm_claims_harness.declare import Refused, Tolerance, at_least, at_most, close, exact

    assert at_most("0.5", reason="a bound") == Refused("at_most(): a at_most tolerance needs a finite number as its "
                                                       "bound, got '0.5'")
    assert "atol and rtol must be finite numbers ≥ 0" in close(reason="r", atol=-1.0).why
    assert at_least(1, "x" * 60).why.startswith(f"at_least(1, '{'x' * 39}…') is the old argument order")
    with pytest.raises(ValueError, match="old argument order"):
        exact("r").judge(1, 1)
    for made in (exact(reason="r"), close(atol=1e-3, reason="r"), at_most(1, reason="r"), at_least(1, reason="r")):
        assert isinstance(made, Tolerance) and made.reason == "r"
    with pytest.raises(ValueError, match=r"close\(atol=0.001, rtol=0\) compares numbers, got 'a' against 'a'"):
        close(atol=1e-3, reason="r").judge(["a"], ["a"])
    assert exact(reason="r").judge(["a", 1], ["a", 1]) == (True, None)  # exact compares anything


def test_files_a_person_put_in_the_report_directory_are_kept(suite: pytest.Pytester) -> None:
    reports = suite.path / LOCAL_REPORT
    reports.mkdir(parents=True)
    (reports / "CLAIMS-notes.md").write_text("my notes\n", encoding="utf-8")
    (reports / "CLAIMS-Q.md").write_text(GENERATED + "\n# a page of a post no longer registered\n", encoding="utf-8")
    suite.runpytest().assert_outcomes(passed=6, skipped=1)
    assert (reports / "CLAIMS-notes.md").read_text(encoding="utf-8") == "my notes\n"
    assert not (reports / "CLAIMS-Q.md").exists()  # the harness's own page, no longer written: removed


def test_an_unreadable_previous_report_is_kept_aside(suite: pytest.Pytester) -> None:
    reports = suite.path / LOCAL_REPORT
    reports.mkdir(parents=True)
    (reports / "results.json").write_text('{"claims": [{"id": "x", "extra_field": 1}]}', encoding="utf-8")
    suite.runpytest().assert_outcomes(passed=6, skipped=1)
    assert (reports / "results.json.unreadable").read_text(encoding="utf-8").startswith('{"claims": [{"id": "x"')
    assert "kept as results.json.unreadable" in json.loads((reports / "results.json").read_text())["warning"]


def test_rows_of_a_deleted_test_file_are_dropped(suite: pytest.Pytester) -> None:
    suite.makepyfile(test_other=CLAIMS.replace("toy.", "other."))
    suite.runpytest().assert_outcomes(passed=12, skipped=2)
    (suite.path / "test_other.py").unlink()
    suite.runpytest("-k", "toy.holds").assert_outcomes(passed=1)
    ids = {r["id"] for r in json.loads((suite.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert ids and not any(rid.startswith("other.") for rid in ids)
