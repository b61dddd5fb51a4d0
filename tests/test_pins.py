"""CI installs every dependency at a pin (issue 41): ``.ci/constraints.txt`` names each requirement of README's
command 1 (the suite's, its extras', the harness's) at one version and torch at the pin every number was measured
with, and it is what ``bash .ci/lock`` (uv) writes from today's pyprojects: a dependency added without re-locking
fails here, not as an unpinned float in CI."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path


from ci_tools import tool

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / ".ci" / "constraints.txt"


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[@]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _pins() -> dict[str, str]:
    lines = [line for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    assert all(re.fullmatch(r"[a-z0-9.-]+==\S+", line) for line in lines), lines
    return dict(line.split("==") for line in lines)


def test_every_requirement_is_pinned() -> None:
    suite = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    harness = tomllib.loads((ROOT / "llm_claims_harness" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*suite["dependencies"], *harness["dependencies"],
              *(r for extra in ("glove", "kiwi", "docs", "cluster") for r in suite["optional-dependencies"][extra])]
    names = {_name(r) for r in wanted} - {"llm-claims-harness"}  # the harness is installed from the checkout
    pins = _pins()
    assert sorted(names - set(pins)) == []
    assert pins["torch"] == "2.13.0"


def test_the_pins_are_what_the_lock_writes_today(tmp_path: Path) -> None:
    tool("uv")
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md", ".ci", "llm_claims_lab", "llm_claims_harness"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        else:
            shutil.copy(source, copy / name)
    done = subprocess.run(["bash", ".ci/lock"], cwd=copy, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for name in ("constraints.txt", "lint-tools.txt"):
        assert (copy / ".ci" / name).read_text(encoding="utf-8") == (ROOT / ".ci" / name).read_text(
            encoding="utf-8"), f".ci/{name} is stale: run bash .ci/lock"
