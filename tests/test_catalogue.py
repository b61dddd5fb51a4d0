"""``pytest --claims-catalogue`` lists every claim from its declaration, and measures nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from toy_posts import TOY_POSTS

# the harness is the plugin of its entry point; the suite's options and device come from fixtures/
SUITE_CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n' + TOY_POSTS

ROOT = Path(__file__).resolve().parents[1]

TOY = '''
from llm_claims_harness.declare import Quote, claim, exact


@claim(id="toy.never_run", source="Post B, 'a section'", kind="post", post="T", section="s",
       expect_source="the post's sentence",
       quote=Quote("토큰 두 개", "two tokens"),
       statement="a claim whose test would fail", post_value=2, unit="tokens", tolerance=exact("integers"))
def test_never_run(verify):
    raise AssertionError("the catalogue must not run claims")
'''


def test_catalogue_lists_without_measuring(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUITE_CONFTEST)
    pytester.makepyfile(test_toy=TOY)
    result = pytester.runpytest("-p", "no:cacheprovider", "--claims-catalogue")
    assert result.ret == 0
    text = (pytester.path / "reports" / "CATALOGUE.md").read_text(encoding="utf-8")
    assert ("| `toy.never_run` | post | § T s: Post B, 'a section': “토큰 두 개” (two tokens) | a claim whose test would "
            "fail | 2 tokens | exact: integers | holds: the post's sentence | 1 |") in text
    assert '- Post T: "A toy post"' in text  # the registry's posts, not this project's
    assert not (pytester.path / "reports" / "results.json").exists()


def test_catalogue_takes_no_path_argument(pytester: pytest.Pytester) -> None:
    """A path after the flag is a test path to collect, never a file to overwrite."""
    pytester.makeconftest(SUITE_CONFTEST)
    target = pytester.makepyfile(test_toy=TOY)
    before = target.read_text(encoding="utf-8")
    assert pytester.runpytest("-p", "no:cacheprovider", "--claims-catalogue", str(target)).ret == 0
    assert target.read_text(encoding="utf-8") == before
    assert (pytester.path / "reports" / "CATALOGUE.md").exists()


def test_catalogue_refuses_xdist(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUITE_CONFTEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--claims-catalogue", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-catalogue only collects; run it without -n*"])


def test_committed_catalogue_is_current(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """reports/CATALOGUE.md says what the declarations say; regenerate with `pytest --claims-catalogue`."""
    fresh = tmp_path / "CATALOGUE.md"
    # in a subprocess: an in-process run would drop the C extensions the claims import (numpy's cannot load twice)
    result = pytester.runpytest_subprocess(str(ROOT / "claims"), "-p", "no:cacheprovider", "--claims-catalogue",
                                           f"--claims-report-dir={tmp_path}")
    assert result.ret == 0
    committed = (ROOT / "reports" / "CATALOGUE.md").read_text(encoding="utf-8")
    assert fresh.read_text(encoding="utf-8") == committed, "reports/CATALOGUE.md is stale: run pytest --claims-catalogue"
