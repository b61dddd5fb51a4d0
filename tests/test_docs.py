"""The reference documentation (``docs/``, ``mkdocs.yml``; issue 33) builds with ``mkdocs build --strict``: a broken
link, a page missing from the navigation or an included file that is gone fails the build, so it fails here; and the
build does fail on each of those, planted in a copy."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
                                reason='mkdocs with the material theme is not installed: pip install -e ".[docs]"')


def _build(root: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # material's notice of its successor, not a finding
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"),
                           "-d", str(site)], cwd=root, env=env, capture_output=True, text=True)


def test_the_docs_build_strict(tmp_path: Path) -> None:
    done = _build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "site" / "adding-a-claim" / "index.html").is_file()
    harness = (tmp_path / "site" / "harness" / "index.html").read_text(encoding="utf-8")
    assert "A pytest plugin that judges the claims of technical posts" in harness  # the harness README, included
    # the latest report on the site (tools/mkdocs_report.py): its index and pages in the nav, every part built, the
    # figures shown inline and present
    site = tmp_path / "site" / "report"
    index = (site / "CLAIMS" / "index.html").read_text(encoding="utf-8")
    assert "Claims report" in index and 'href="../CLAIMS-A/#r-' in index
    for page in sorted((ROOT / "reports").glob("CLAIMS-*.md")):
        built = (site / page.stem / "index.html").read_text(encoding="utf-8")
        for src in re.findall(r'<img alt="[^"]*" src="\.\./(figures/[^"]+)"', built):
            assert (site / src).is_file(), (page.name, src)
    assert any("<img" in (site / p.stem / "index.html").read_text(encoding="utf-8")
               for p in (ROOT / "reports").glob("CLAIMS-*.md"))
    nav = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "report/CLAIMS-B/" in nav and "The latest report" in nav


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "docs", root / "docs")
    shutil.copy(ROOT / "mkdocs.yml", root)
    (root / "llm_claims_harness").mkdir()
    shutil.copy(ROOT / "llm_claims_harness" / "README.md", root / "llm_claims_harness")
    shutil.copytree(ROOT / "tools", root / "tools")
    shutil.copytree(ROOT / "reports", root / "reports")
    return root


@pytest.mark.parametrize("fault", ["broken link", "page left out of the nav", "included file gone",
                                   "report page links a missing file"])
def test_the_strict_build_fails_on_a_planted_fault(tmp_path: Path, fault: str) -> None:
    root = _copy(tmp_path)
    assert _build(root, tmp_path / "ok").returncode == 0  # the copy builds as it is
    if fault == "broken link":
        with open(root / "docs" / "report.md", "a", encoding="utf-8") as fh:
            fh.write("\nSee [the missing page](missing.md).\n")
    elif fault == "page left out of the nav":
        (root / "docs" / "orphan.md").write_text("# Orphan\n", encoding="utf-8")
    elif fault == "included file gone":
        (root / "llm_claims_harness" / "README.md").unlink()
    else:
        next((root / "reports" / "figures").glob("*.png")).unlink()
    failed = _build(root, tmp_path / "site")
    assert failed.returncode != 0, failed.stderr
