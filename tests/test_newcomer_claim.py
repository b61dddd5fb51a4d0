"""The docs' "Adding a claim" example (``docs/adding-a-claim.md``, where README's *Add a claim or a post* link goes), run
exactly as written: one new file in claims/, no harness edit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import child_pytest
import pytest

from docs_commands import python_blocks
from harness_toy import LOCAL_REPORT

ROOT = Path(__file__).resolve().parents[1]


def readme_example() -> str:
    """The first Python block of the docs' "Adding a claim" section."""
    blocks = python_blocks(ROOT / "docs" / "adding-a-claim.md", "Adding a claim")
    assert blocks, "docs/adding-a-claim.md's 'Adding a claim' section has no Python example"
    return blocks[0]


def post_example() -> tuple[str, str]:
    """The two Python blocks of the docs' "Adding a post" section: what to append to claims/posts.py, the claim."""
    blocks = python_blocks(ROOT / "docs" / "adding-a-claim.md", "Adding a post")
    assert len(blocks) == 2, "docs/adding-a-claim.md's 'Adding a post' section: a registry block and a claim block"
    return blocks[0], blocks[1]


def test_the_docs_post_example_runs_as_written(pytester: pytest.Pytester) -> None:
    """The docs' new post (issue 42): its registry lines appended to the suite's claims/posts.py, its claim file
    beside it; the row lands on the new post's page with the post's value and unit, and the index names the post."""
    registry, claim_file = post_example()
    (pytester.path / "claims").mkdir()
    posts = (ROOT / "claims" / "posts.py").read_text(encoding="utf-8")
    (pytester.path / "claims" / "posts.py").write_text(posts + "\n\n" + registry, encoding="utf-8")
    (pytester.path / "claims" / "test_rope_example.py").write_text(claim_file, encoding="utf-8")
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    path = [str(pytester.path), str(ROOT), os.environ.get("PYTHONPATH")]  # this claims/posts.py before the checkout's
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path))}
    pytester._monkeypatch.setattr(os, "environ", env)
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", "claims/test_rope_example.py")
    result.assert_outcomes(passed=1)
    report = pytester.path / LOCAL_REPORT
    rows = {r["id"]: r for r in json.loads((report / "results.json").read_text())["claims"]}
    row = rows["rope.norm_preserved"]
    assert (row["post"], row["kind"], row["verdict"]) == ("C", "post", "holds")
    page = (report / "CLAIMS-C.md").read_text(encoding="utf-8")
    line = next(line for line in page.splitlines() if "r-rope-norm-preserved" in line and line.startswith("| "))
    assert line.startswith("| ✅ confirmed |") and line.count("× (norm after / before)") == 2, line  # ours and the post's
    assert 'Post C: "RoPE in one page"' in (report / "CLAIMS.md").read_text(encoding="utf-8")


def test_readme_claim_runs_as_written(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))  # the suite's own conftest
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "test_row_norm.py").write_text(readme_example(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    pytester._monkeypatch.setattr(os, "environ", env)  # the subprocess imports `fixtures` from the checkout
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", "claims")
    result.assert_outcomes(passed=2)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert set(rows) == {"pe.sin.row_norm[d6]", "pe.sin.row_norm[d512]"}
    assert {r["verdict"] for r in rows.values()} == {"holds"}
    assert rows["pe.sin.row_norm[d512]"]["measured"] == pytest.approx(16.0, rel=1e-5)
    assert rows["pe.sin.row_norm[d6]"]["post"] == "B"
    assert '<a id="r-pe-sin-row-norm-d6"></a>' in (pytester.path / LOCAL_REPORT / "CLAIMS-beyond.md").read_text(encoding="utf-8")
