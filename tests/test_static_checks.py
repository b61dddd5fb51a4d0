"""What the distributions promise about their own code (issue 41): ``requires-python`` is the oldest Python each
collects and runs on, held by vermin (the minimum version each file's syntax, modules and members need); the
harness, which ships ``py.typed``, passes mypy and ruff at the settings its pyproject states. The tools come from
``.ci/lint-tools.txt`` (``WITH_LINT=1 bash .ci/install``); where one is absent the test skips, except under
``CI=true``, where it fails."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from ci_tools import tool

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "llm_claims_harness"
# each distribution's floor and the code it covers: the harness with its own tests; the suite, everything else
FLOORS = {"llm-claims-harness": (HARNESS, ["llm_claims_harness"]),
          "llm-claims": (ROOT, ["conftest.py", "claims", "fixtures", "llm_claims_lab", "tests", "benchmarks",
                                "calibration"])}




def _floor(project: Path) -> str:
    required = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    match = re.fullmatch(r">=(3\.\d+)", required)
    assert match, required
    return match.group(1)


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_requires_python_is_the_oldest_the_code_runs_on(name: str) -> None:
    project, paths = FLOORS[name]
    floor = _floor(project)
    done = subprocess.run([tool("vermin"), "--no-tips", "--violations", "--eval-annotations", "--backport", "typing",
                           f"-t={floor}-", *paths], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, f"code that needs a Python newer than {floor}:\n{done.stdout[-3000:]}"


def test_the_suite_floor_is_the_harness_floor_or_later() -> None:
    assert tuple(map(int, _floor(ROOT).split("."))) >= tuple(map(int, _floor(HARNESS).split(".")))


def test_the_harness_passes_mypy() -> None:
    done = subprocess.run([tool("mypy"), "--config-file", "pyproject.toml", "."], cwd=HARNESS, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-4000:]


def test_the_harness_passes_ruff() -> None:
    done = subprocess.run([tool("ruff"), "check", "--no-cache", "."], cwd=HARNESS, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]
