"""A pytest run in a preloaded child (:mod:`child_pytest`) is set up as ``python -m pytest`` would be: the same working
directory, environment, ``sys.path``, ``sys.argv[0]``, torch thread count, empty stdin and exit code, the output
captured, nothing of this project imported before the run, and a run past its timeout killed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import child_pytest
import pytest

PLUGIN = "import sys\n\nPATH_AT_START = list(sys.path)  # before pytest puts the test's directory first\n"
PROBE = '''
import json, os, sys

import probe_plugin


def test_probe():
    import torch
    print("PROBE " + json.dumps({
        "cwd": os.getcwd(), "path": probe_plugin.PATH_AT_START, "env": dict(os.environ), "argv0": sys.argv[0],
        "threads": torch.get_num_threads(), "stdin": sys.stdin.read(),
        "preloaded_project": sorted(m for m in sys.modules if m.split(".")[0] in ("llm_claims_lab", "fixtures")),
    }))
    print("to stderr", file=sys.stderr)
    assert os.environ.get("PROBE_FAIL") != "1"
'''


def _probe(out: list[str]) -> dict:
    return json.loads(next(line for line in out if line.startswith("PROBE "))[len("PROBE "):])


@pytest.fixture
def probe_dir(tmp_path: Path) -> Path:
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "probe_plugin.py").write_text(PLUGIN, encoding="utf-8")
    return tmp_path


def _env(where: Path, **extra: str) -> dict[str, str]:
    """This process's environment less the thread count (so each way must find torch's default itself), with
    ``PYTHONPATH`` naming the directory and a variable the run must see."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTEST_ADDOPTS", "PYTHONPATH")}
    return env | {"PYTHONPATH": os.pathsep.join([str(where / "lib"), str(where)]), "PROBE_VAR": "κ"} | extra


def test_a_child_is_set_up_as_a_new_interpreter(probe_dir: Path) -> None:
    args = ["-p", "no:cacheprovider", "-p", "probe_plugin", "-s", "-q", "test_probe.py"]
    real = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=probe_dir, env=_env(probe_dir),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
    child = child_pytest.run(args, cwd=probe_dir, env=_env(probe_dir), timeout=300)
    assert real.returncode == child.ret == 0, str(child.stdout) + str(child.stderr)
    expected, got = _probe(real.stdout.splitlines()), _probe(child.outlines)
    for key in expected:
        assert got[key] == expected[key], key
    assert got["env"]["PROBE_VAR"] == "κ" and got["preloaded_project"] == [] and got["stdin"] == ""
    assert "to stderr" in str(child.stdout) + str(child.stderr)  # pytest -s: the test's stderr goes to fd 2


@pytest.mark.parametrize("threads", [{"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "1"}],
                         ids=["omp", "mkl_over_omp"])
def test_a_child_reads_the_thread_count_and_exit_code_it_is_given(probe_dir: Path, threads: dict[str, str]) -> None:
    """torch's thread count as a new interpreter finds it under the same variables (a local Dask cluster sets
    ``MKL_NUM_THREADS=1`` in the process that starts it, which then reaches every child it starts)."""
    env = _env(probe_dir, PROBE_FAIL="1", **threads)
    fresh = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"], env=env,
                           capture_output=True, text=True, check=True)
    child = child_pytest.run(["-p", "no:cacheprovider", "-s", "-q", "test_probe.py"], cwd=probe_dir, env=env)
    assert child.ret == pytest.ExitCode.TESTS_FAILED
    assert _probe(child.outlines)["threads"] == int(fresh.stdout)
    child.stdout.fnmatch_lines(["*1 failed*"])


def test_a_child_past_its_timeout_is_killed(tmp_path: Path) -> None:
    (tmp_path / "test_slow.py").write_text("import time\n\ndef test_slow():\n    time.sleep(60)\n", encoding="utf-8")
    with pytest.raises(subprocess.TimeoutExpired):
        child_pytest.run(["-p", "no:cacheprovider", "-q"], cwd=tmp_path, timeout=3)
