"""The claims harness used from another repository, with no edit: a throwaway repository that verifies a third post
(post C: its registry in a conftest, two claims in its own claims/), run by pytest in an environment that holds only
pytest (with what pytest needs) and the harness, installed by pip from ./llm_claims_harness. README's "Verifying
another post" shows this repository: the test runs README's two blocks as written, plus a second claim."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]

SECOND_CLAIM = '''

from llm_claims_harness.declare import at_most


@claim(id="c.uniform_first_token", post="C", section="intro", kind="post",
       source="Post C, introduction", statement="With equal scores the first of 8 tokens gets 1/8 of the weight.",
       quote=Quote("a quarter of the attention", "a quarter of the attention"),
       expect_source="the post's sentence; arithmetic", post_value=0.25, expect="refuted",
       tolerance=at_most(0.01, "|weight − post's value| within rounding"))
def test_uniform_first_token(verify):
    verify(abs(1 / 8 - 0.25))
'''


def readme_repository() -> tuple[str, str]:
    """README's "Verifying another post": its conftest and its claims file, as written there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Verifying another post", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "README's 'Verifying another post' has a conftest block and a claims block"
    return blocks[0], blocks[1]


def _top_level(dist: importlib.metadata.Distribution) -> set[str]:
    """The top-level names a distribution installs (packages, modules, its .dist-info)."""
    return {str(f).split("/")[0] for f in dist.files or () if not str(f).startswith("..")} - {"__pycache__"}


def _needs(name: str, seen: set[str]) -> None:
    """``name`` and the distributions it requires (this platform's markers), recursively, into ``seen``."""
    if name in seen:
        return
    seen.add(name)
    for text in importlib.metadata.requires(name) or ():
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            _needs(req.name, seen)


@pytest.fixture(scope="module")
def harness_only(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a Python that sees only pytest (and its requirements) and the harness: a site directory
    holding links to pytest's distributions and the harness as pip installs it (a wheel built from
    ./llm_claims_harness with the setuptools this environment has), run with ``-S`` (no site-packages)."""
    site, source = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("src") / "llm_claims_harness"
    # built from a copy: a build leaves build/ and *.egg-info beside the sources, never in the checkout
    shutil.copytree(ROOT / "llm_claims_harness", source, ignore=shutil.ignore_patterns("__pycache__", "build",
                                                                                        "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)
    wanted: set[str] = set()
    harness = tomllib.loads((ROOT / "llm_claims_harness" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for text in harness["dependencies"]:  # what the harness declares, and what that needs
        _needs(Requirement(text).name, wanted)
    for name in sorted(wanted):
        dist = importlib.metadata.distribution(name)
        for top in _top_level(dist):
            source = Path(dist.locate_file(top))
            if source.exists() and not (site / top).exists():
                (site / top).symlink_to(source)
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.fixture
def post_c(tmp_path: Path) -> Path:
    repo = tmp_path / "post-c"
    (repo / "claims").mkdir(parents=True)
    conftest, claims = readme_repository()
    (repo / "conftest.py").write_text(conftest, encoding="utf-8")
    (repo / "claims" / "test_post_c.py").write_text(claims + SECOND_CLAIM, encoding="utf-8")
    return repo


def _python(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_environment_holds_only_pytest_and_the_harness(harness_only, post_c) -> None:
    for absent in ("torch", "numpy", "llm_claims_lab", "xdist"):
        assert _python(harness_only, post_c, "-c", f"import {absent}").returncode != 0, absent
    where = _python(harness_only, post_c, "-c", "import llm_claims_harness; print(llm_claims_harness.__file__)")
    assert where.stdout.startswith(harness_only["PYTHONPATH"])  # the installed copy, not this checkout


def test_another_post_is_verified_with_no_harness_edit(harness_only, post_c) -> None:
    run = _python(harness_only, post_c, "-m", "pytest", "-p", "no:cacheprovider")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 claim rows measured" in run.stdout
    reports = post_c / "reports"
    index = (reports / "CLAIMS.md").read_text(encoding="utf-8")
    assert 'Post C: "Attention sinks in small models" (2026-11-30, https://example.org/post-c)' in index
    assert "[page](CLAIMS-C.md)" in index and "**2 rows**" in index
    assert "- the posts' claims: 1 confirmed · 1 refuted" in index
    page = (reports / "CLAIMS-C.md").read_text(encoding="utf-8")
    table = [line for line in page.splitlines() if line.startswith("| [c.")]
    assert [line.split("]")[0].removeprefix("| [") for line in table] == [
        "c.uniform_first_token", "c.softmax_sums_to_one"]  # the post's section order, not the declaration order
    assert [line.split(" | ")[1] for line in table] == ["intro", "softmax"]
    data = json.loads((reports / "results.json").read_text(encoding="utf-8"))
    assert data["runs"][data["latest_run"]]["suite"] == {"calculator": "math"}
    assert not any(word in text.lower() for text in (index, page, json.dumps(data)) for word in ("torch", "dgx"))
