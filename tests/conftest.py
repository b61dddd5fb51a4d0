"""Fixtures shared by several modules in tests/ (the suite's own fixtures live in fixtures/)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab import data
from llm_claims_lab.pretrained.embeddings import GPT2_DIR_ENV
from toy_suite import CLAIMS, CONFTEST


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No explicit directory from the environment, and a hub that is never asked."""
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    monkeypatch.setattr(embeddings, "hub_reachable", lambda: False)


@pytest.fixture
def no_named_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests name their data explicitly; the caller's variables (CI sets some) must not leak in.

    The data modules use it for every test (``pytestmark = pytest.mark.usefixtures("no_named_data")``)."""
    for var in (data.DATA_DIR_ENV, data.MIRROR_ENV, "CLAIMS_CORPUS", "CLAIMS_KO_EVAL_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


@pytest.fixture(autouse=True)
def _one_thread_per_child_under_xdist(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under pytest-xdist, the processes a test starts (pytester's subprocesses, the calibration scripts) share
    the cores with the other workers: each gets one OpenMP thread instead of torch's default of one per core,
    which oversubscribes them (``pytest -n 2 tests/test_claims_catch_bugs.py``: 62 s instead of 73 s wall, 106
    instead of 124 CPU-s). Training and evaluation pin their own thread count anyway."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        monkeypatch.setenv("OMP_NUM_THREADS", "1")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding the toy suite (:mod:`toy_suite`): its conftest and its claims."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=CLAIMS)
    return pytester


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a command run in a new, empty virtual environment (its ``bin`` first on ``PATH``), without
    the caller's torch index, constraints or ``PYTHONPATH``: what a reader's fresh venv resolves."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "TORCH_INDEX", "PYTHONPATH", "PIP_CONSTRAINT")}
    return env | {"PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}", "VIRTUAL_ENV": str(venv)}


@pytest.fixture(scope="session")
def declared_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """Every row the suite's claims declare (:func:`declarations.collect`: one collecting subprocess per session, for
    every test that reads the declarations)."""
    from declarations import collect

    return collect(tmp_path_factory.mktemp("declared"))
