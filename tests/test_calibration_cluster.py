"""The calibration's tasks on a Dask distributed cluster (issue 34, ``llm_claims_lab/core/executors.py``): a reduced
extrapolation calibration (two schemes, two seeds, 30 training steps: ``--train-steps``, a dry run) through a local
cluster of 2 worker processes gives every value the local path gives, each side training in its own cache; an
interrupted calibration resumes without training a finished task again; the executor hands back what finished
before a failure, then raises it, and leaves this process's environment as it was."""

from __future__ import annotations

import importlib.util
import json
import operator
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llm_claims_lab.core.build_log import read as read_builds
from llm_claims_lab.core.executors import Executor

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "calibration" / "calibrate_extrapolation.py"
REDUCED = ["--schemes", "learned", "sinusoidal", "--alibi-seeds", "2", "--control-seeds", "2", "--train-steps", "30"]
needs_dask = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason='Dask distributed is not installed: pip install -e ".[cluster]"')


def _calibrate(tmp_path: Path, name: str, *args: str, seeds: int = 2) -> tuple[dict, str]:
    cache, out = tmp_path / f"cache-{name}", tmp_path / f"{name}.json"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(SCRIPT), *REDUCED, "--seeds", str(seeds), "--cache-dir", str(cache),
                           "--out", str(out), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8")), done.stderr


@needs_dask
@pytest.mark.slow
def test_a_reduced_calibration_on_a_local_dask_cluster_equals_the_local_path(tmp_path: Path) -> None:
    local, _ = _calibrate(tmp_path, "local")
    cluster, log = _calibrate(tmp_path, "dask", "--executor", "dask", "--jobs", "2")
    assert "4 of 4 tasks to run, on a local Dask cluster of 2 workers" in log
    assert local["seeds"] == cluster["seeds"] == {"learned": [1, 2], "sinusoidal": [1, 2]}
    assert local["protocol"]["steps"] == 30
    assert local["runs"] == cluster["runs"]  # every value of every (scheme, seed), each side trained in its own cache
    assert local["noise"] == cluster["noise"]
    assert set(local["runs"]["learned"]) >= {"acc20", "acc40"}


@pytest.mark.slow
def test_an_interrupted_calibration_resumes_without_retraining(tmp_path: Path) -> None:
    _calibrate(tmp_path, "resume")  # seeds 1–2 measured and kept; then the run is asked for a third seed
    _, log = _calibrate(tmp_path, "resume", seeds=3)
    assert "2 of 6 tasks to run" in log
    builds = read_builds(tmp_path / "cache-resume" / "events.jsonl")
    trained = {key: b.builds for key, b in builds.items() if "-step" not in key}  # the models, not evaluations
    assert len(trained) == 6 and set(trained.values()) == {1}, trained  # no model trained twice


@pytest.mark.parametrize("executor", [Executor(), Executor(jobs=2),
                                      pytest.param(Executor("dask", jobs=2), marks=needs_dask)],
                         ids=["one process", "two processes", "dask"])
def test_finished_tasks_are_kept_before_a_failure_is_raised(executor: Executor) -> None:
    kept: dict[int, int] = {}
    tasks = [(4, 2), (9, 3), (1, 0), (16, 4)]  # operator.floordiv: the third divides by zero
    environ = dict(os.environ)
    with pytest.raises(ZeroDivisionError):
        executor.run(operator.floordiv, tasks, lambda task, value: kept.update({task[0]: value}))
    assert dict(os.environ) == environ  # a local Dask cluster's nannies set OMP_NUM_THREADS=1 … here; put back
    assert {4: 2, 9: 3}.items() <= kept.items() and 1 not in kept  # one process stops at the failure
    if executor.jobs > 1:
        assert kept == {4: 2, 9: 3, 16: 4}  # the others finish and are kept


def test_a_misnamed_executor_is_refused() -> None:
    with pytest.raises(ValueError, match="choose one of local, dask"):
        Executor("ray")
    with pytest.raises(ValueError, match="for the dask executor"):
        Executor("local", address="tcp://head:8786")


@pytest.mark.parametrize("script", ["calibrate_extrapolation.py", "calibrate_word2vec.py"])
def test_a_scheduler_without_the_dask_executor_is_a_usage_error(script: str) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "calibration" / script), "--scheduler", "tcp://head:8786"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--scheduler (tcp://head:8786) is for the dask executor" in done.stderr, done.stderr
