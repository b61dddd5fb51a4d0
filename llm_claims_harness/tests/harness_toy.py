"""The throwaway suite the harness's own tests run through ``pytester``: ``CONFTEST``, a toy post registry (one post,
``T``, with sections ``s`` and ``t``, through the harness's ``pytest_claims_posts`` hook) and nothing else, so it runs
where only pytest and the harness are installed; and ``CLAIMS``, toy claims of every outcome (held, refuted as
designed, cases, a literal reading refuted as expected, skipped) beside a plain test. The ``suite`` fixture of this
folder's ``conftest.py`` writes both into a pytester directory; this repository's ``tests/toy_suite.py`` adds its
suite's own fixtures to the same toy."""

import importlib.util
from pathlib import Path

import pytest

# where a run that names no --claims-report-dir writes its report, under the rootdir (the committed reports/ only
# under --claims-regenerate)
LOCAL_REPORT = Path(".claims", "report")

# pytest-xdist is no requirement of the harness: the tests of its runs under -n skip where it is not installed
needs_xdist = pytest.mark.skipif(importlib.util.find_spec("xdist") is None,
                                 reason="pytest-xdist is not installed (the harness does not need it)")

TOY_POSTS = '''
from llm_claims_harness.posts import Post, Section

def pytest_claims_posts(config):
    return [Post("T", "A toy post", (Section("s", "the toy section"), Section("t", "a later section")))]
'''

# the harness itself comes by its entry point
CONFTEST = TOY_POSTS

CLAIMS = '''
"""Toy claims for the harness tests."""
import pytest
from llm_claims_harness.declare import Case, Quote, at_most, claim, close, exact
Q = Quote("1 더하기 1은 2", "one plus one is two")

@claim(id="toy.holds", source="test", kind="post", post="T", section="s", quote=Q, expect_source="arithmetic", statement="1 + 1 is 2", post_value=2,
       tolerance=exact(reason="integers"))
def test_holds(verify):
    verify(1 + 1)

@claim(id="toy.refuted_as_expected", source="test", kind="control", expect_source="design", statement="pi is 3",
       post_value=3.0, tolerance=close(reason="a tight bound", atol=1e-3), expect="refuted")
def test_refuted(verify):
    verify(3.14159)

@claim(id="toy.cases", source="test", kind="post", post="T", section="s", quote=Q, expect_source="arithmetic", statement="small numbers",
       tolerance=at_most(1.0, reason="one"),
       cases={"a": Case(post_value=0.5), "b": Case(tolerance=at_most(10.0, reason="ten")),
              "c": Case(kind="literal", expect="refuted", expect_source="the words taken literally: at most one")})
@pytest.mark.parametrize("x", [pytest.param(0.5, id="a"), pytest.param(5.0, id="b"), pytest.param(5.0, id="c")])
def test_cases(verify, x):
    verify(x)

@claim(id="toy.skipped", source="test", kind="post", post="T", section="s", quote=Q, expect_source="arithmetic", statement="needs weights", post_value=1, tolerance=exact(reason="n/a"))
def test_skipped(verify):
    pytest.skip("weights not found: set TOY_DIR")

def test_plain():
    assert True
'''
