"""``pytest --claims-catalogue`` lists every claim from its declaration, and measures nothing."""

from __future__ import annotations

from pathlib import Path

import child_pytest
import pytest

from harness_toy import LOCAL_REPORT
from toy_suite import CONFTEST

from llm_claims_harness import catalogue
from llm_claims_harness.markdown import BUDGET

# the harness is the plugin of its entry point; the suite's options and device come from fixtures/
SUITE_CONFTEST = CONFTEST

ROOT = Path(__file__).resolve().parents[1]

TOY = '''
from llm_claims_harness.declare import Quote, claim, exact


@claim(id="toy.never_run", source="Post B, 'a section'", kind="post", post="T", section="s",
       expect_source="the post's sentence",
       quote=Quote("토큰 두 개", "two tokens"),
       statement="a claim whose test would fail", post_value=2, unit="tokens", tolerance=exact(reason="integers"))
def test_never_run(verify):
    raise AssertionError("the catalogue must not run claims")
'''


def test_catalogue_lists_without_measuring(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUITE_CONFTEST)
    pytester.makepyfile(test_toy=TOY)
    result = pytester.runpytest("-p", "no:cacheprovider", "--claims-catalogue")
    assert result.ret == 0
    text = "".join(p.read_text(encoding="utf-8") for p in sorted((pytester.path / LOCAL_REPORT).glob("CATALOGUE*.md")))
    assert ("| `toy.never_run` | post | § T s: Post B, 'a section': “토큰 두 개” (two tokens) | a claim whose test would "
            "fail | 2 tokens | exact: integers | holds: the post's sentence | 1 |") in text
    assert '- Post T: "A toy post"' in text  # the registry's posts, not this project's
    assert not (pytester.path / LOCAL_REPORT / "results.json").exists()


def test_catalogue_takes_no_path_argument(pytester: pytest.Pytester) -> None:
    """A path after the flag is a test path to collect, never a file to overwrite."""
    pytester.makeconftest(SUITE_CONFTEST)
    target = pytester.makepyfile(test_toy=TOY)
    before = target.read_text(encoding="utf-8")
    assert pytester.runpytest("-p", "no:cacheprovider", "--claims-catalogue", str(target)).ret == 0
    assert target.read_text(encoding="utf-8") == before
    assert (pytester.path / LOCAL_REPORT / "CATALOGUE.md").exists() and (pytester.path / LOCAL_REPORT / "CATALOGUE-1.md").exists()


def test_catalogue_refuses_xdist(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SUITE_CONFTEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--claims-catalogue", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-catalogue only collects; run it without -n*"])


def test_committed_catalogue_is_current(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """reports/CATALOGUE*.md say what the declarations say, every page within its budget; regenerate with
    `pytest --claims-catalogue --claims-regenerate`."""
    # in a subprocess: an in-process run would drop the C extensions the claims import (numpy's cannot load twice)
    result = child_pytest.runpytest(pytester, str(ROOT / "claims"), "-p", "no:cacheprovider", "--claims-catalogue",
                                              f"--claims-report-dir={tmp_path}")
    assert result.ret == 0
    fresh = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("CATALOGUE*.md")}
    committed = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "reports").glob("CATALOGUE*.md")}
    assert fresh == committed, "reports/CATALOGUE*.md are stale: run pytest --claims-catalogue --claims-regenerate"
    assert all(len(text.encode("utf-8")) <= BUDGET for text in fresh.values())


def test_catalogue_pages_pack_files_within_the_budget() -> None:
    from llm_claims_harness.posts import Post, Registry, Section
    from llm_claims_harness.row import Declared
    from llm_claims_harness.tolerance import exact

    def declared(i: int) -> Declared:
        return Declared(id=f"toy.c{i}", claim_id=f"toy.c{i}", case=None, post="T", section="s", kind="post",
                        source="s", statement="a long statement " * 20, post_value=1, unit="",
                        tolerance=exact(reason="r"), expected_verdict="holds", expect_source="e", preregistered_expect="holds",
                        preregistered_source="e", revision=None, quote=None, version=1, version_note="",
                        deviation="")

    registry = Registry.of([Post("T", "A toy post", (Section("s", "s"),))])
    rows = [(declared(i), f"claims/test_{i % 7}.py") for i in range(400)]
    texts = catalogue.pages(rows, registry, budget=20_000)
    assert len(texts) > 3 and all(len(t.encode("utf-8")) <= 20_000 for t in texts.values())
    assert sum(t.count("| `toy.c") for t in texts.values()) == 400
    assert all(f"[CATALOGUE-{k}.md](CATALOGUE-{k}.md)" in texts["CATALOGUE.md"] for k in range(1, len(texts)))
    with pytest.raises(catalogue.CatalogueBudgetError, match="alone is over"):
        catalogue.pages(rows[:1], registry, budget=500)
