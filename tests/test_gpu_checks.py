"""The GPU check's parts (:mod:`gpu_numerics`, :mod:`gpu_runs`, :mod:`gpu_steps`) on planted inputs that need
no run of the suite: a TF32 flag set after the pin is read back, a comparison of 0 entries fails every check, a
sync per step fails, the profiler's copies and kernels are told apart, every trainer of the CUDA set steps, and
the CUDA selection collects the reduced set. The dry run and the planted differences in its outputs are
``tests/test_gpu.py``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from types import SimpleNamespace

import child_pytest
import pytest
import torch

import gpu_check
import gpu_common
import gpu_numerics
import gpu_runs
import gpu_steps
from gpu_runs import SuiteRun


def test_a_tf32_flag_left_on_is_read_back() -> None:
    """The read-back reads torch, not what was asked: a flag set after the pin shows."""
    from llm_claims_lab.core.devices import pin_cuda_numerics

    api = (torch.backends.cuda.matmul, torch.backends.cudnn.conv, torch.backends.cudnn.rnn)
    before = (
        [m.fp32_precision for m in api],
        torch.backends.cudnn.benchmark,
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    try:
        pin_cuda_numerics()
        assert gpu_numerics.unpinned(gpu_numerics.numerics()) == []
        torch.backends.cudnn.conv.fp32_precision = "tf32"
        assert gpu_numerics.unpinned(gpu_numerics.numerics()) == [
            "TF32 not off: fp32_precision {'conv': 'tf32'} (expected ieee)"
        ]
    finally:
        for m, value in zip(api, before[0]):
            m.fp32_precision = value
        torch.backends.cudnn.benchmark = before[1]
        torch.use_deterministic_algorithms(before[2], warn_only=before[3])


def test_zero_entries_fail(tmp_path: Path) -> None:
    empty = [
        SuiteRun(
            n, tmp_path / f"cache-{n}", tmp_path / f"report-{n}", tmp_path / f"rb-{n}", tmp_path / "log", 0
        )
        for n in ("a", "b")
    ]
    for run in empty:
        run.cache.mkdir()
        run.report.mkdir()
        (run.report / "results.json").write_text(json.dumps({"claims": []}))
    for result in (
        gpu_runs.check_determinism(*empty),
        gpu_runs.check_strict(empty),
        gpu_runs.check_xdist(empty[0], empty[1], 0),
        gpu_steps.check_ledger(empty),
        gpu_steps.profile_steps({}, torch.device("cpu")),
    ):
        assert not result.passed and result.failures[0] == f"{result.name}: compared 0 entries", result.line()
    assert gpu_runs.compare_weights(empty[0].cache, empty[1].cache) == (0, [])


def test_skipped_rows_alone_compare_nothing() -> None:
    row = {"id": "x", "verdict": "skipped", "measured": None}
    assert gpu_runs.compare_rows({"x": row}, {"x": dict(row)}, "a vs b") == (0, [])


@pytest.mark.filterwarnings(f"ignore:{gpu_steps.SYNC_WARNING}")
def test_a_sync_per_step_fails() -> None:
    """A step that synchronizes (its warning, as set_sync_debug_mode('warn') gives it) is counted on any
    device."""

    def planted(steps: int) -> None:
        for _ in range(steps):
            warnings.warn(f"{gpu_steps.SYNC_WARNING}")

    result = gpu_steps.profile_steps({"planted": planted}, torch.device("cpu"), window=(1, 3))
    assert result.failures == ["steps: planted: 1 host-device syncs or blocking copies per step"]


def test_device_events_count_copies_and_kernels() -> None:
    cuda, cpu = torch.autograd.DeviceType.CUDA, torch.autograd.DeviceType.CPU

    def event(name, device, us=2.0):
        return SimpleNamespace(
            name=name, device_type=device, time_range=SimpleNamespace(elapsed_us=lambda: us)
        )

    events = [
        event("Memcpy HtoD (Pageable -> Device)", cuda),
        event("void gemm_kernel<...>", cuda, 5.0),
        event("Memset (Device)", cuda),
        event("aten::mm", cpu),
        event("Memcpy DtoH (Device -> Pageable)", cuda),
    ]
    assert gpu_steps.device_events(events) == (1, 1, 5.0)


def test_every_trainer_of_the_cuda_set_steps_on_cpu() -> None:
    """The trainers the GPU check steps exist and run as called (two steps each on the CPU)."""
    trainers = gpu_steps.step_trainers(torch.device("cpu"))
    assert sorted(trainers) == [
        "extrapolation-learned",
        "extrapolation-relative",
        "extrapolation-sinusoidal",
        "heads",
        "skipgram",
    ]
    for train in trainers.values():
        train(2)


def test_cuda_selection_is_the_reduced_set() -> None:
    """The CUDA selection collects the rows of learned, sinusoidal and relative extrapolation, every heads row
    and the one skip-gram row, and nothing else."""
    args, _ = gpu_check.SELECTIONS["cuda"]
    run = child_pytest.run(["--co", "-q", "-p", "no:cacheprovider", "--no-claims-report", *args],
                           cwd=gpu_common.ROOT, timeout=300)
    ids = [line for line in run.outlines if "::" in line]
    functions = {i.split("::")[1].split("[")[0] for i in ids}
    assert functions == {
        "test_learned",
        "test_sinusoidal",
        "test_relative_bias",
        "test_learned_equals_sin_in_range",
        "test_positional_vs_content",
        "test_add_vs_concat",
        "test_subspaces",
        "test_ws353",
    }, str(run.stdout)
    assert [i for i in ids if "test_ws353" in i] == ["claims/test_word2vec.py::test_ws353[trained]"]
