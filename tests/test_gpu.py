"""The GPU check (:mod:`gpu_check`) through its command line and its dry run: on CUDA, the check itself
(``gpu``-marked, skipped with the reason without a GPU); on any machine, its dry run on the CPU, which runs every
check on real runs of the suite, and planted differences in those runs' outputs, each of which the check must fail
on: one weight changed, one row's value changed, a TF32 flag or another setting left loose in one worker, a
missing worker, a build outside strict mode, a build on the warm cache. The checks' parts on planted inputs that
need no run (a TF32 flag set after the pin, a sync per step, a comparison of 0 entries, the trainers and the CUDA
selection) are ``tests/test_gpu_checks.py``.

Cost: the dry run trains 10 heads toy models twice (two pytest processes at once), runs ``-n 2`` on the
warm cache and steps the heads trainer: about 70 CPU-s, most of it five pytest processes starting (measured
on 2 shared cores: 85 CPU-s for this file, 8 for tests/test_gpu_checks.py); the tests that read its
outputs are ``slow``, the refusals of bad usage are not.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

import gpu_check
import gpu_common
import gpu_numerics
import gpu_runs
from gpu_runs import SuiteRun

SLOW = pytest.mark.slow  # reads the dry run's outputs (trains 20 toy models, starts 5 pytest processes)
CUDA = torch.cuda.is_available()
NO_CUDA = f"no CUDA device visible to torch {torch.__version__} (CUDA build: {torch.version.cuda or 'no'})"


@pytest.mark.gpu
@pytest.mark.skipif(not CUDA, reason=NO_CUDA)
def test_gpu_check_on_cuda(tmp_path: Path) -> None:
    """The whole check on this machine's GPU, as README's command runs it; its lines are printed."""
    proc = subprocess.run(
        [
            sys.executable,
            str(gpu_common.ROOT / "tests" / "gpu_check.py"),
            "--device",
            "cuda",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]


@pytest.mark.skipif(CUDA, reason="a GPU is visible: the check runs instead")
def test_cuda_without_a_gpu_is_refused(tmp_path: Path, capsys) -> None:
    assert gpu_check.main(["--device", "cuda", "--out", str(tmp_path)]) == 2
    assert "no CUDA device is visible" in capsys.readouterr().err


def test_used_output_directory_is_refused(tmp_path: Path, capsys) -> None:
    (tmp_path / "old").write_text("")
    assert gpu_check.main(["--device", "cpu", "--out", str(tmp_path)]) == 2
    assert "is not empty" in capsys.readouterr().err


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[gpu_common.Result]]:
    """The check's dry run on the CPU: its output directory and results."""
    out = tmp_path_factory.mktemp("gpu-check") / "out"
    return out, gpu_check.run_checks("cpu", out, say=lambda line: None)


def _runs(out: Path) -> tuple[SuiteRun, SuiteRun, SuiteRun]:
    a, b = (
        SuiteRun(
            n, out / f"cache-{n}", out / f"report-{n}", out / f"readback-{n}", out / "logs" / f"{n}.log", 0
        )
        for n in ("a", "b")
    )
    return a, b, SuiteRun("n2", a.cache, out / "report-n2", out / "readback-n2", out / "logs" / "n2.log", 0)


def _copy(run: SuiteRun, to: Path, **fields) -> SuiteRun:
    """``run`` with the directories named in ``fields`` (``cache``, ``report``, ``readback``) copied under
    ``to``."""
    copies = {}
    for field in fields:
        copies[field] = to / field
        shutil.copytree(getattr(run, field), copies[field])
    return dataclasses.replace(run, **copies)


@SLOW
def test_dry_run_passes_every_check(dry_run) -> None:
    out, results = dry_run
    assert [r.name for r in results] == ["numerics", "determinism", "strict", "xdist", "steps", "ledger"]
    assert all(r.passed and r.compared > 0 for r in results), "\n".join(r.line() for r in results)
    report = json.loads((out / "gpu_check.json").read_text())
    assert report["checks"]["numerics"]["details"]["n2"] and report["checks"]["steps"]["details"]["heads"]


@SLOW
def test_one_weight_changed_fails(dry_run, tmp_path: Path) -> None:
    out, _ = dry_run
    a, b, _ = _runs(out)
    b = _copy(b, tmp_path, cache="cache")
    path = sorted(b.cache.glob("heads-*.safetensors"))[0]
    with safe_open(path, framework="pt") as f:
        meta, tensors = f.metadata(), {k: f.get_tensor(k) for k in f.keys()}
    name = sorted(tensors)[0]
    flat = tensors[name].view(-1)
    flat[0] = torch.nextafter(flat[0], torch.tensor(math.inf))  # one float32 ulp, one element
    save_file(tensors, path, metadata=meta)
    result = gpu_runs.check_determinism(a, b)
    assert not result.passed
    assert [f for f in result.failures if f.startswith(f"weights: {path.name}:{name}: 1 of")], result.failures


@SLOW
def test_one_row_value_changed_fails(dry_run, tmp_path: Path) -> None:
    out, _ = dry_run
    a, b, n2 = _runs(out)
    for run, check in (
        (b, lambda r: gpu_runs.check_determinism(a, r)),
        (n2, lambda r: gpu_runs.check_xdist(a, r, 10**9)),
    ):
        planted = _copy(run, tmp_path / run.name, report="report")
        doc = json.loads((planted.report / "results.json").read_text())
        row = doc["claims"][0]
        row["measured"] = math.nextafter(row["measured"], math.inf)
        (planted.report / "results.json").write_text(json.dumps(doc))
        result = check(planted)
        assert not result.passed and any(f"row {row['id']}: measured" in f for f in result.failures), (
            result.failures
        )


def _state(**changes) -> dict:
    state = {
        "fp32_precision": {"matmul": "ieee", "conv": "ieee", "rnn": "ieee"},
        "allow_tf32": None,
        "deterministic": "strict",
        "cudnn_benchmark": False,
        "cublas_workspace": ":4096:8",
        "cuda_initialized": True,
    }
    return {**state, **changes}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"fp32_precision": {"matmul": "tf32", "conv": "ieee", "rnn": "ieee"}}, "TF32 not off"),
        ({"fp32_precision": {"matmul": "none", "conv": "ieee", "rnn": "ieee"}}, "TF32 not off"),
        ({"fp32_precision": None, "allow_tf32": {"matmul": True, "cudnn": False}}, "TF32 not off"),
        ({"deterministic": "warn-only"}, "deterministic algorithms warn-only"),
        ({"cudnn_benchmark": True}, "cuDNN benchmark"),
        ({"cublas_workspace": None}, "CUBLAS_WORKSPACE_CONFIG=None"),
    ],
    ids=[
        "fp32_precision_tf32",
        "fp32_precision_unset",
        "allow_tf32",
        "warn_only",
        "benchmark",
        "no_workspace",
    ],
)
@SLOW
def test_numerics_left_loose_in_one_worker_fail(dry_run, changes, problem) -> None:
    out, _ = dry_run
    readbacks = gpu_numerics.read_readbacks(out / "readback-n2")
    assert gpu_numerics.check_numerics({"n2": (readbacks, {"controller", "gw0", "gw1"})}).passed
    worker = next(r for r in readbacks if r["process"] == "gw1")
    worker["states"].append({"first": "claims/test_x.py::test_y", "count": 1, "state": _state(**changes)})
    result = gpu_numerics.check_numerics({"n2": (readbacks, {"controller", "gw0", "gw1"})})
    assert not result.passed and any("gw1" in f and problem in f for f in result.failures), result.failures
    assert gpu_numerics.check_numerics({"n2": ([], {"gw0"})}).failures[0] == "numerics: compared 0 entries"


@SLOW
def test_a_missing_worker_fails(dry_run) -> None:
    out, _ = dry_run
    readbacks = [r for r in gpu_numerics.read_readbacks(out / "readback-n2") if r["process"] != "gw1"]
    result = gpu_numerics.check_numerics({"n2": (readbacks, {"controller", "gw0", "gw1"})})
    assert not result.passed and "no read-back from ['gw1']" in result.failures[0]


@SLOW
def test_a_build_outside_strict_mode_fails(dry_run, tmp_path: Path) -> None:
    out, _ = dry_run
    a, b, _ = _runs(out)
    planted = _copy(a, tmp_path, readback="readback")
    path = next(planted.readback.glob("main-*.json"))
    readback = json.loads(path.read_text())
    readback["states"][-1]["state"]["deterministic"] = "warn-only"
    path.write_text(json.dumps(readback))
    result = gpu_runs.check_strict([planted, b])
    assert not result.passed and all("under deterministic" in f and "warn-only" in f for f in result.failures)
    assert len(result.failures) == result.compared // 2  # every build of run a, none of b


@SLOW
def test_a_build_on_the_warm_cache_fails(dry_run, tmp_path: Path) -> None:
    out, _ = dry_run
    a, _, n2 = _runs(out)
    planted = _copy(a, tmp_path, cache="cache")
    before = len(gpu_runs.read_events(planted.cache))
    with (planted.cache / "events.jsonl").open("a") as f:
        f.write(json.dumps({"event": "build", "entry": "heads-x-0123456789abcdef", "pid": 1}) + "\n")
    assert gpu_runs.check_xdist(a, n2, len(gpu_runs.read_events(a.cache))).passed
    result = gpu_runs.check_xdist(planted, dataclasses.replace(n2, cache=planted.cache), before)
    assert result.failures == [
        "n2: built heads-x-0123456789abcdef on a warm cache (its fingerprint depends on the process)"
    ]
