"""Checks 5 and 6 of the GPU check (:mod:`gpu_check`): per training step, and seconds per model.

5. ``steps``: per training step of each trainer of the set, host-device syncs and blocking copies
   (``torch.cuda.set_sync_debug_mode("warn")``, its warnings counted), host-to-device copies and kernels
   (``torch.profiler``), wall and host-CPU seconds and the GPU-busy share; counted as the difference between a
   90-step and a 10-step run, a window with no step that logs or saves (every 100th), so setup cancels out. A
   sync or a copy in the window fails the check. On the CPU syncs, copies and kernels are not applicable and
   are counted anyway.
6. ``ledger``: seconds per model from the fresh caches' ``events.jsonl``
   (:mod:`llm_claims_lab.core.build_log`), beside a CPU ledger when one is given; a cache without builds, or
   an entry built twice, fails.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import torch

from gpu_common import SEED, Result
from gpu_runs import SuiteRun

# ---- 5. per training step ----

SYNC_WARNING = "called a synchronizing CUDA operation"  # c10's warning under set_sync_debug_mode("warn")
STEP_TRAINERS = {
    "cuda": None,
    "cpu": ("heads",),
}  # every trainer of the set; the dry run's own (the others: 40 CPU-s)
STEP_WINDOW = (10, 90)  # steps of the short and the long run: the window 11–90 holds no 100th step


def sync_count(records: Sequence[warnings.WarningMessage]) -> int:
    """How many of ``records`` are c10's synchronizing-operation warning (:data:`SYNC_WARNING`)."""
    return sum(SYNC_WARNING in str(r.message) for r in records)


def device_events(events) -> tuple[int, int, float]:
    """(host-to-device copies, kernels, summed kernel microseconds) among profiler ``events``: those on a CUDA
    device, a copy being one whose name says ``Memcpy HtoD``; memsets and copies are not kernels."""
    copies = kernels = 0
    busy_us = 0.0
    for e in events:
        if getattr(e, "device_type", None) != torch.autograd.DeviceType.CUDA:
            continue
        if "Memcpy HtoD" in e.name:
            copies += 1
        elif not e.name.startswith(("Memcpy", "Memset")):
            kernels += 1
            busy_us += e.time_range.elapsed_us()
    return copies, kernels, busy_us


@contextlib.contextmanager
def counted(device: torch.device) -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning in the block (none deduplicated) with, on CUDA, synchronizing calls warning
    (``torch.cuda.set_sync_debug_mode("warn")``; restored after)."""
    cuda = device.type == "cuda"
    before = torch.cuda.get_sync_debug_mode() if cuda else None
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        if cuda:
            torch.cuda.set_sync_debug_mode("warn")
        try:
            yield records
        finally:
            if cuda:
                torch.cuda.set_sync_debug_mode(before)


def _finish(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def step_trainers(
    device: torch.device, names: Sequence[str] | None = None
) -> dict[str, Callable[[int], object]]:
    """For each trainer of the reduced set (those of ``names``, default all), a function that trains ``steps``
    steps on ``device`` as the suite does (the lab's own ``train``; skip-gram on a synthetic corpus of 30,000
    types, 200,000 tokens: a step's syncs, copies and kernels do not depend on the words)."""
    from llm_claims_lab.extrapolation import ExtrapolationConfig
    from llm_claims_lab.extrapolation import training as extrapolation
    from llm_claims_lab.heads import lab as heads
    from llm_claims_lab.word2vec import skipgram

    ids = torch.randint(0, 30_000, (200_000,), generator=torch.Generator().manual_seed(SEED))  # [N] token ids
    trainers: dict[str, Callable[[int], object]] = {
        f"extrapolation-{s}": (
            lambda n, s=s: extrapolation.train(ExtrapolationConfig(scheme=s, steps=n), SEED, device)
        )
        for s in ("learned", "sinusoidal", "relative")
    }
    trainers["skipgram"] = lambda n: skipgram.train(
        ids, 30_000, skipgram.SkipGramConfig(seed=SEED, steps=n, snapshots=()), device
    )
    trainers["heads"] = lambda n: heads.train(
        dataclasses.replace(heads.SPECIALISATION, steps=n), SEED, device
    )
    return {name: trainers[name] for name in (names or trainers)}


def profile_steps(
    trainers: dict[str, Callable[[int], object]], device: torch.device, window: tuple[int, int] = STEP_WINDOW
) -> Result:
    """Check 5: each trainer run for ``window`` steps (short, long), timed and counted; per step = (count in
    the long run − count in the short) / (long − short). A sync or a host-to-device copy per step fails, on any device (on the CPU they
    are not applicable and counted anyway: nothing there should warn). Wall and host-CPU seconds and the
    GPU-busy share are reported, never judged."""
    from torch.profiler import ProfilerActivity, profile

    short, long = window
    cuda = device.type == "cuda"
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if cuda else [])]
    failures, details = [], {}
    for name, train in trainers.items():
        train(short)  # warm-up: allocator, kernels' first launch
        counts = {}
        for steps in window:
            _finish(device)
            with counted(device) as records:
                wall, cpu = time.perf_counter(), time.process_time()
                train(steps)
                _finish(device)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            with profile(activities=activities) as prof:
                train(steps)
                _finish(device)
            counts[steps] = (sync_count(records), *device_events(prof.events()), wall, cpu)
        n = long - short
        syncs, copies, kernels, busy_us, wall, cpu = (
            (counts[long][i] - counts[short][i]) / n for i in range(6)
        )
        details[name] = {
            "steps compared": n,
            "syncs per step": syncs,
            "host-to-device copies per step": copies,
            "kernels per step": kernels if cuda else "not applicable (CPU)",
            "wall ms per step": round(1e3 * wall, 3),
            "host CPU ms per step": round(1e3 * cpu, 3),
            "GPU-busy share": round(busy_us / 1e6 / wall, 3) if cuda and wall > 0 else "not applicable (CPU)",
        }
        if not cuda:
            details[name]["note"] = (
                "syncs and copies not applicable on the CPU (counted anyway: the same path)"
            )
        if syncs > 0:
            failures.append(f"steps: {name}: {syncs:g} host-device syncs or blocking copies per step")
        if copies > 0:
            failures.append(f"steps: {name}: {copies:g} host-to-device copies per step")
    return Result(
        "steps",
        len(details),
        failures,
        f"{len(details)} trainers, steps {short + 1}–{long} counted on {device.type}",
        details,
    )


# ---- 6. per model seconds ----


def check_ledger(runs: Sequence[SuiteRun], cpu_events: Path | None = None) -> Result:
    """Check 6: seconds per model of each fresh cache's builds (:func:`llm_claims_lab.core.build_log.read`),
    beside the CPU-seconds of the same models in ``cpu_events`` (a CPU cache's events.jsonl) when given. A run
    without builds, or an entry built twice, fails."""
    from llm_claims_lab.core import build_log

    cpu = {}
    if cpu_events is not None:
        for log in build_log.read(cpu_events).values():
            if log.builds:
                cpu[build_log.model(log.entry)] = round(log.cpu_s / log.builds, 1)
    failures, details, compared = [], {}, 0
    for run in runs:
        path = run.cache / "events.jsonl"
        entries = build_log.read(path) if path.exists() else {}
        built = {e: log for e, log in entries.items() if log.builds}
        if not built:
            failures.append(f"ledger: {run.name}: no build in {path}")
        failures += [
            f"ledger: {run.name}: {log.entry} built {log.builds} times"
            for log in build_log.built_twice(entries)
        ]
        compared += len(built)
        details[run.name] = {
            log.entry: {
                "wall s": log.wall_s,
                "process CPU-s": log.cpu_s,
                **(
                    {"CPU ledger CPU-s": cpu[build_log.model(log.entry)]}
                    if build_log.model(log.entry) in cpu
                    else {}
                ),
            }
            for log in built.values()
        }
    return Result("ledger", compared, failures, f"{compared} builds timed from events.jsonl", details)
