"""Check 1 of the GPU check (:mod:`gpu_check`), ``numerics``: the numerics in force in every pytest process and
xdist worker, read back from inside each. This module is loaded into them as a pytest plugin (``-p gpu_numerics``;
inert unless ``$GPU_CHECK_READBACK`` names a directory): TF32 off (``fp32_precision`` ``ieee`` for matmul, cuDNN
conv and rnn, or the legacy ``allow_tf32`` flags off), deterministic algorithms strict (no ``warn_only``), cuDNN
autotuning off, ``CUBLAS_WORKSPACE_CONFIG`` set, at configure time (before any test, so before the first cuBLAS
handle) and before every test. On the CPU dry run the plugin pins the numerics (the suite pins them on CUDA only;
on CUDA the plugin only reads).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

from gpu_common import PIN_ENV, READBACK_ENV, Result

CUBLAS_WORKSPACES = (":4096:8", ":16:8")  # the values cuBLAS documents for reproducible results


def numerics() -> dict:
    """The settings that change trained weights on CUDA, as torch reports them now: ``fp32_precision`` of
    matmul, cuDNN conv and rnn where torch has that API (else ``None``, and the legacy ``allow_tf32`` flags;
    never read after the new API is set, which newer torch refuses), ``deterministic`` (``strict``,
    ``warn-only``, ``off``), ``cudnn_benchmark``, ``cublas_workspace`` (``$CUBLAS_WORKSPACE_CONFIG`` or
    ``None``), ``cuda_initialized``."""
    new_api = hasattr(torch.backends.cuda.matmul, "fp32_precision") and hasattr(torch.backends.cudnn, "conv")
    fp32 = (
        {
            "matmul": torch.backends.cuda.matmul.fp32_precision,
            "conv": torch.backends.cudnn.conv.fp32_precision,
            "rnn": torch.backends.cudnn.rnn.fp32_precision,
        }
        if new_api
        else None
    )
    legacy = (
        None
        if new_api
        else {"matmul": torch.backends.cuda.matmul.allow_tf32, "cudnn": torch.backends.cudnn.allow_tf32}
    )
    deterministic = (
        "off"
        if not torch.are_deterministic_algorithms_enabled()
        else "warn-only"
        if torch.is_deterministic_algorithms_warn_only_enabled()
        else "strict"
    )
    return {
        "fp32_precision": fp32,
        "allow_tf32": legacy,
        "deterministic": deterministic,
        "cudnn_benchmark": torch.backends.cudnn.benchmark,
        "cublas_workspace": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
        "cuda_initialized": torch.cuda.is_initialized(),
    }


def unpinned(state: dict) -> list[str]:
    """What in ``state`` (a :func:`numerics` read-back) is not as
    :func:`llm_claims_lab.core.devices.pin_cuda_numerics` pins it; empty when pinned."""
    problems = []
    if state.get("fp32_precision") is not None:
        loose = {k: v for k, v in state["fp32_precision"].items() if v != "ieee"}
        if loose:
            problems.append(f"TF32 not off: fp32_precision {loose} (expected ieee)")
    elif not state.get("allow_tf32") or any(state["allow_tf32"].values()):
        problems.append(f"TF32 not off: allow_tf32 {state.get('allow_tf32')}")
    if state.get("deterministic") != "strict":
        problems.append(f"deterministic algorithms {state.get('deterministic')} (expected strict)")
    if state.get("cudnn_benchmark"):
        problems.append("cuDNN benchmark (autotuning) on")
    if state.get("cublas_workspace") not in CUBLAS_WORKSPACES:
        problems.append(
            f"CUBLAS_WORKSPACE_CONFIG={state.get('cublas_workspace')} (expected one of "
            f"{', '.join(CUBLAS_WORKSPACES)})"
        )
    return problems


_READBACK = pytest.StashKey[dict]()


def _process(config: pytest.Config) -> str:
    """``main`` (a serial run), ``controller`` (xdist's) or the worker's id (``gw0``)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return worker or ("controller" if config.getoption("numprocesses", None) else "main")


def _record(config: pytest.Config, moment: str) -> None:
    """Add the numerics in force now to the process's read-back: one record per distinct state, with the first
    moment (``configure`` or a test's node id) it was seen and how many moments saw it."""
    readback, state = config.stash[_READBACK], numerics()
    for seen in readback["states"]:
        if seen["state"] == state:
            seen["count"] += 1
            return
    readback["states"].append({"first": moment, "count": 1, "state": state})


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """After the suite's own configure (which pins CUDA numerics): record them. On the CPU dry run
    (``$GPU_CHECK_PIN_NUMERICS``) pin them first, as the suite does on CUDA."""
    if not os.environ.get(READBACK_ENV):
        return
    if os.environ.get(PIN_ENV):
        from llm_claims_lab.core.devices import pin_cuda_numerics

        pin_cuda_numerics()
    config.stash[_READBACK] = {"process": _process(config), "pid": os.getpid(), "states": []}
    _record(config, "configure")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    if _READBACK in item.config.stash:
        _record(item.config, item.nodeid)
    return (yield)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _READBACK not in config.stash:
        return
    readback = config.stash[_READBACK]
    out = Path(os.environ[READBACK_ENV])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{readback['process']}-{readback['pid']}.json").write_text(json.dumps(readback, indent=1))


def read_readbacks(directory: Path) -> list[dict]:
    """Every process's read-back in ``directory`` (none when it does not exist)."""
    return [json.loads(p.read_text()) for p in sorted(Path(directory).glob("*.json"))]


def check_numerics(runs: dict[str, tuple[list[dict], set[str]]]) -> Result:
    """Check 1: ``runs`` maps a run's name to (its processes' read-backs, the processes it must have had, e.g.
    ``{"main"}`` or ``{"controller", "gw0", "gw1"}``); every state each process saw must be pinned
    (:func:`unpinned`), and every expected process must have reported."""
    failures, compared = [], 0
    for run, (readbacks, expected) in runs.items():
        missing = expected - {r["process"] for r in readbacks}
        if missing:
            failures.append(
                f"{run}: no read-back from {sorted(missing)} (the process did not load the plugin, or "
                "died before it ended)"
            )
        for r in readbacks:
            if not any(s["first"] == "configure" for s in r["states"]):
                failures.append(f"{run} {r['process']}: nothing read back at configure time")
            for seen in r["states"]:
                compared += 1
                failures += [
                    f"{run} {r['process']} (pid {r['pid']}, from {seen['first']}, {seen['count']} "
                    f"moment(s)): {p}"
                    for p in unpinned(seen["state"])
                ]
    processes = sum(len(rb) for rb, _ in runs.values())
    return Result(
        "numerics",
        compared,
        failures,
        f"{processes} pytest processes, every state they ran under",
        {run: readbacks for run, (readbacks, _) in runs.items()},
    )
