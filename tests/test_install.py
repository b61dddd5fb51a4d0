"""The install step both CI paths run (``.ci/install``: ``.ci/run`` and every job of the workflow) resolves in a fresh
virtual environment, and the line it replaced does not: pip's ``--dry-run`` resolves every requirement against the
machine's indexes (here PyPI and the local wheels; the workflow's ``TORCH_INDEX``, a PyTorch index, is not
reachable here and is left unset) and installs nothing. Today's fault was the workflow's own
``pip install -e ".[glove,kiwi]"``, without ``./llm_claims_harness``: "No matching distribution found for
llm-claims-harness==0.1.0". About 30 s: pip resolving torch, transformers and the rest from their metadata."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_LINE_BEFORE = ["-m", "pip", "install", "--dry-run", "--quiet", "torch==2.13.0", "-e", ".[glove,kiwi]"]




@pytest.mark.slow
def test_the_install_step_resolves_in_a_fresh_venv(fresh_venv: dict[str, str]) -> None:
    done = subprocess.run(["bash", ".ci/install", "--dry-run"], cwd=ROOT, env=fresh_venv | {"WITH_LINT": "1"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
def test_the_line_it_replaced_does_not(fresh_venv: dict[str, str]) -> None:
    python = str(Path(fresh_venv["VIRTUAL_ENV"]) / "bin" / "python")
    done = subprocess.run([python, *WORKFLOW_LINE_BEFORE], cwd=ROOT, env=fresh_venv, capture_output=True, text=True)
    assert done.returncode != 0
    assert "No matching distribution found for llm-claims-harness" in done.stderr


def test_the_install_step_is_readme_s_command_1() -> None:
    """README's command 1 installs what .ci/install installs, with its default torch pin: one install path."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    script = (ROOT / ".ci" / "install").read_text(encoding="utf-8")
    pin = script.split("torch_spec=${TORCH_SPEC:-")[1].split("}")[0]
    packages = '-e ./llm_claims_harness -e ".[glove,kiwi,docs,cluster]"'
    assert f'"$torch_spec" {packages}' in script
    assert f"python -m pip install {pin} {packages}" in readme
