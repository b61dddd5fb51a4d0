"""The harness runs on the oldest and the newest Python it declares (``llm_claims_harness/pyproject.toml``'s
classifiers, the oldest being its ``requires-python``): installed alone (``pip install ./llm_claims_harness``, pytest its
only dependency) in a fresh virtual environment of that interpreter, it runs the toy suite (:mod:`toy_suite`, the toy
posts and claims without the project's fixtures) to the same rows and verdicts as under this interpreter. An
interpreter that is not on the machine skips, naming it (looked for on ``PATH``, then among pyenv's versions).
About 10 s each: a venv and pytest's install."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness_toy import LOCAL_REPORT
from toy_suite import CLAIMS, TOY_POSTS

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "llm_claims_harness"
PROJECT = tomllib.loads((HARNESS / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DECLARED = sorted((tuple(map(int, m.groups())) for c in PROJECT["classifiers"]
                   if (m := re.fullmatch(r"Programming Language :: Python :: (\d+)\.(\d+)", c))))
EDGES = sorted({DECLARED[0], DECLARED[-1]})


def test_the_oldest_declared_python_is_the_required_one() -> None:
    assert PROJECT["requires-python"] == ">={}.{}".format(*DECLARED[0])


def _interpreter(version: tuple[int, int]) -> str | None:
    """A working ``python3.X`` for ``version``: on ``PATH`` (a pyenv shim works only where that version is enabled),
    else the newest of pyenv's installed ``3.X.*``."""
    name = "python{}.{}".format(*version)
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which(name), *sorted(map(str, pyenv.glob("{}.{}.*/bin/".format(*version) + name)),
                                              reverse=True)]
    return next((c for c in candidates if c and subprocess.run([c, "-c", "pass"], capture_output=True).returncode == 0),
                None)


def _verdicts(python: str, where: Path) -> dict[str, str]:
    """Run the toy suite under ``python`` in ``where``: its rows' verdicts by id."""
    where.mkdir()
    (where / "conftest.py").write_text(TOY_POSTS, encoding="utf-8")
    (where / "test_toy.py").write_text(CLAIMS, encoding="utf-8")
    run = subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=where, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = json.loads((where / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    return {r["id"]: r["verdict"] for r in rows}


@pytest.mark.slow
@pytest.mark.parametrize("version", EDGES, ids=lambda v: "python{}.{}".format(*v))
def test_the_harness_alone_runs_on_its_oldest_and_newest_python(tmp_path: Path, version: tuple[int, int]) -> None:
    found = _interpreter(version)
    if found is None:
        name = "python{}.{}".format(*version)
        pytest.skip(f"{name} is not on this machine: the harness's {name} run needs it (e.g. pyenv install)")
    venv = tmp_path / "venv"
    subprocess.run([found, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", str(HARNESS)], capture_output=True, text=True)
    assert install.returncode == 0, install.stderr[-3000:]
    assert _verdicts(python, tmp_path / "there") == _verdicts(sys.executable, tmp_path / "here")
