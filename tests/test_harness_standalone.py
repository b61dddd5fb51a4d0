"""The claims harness used from another repository, with no edit: a throwaway repository that verifies a third post
(post C: its registry in a conftest, two claims in its own claims/), run by pytest in an environment that holds only
pytest (with what pytest needs) and the harness, installed by pip from ./llm_claims_harness. The harness's README
("A post in two files", its long description) shows this repository: the test runs its two blocks as written, plus
a second claim; the built wheel carries that README, ``py.typed`` and the changelog."""

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

from docs_commands import python_blocks
from harness_toy import LOCAL_REPORT
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]

SECOND_CLAIM = '''

from llm_claims_harness.declare import at_most


@claim(id="c.uniform_first_token", post="C", section="intro", kind="post",
       source="Post C, introduction", statement="With equal scores the first of 8 tokens gets 1/8 of the weight.",
       quote=Quote("a quarter of the attention", "a quarter of the attention"),
       expect_source="the post's sentence; arithmetic", post_value=0.25, expect="refuted",
       tolerance=at_most(0.01, reason="|weight − post's value| within rounding"))
def test_uniform_first_token(verify):
    verify(abs(1 / 8 - 0.25))
'''


def readme_repository() -> tuple[str, str]:
    """The harness README's "A post in two files": its conftest and its claims file, as written there."""
    blocks = python_blocks(ROOT / "llm_claims_harness" / "README.md", "A post in two files")
    assert len(blocks) == 2, "the harness README's 'A post in two files' has a conftest block and a claims block"
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
    reports = post_c / LOCAL_REPORT
    index = (reports / "CLAIMS.md").read_text(encoding="utf-8")
    assert 'Post C: "Attention sinks in small models" (2026-11-30, https://example.org/post-c)' in index
    assert "[page](CLAIMS-C.md)" in index and "**2 rows**" in index
    assert "- the posts' claims: 1 confirmed · 1 refuted" in index
    page = (reports / "CLAIMS-C.md").read_text(encoding="utf-8")
    table = [line for line in page.splitlines() if line.startswith("| ") and '<a id="r-c-' in line]
    assert [re.search(r'<a id="(r-[^"]+)"', line).group(1) for line in table] == [
        "r-c-uniform-first-token", "r-c-softmax-sums-to-one"]  # the post's section order, not the declaration order
    assert [line.split(" | ")[2] for line in table] == ["intro", "softmax"]
    data = json.loads((reports / "results.json").read_text(encoding="utf-8"))
    assert data["runs"][data["latest_run"]]["suite"] == {"calculator": "math"}
    assert not any(word in text.lower() for text in (index, page, json.dumps(data)) for word in ("torch", "dgx"))


def test_the_plugin_is_inert_in_a_suite_that_uses_no_claim(harness_only, tmp_path: Path) -> None:
    """Installed, the harness does nothing visible in a suite with no claim (issue 33): a file named ``.claims``
    where the report would go (``.claims/report``) stops nothing, no report is written, no line of the plugin is printed; a ``-k`` with a
    dotted name gets no hint. The planted bug (the report directory checked for every session, as before) fails it."""
    suite = tmp_path / "unrelated"
    suite.mkdir()
    (suite / ".claims").write_text("a file of the other project\n", encoding="utf-8")
    (suite / "test_plain.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    for args in ((), ("-k", "one or pkg.module")):
        run = _python(harness_only, suite, "-m", "pytest", "-p", "no:cacheprovider", *args)
        assert run.returncode == 0, run.stdout + run.stderr
        said = [line for line in (run.stdout + run.stderr).splitlines() if not line.startswith("plugins: ")]
        assert not any("claim" in line.lower() for line in said), said  # pytest's own plugins line names it
    assert (suite / ".claims").read_text(encoding="utf-8") == "a file of the other project\n"
    (suite / "conftest.py").write_text("from llm_claims_harness import place\n\n"
                                       "def pytest_configure(config):\n    place.check_report_dir(config)\n",
                                       encoding="utf-8")
    planted = _python(harness_only, suite, "-m", "pytest", "-p", "no:cacheprovider")
    assert planted.returncode == pytest.ExitCode.USAGE_ERROR and "report" in planted.stderr, planted.stderr


def test_the_distribution_carries_its_readme_types_and_changelog(harness_only, tmp_path: Path) -> None:
    """What pip installs is a distribution others can adopt (issue 33): its metadata's long description is the
    harness's README (with the two-file example), and ``py.typed`` and the changelog are installed with it."""
    code = ("import importlib.metadata as m, importlib.resources as r\n"
            "meta = m.metadata('llm-claims-harness')\n"
            "print(meta['Description-Content-Type'])\n"
            "print('## A post in two files' in (meta.get_payload() or meta['Description']))\n"
            "print(sorted(f.name for f in r.files('llm_claims_harness').iterdir() if f.name in "
            "('py.typed', 'CHANGELOG.md', 'README.md')))\n")
    run = _python(harness_only, tmp_path, "-c", code)
    assert run.stdout.splitlines() == ["text/markdown", "True", "['CHANGELOG.md', 'README.md', 'py.typed']"], run.stderr


def test_the_harness_config_registers_the_suites_selection_markers() -> None:
    """``pytest -m "not slow" llm_claims_harness/tests -n 2`` reads the harness's own pyproject (its rootdir): a
    marker the suite selects by that it did not register failed the run (under xdist an INTERNALERROR naming no
    marker, newcomer's try); it registers every marker of the suite's that README or docs select with ``-m``."""
    def markers(path: Path) -> set[str]:
        ini = tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
        return {line.split(":")[0] for line in ini.get("markers", [])}
    said = "".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    selected = set(re.findall(r"""-m\s+["']?not\s+(\w+)""", said)) & markers(ROOT / "pyproject.toml")
    assert "slow" in selected and selected <= markers(ROOT / "llm_claims_harness" / "pyproject.toml")
