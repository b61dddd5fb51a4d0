"""Checks 2–4 of the GPU check (:mod:`gpu_check`): the suite's runs (``python -m pytest claims/…`` with its own
options: ``--claims-device``, ``--claims-cache-dir``, ``--claims-report-dir``, ``--claims-seed``, and the
read-back plugin :mod:`gpu_numerics`), their weights and their rows.

2. ``determinism``: the set trained twice, by two processes at once on two fresh caches: every tensor of every
   safetensors file compared bitwise, every row of the two ``results.json`` compared value by value.
3. ``strict``: every model of the set was built, in each fresh cache, by a process whose read-back says
   deterministic algorithms strict (an op without a deterministic kernel then raises, and its rows error), and
   no row errored.
4. ``xdist``: ``-n 2`` on the warm cache (two CUDA contexts on one GPU) gives the serial rows, row by row, and
   builds nothing (a fingerprint that depended on the process would retrain).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch

from gpu_common import PIN_ENV, READBACK_ENV, ROOT, SEED, Result
from gpu_numerics import read_readbacks

VOLATILE = ("duration_s", "run")  # a row's fields that differ between two runs by construction


def suite_command(
    device: str, selection: Sequence[str], cache: Path, report: Path, *, workers: int = 0
) -> list[str]:
    """The pytest command line of one run of the suite on ``selection``, with :mod:`gpu_numerics` as a plugin."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "gpu_numerics",
        "-p",
        "no:cacheprovider",
        "-q",
        *selection,
        f"--claims-device={device}",
        f"--claims-cache-dir={cache}",
        f"--claims-report-dir={report}",
        f"--claims-seed={SEED}",
        "--claims-seeds=1",
        *(["-n", str(workers)] if workers else ["-p", "no:xdist"]),
    ]


def suite_env(readback: Path, *, pin: bool) -> dict[str, str]:
    """The caller's environment (its data and corpus variables), less an enclosing xdist run's, with
    ``tests/`` importable (``-p gpu_numerics`` and what it imports) and its read-back directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST") and k != PIN_ENV}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), *filter(None, [env.get("PYTHONPATH")])])
    env[READBACK_ENV] = str(readback)
    if pin:
        env[PIN_ENV] = "1"
    return env


@dataclasses.dataclass
class SuiteRun:
    """One run of the suite: where it cached, reported and read back, its exit status and log."""

    name: str
    cache: Path
    report: Path
    readback: Path
    log: Path
    returncode: int | None = None
    wall_s: float = 0.0


def start_runs(
    runs: Sequence[SuiteRun], device: str, selection: Sequence[str], *, workers: int = 0, pin: bool = False
) -> None:
    """Run the suite once per run, all at once (separate processes), and wait for them."""
    procs = []
    for run in runs:
        run.log.parent.mkdir(parents=True, exist_ok=True)
        log = run.log.open("w")
        procs.append(
            (
                run,
                log,
                time.perf_counter(),
                subprocess.Popen(
                    suite_command(device, selection, run.cache, run.report, workers=workers),
                    cwd=ROOT,
                    env=suite_env(run.readback, pin=pin),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                ),
            )
        )
    for run, log, start, proc in procs:
        run.returncode = proc.wait()
        run.wall_s = time.perf_counter() - start
        log.close()


def run_failures(run: SuiteRun) -> list[str]:
    """A run that did not end in rows: pytest's exit status beyond 'some tests failed' (1: a claim against its
    expectation is the report's business, not this check's), or no results.json."""
    failures = []
    if run.returncode not in (0, 1):
        failures.append(f"{run.name}: pytest exited {run.returncode} (see {run.log})")
    if not (run.report / "results.json").exists():
        failures.append(f"{run.name}: wrote no {run.report / 'results.json'} (see {run.log})")
    return failures


def compare_weights(a: Path, b: Path) -> tuple[int, list[str]]:
    """Every tensor of every ``*.safetensors`` in caches ``a`` and ``b``, bitwise (their bytes): the number of
    tensors compared and one line per difference (a file or tensor in one only, a dtype, shape or byte
    differing: how many elements and by how much)."""
    from safetensors.torch import load_file

    files_a, files_b = ({p.name for p in Path(d).glob("*.safetensors")} for d in (a, b))
    failures = [
        f"weights: {name} only in {where}"
        for names, where in ((files_a - files_b, a), (files_b - files_a, b))
        for name in sorted(names)
    ]
    compared = 0
    for name in sorted(files_a & files_b):
        ta, tb = load_file(Path(a) / name), load_file(Path(b) / name)
        failures += [f"weights: {name}: tensor {k} only in one cache" for k in sorted(set(ta) ^ set(tb))]
        for key in sorted(set(ta) & set(tb)):
            x, y = ta[key], tb[key]
            compared += 1
            if x.dtype != y.dtype or x.shape != y.shape:
                failures.append(
                    f"weights: {name}:{key}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
                )
            elif not torch.equal(x.contiguous().view(torch.uint8), y.contiguous().view(torch.uint8)):
                gap = (x.double() - y.double()).abs().max().item()
                failures.append(
                    f"weights: {name}:{key}: {int((x != y).sum())} of {x.numel()} elements differ "
                    f"(max |Δ| {gap})"
                )
    return compared, failures


def read_rows(report: Path) -> dict[str, dict]:
    """The rows of ``report``'s results.json, by id."""
    return {row["id"]: row for row in json.loads((Path(report) / "results.json").read_text())["claims"]}


def compare_rows(a: dict[str, dict], b: dict[str, dict], label: str) -> tuple[int, list[str]]:
    """Rows ``a`` and ``b`` (by id) value by value: every field but :data:`VOLATILE`, as canonical JSON (so
    NaN equals NaN and 0.1 is 0.1). Returns the measured rows compared (a skipped or errored row is not one)
    and one line per difference, per row in one only, and per errored row."""
    failures = [
        f"{label}: row {rid} only in {which}"
        for ids, which in ((a.keys() - b.keys(), "the first"), (b.keys() - a.keys(), "the second"))
        for rid in sorted(ids)
    ]
    compared = 0
    for rid in sorted(a.keys() & b.keys()):
        ra, rb = a[rid], b[rid]
        for side, row in (("first", ra), ("second", rb)):
            if row.get("verdict") == "error":
                failures.append(f"{label}: row {rid} errored in the {side}: {row.get('reason', '')[:200]}")
        for field in sorted((ra.keys() | rb.keys()) - set(VOLATILE)):
            va, vb = (json.dumps(r.get(field), sort_keys=True) for r in (ra, rb))
            if va != vb:
                failures.append(f"{label}: row {rid}: {field} {va[:120]} vs {vb[:120]}")
        compared += ra.get("verdict") not in ("skipped", "error") and rb.get("verdict") not in (
            "skipped",
            "error",
        )
    return compared, failures


def check_determinism(a: SuiteRun, b: SuiteRun) -> Result:
    """Check 2: two fresh-cache runs, weights bitwise and rows value by value (0 tensors or 0 measured rows
    compared fails)."""
    failures = run_failures(a) + run_failures(b)
    tensors, weight_failures = compare_weights(a.cache, b.cache)
    rows, row_failures = (
        compare_rows(read_rows(a.report), read_rows(b.report), f"{a.name} vs {b.name}")
        if not failures
        else (0, [])
    )
    if tensors == 0:
        failures.append("weights: no tensor compared (no safetensors in the caches)")
    if rows == 0 and not failures:
        failures.append("rows: no measured row compared")
    failures += weight_failures + row_failures
    return Result(
        "determinism",
        tensors + rows,
        failures,
        f"{tensors} tensors bitwise, {rows} measured rows value by value, two processes on fresh caches",
        {"tensors": tensors, "rows": rows},
    )


def read_events(cache: Path, *, skip: int = 0) -> list[dict]:
    """The cache's events.jsonl after its first ``skip`` lines (none when absent)."""
    path = Path(cache) / "events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()[skip:] if line.strip()]


def check_strict(runs: Sequence[SuiteRun]) -> Result:
    """Check 3: every build in each fresh cache was made by a process whose every read-back state is
    deterministic-strict; no row errored (an op without a deterministic kernel raises under strict mode, and
    its rows error). 0 builds fails."""
    failures, builds = [], 0
    for run in runs:
        by_pid = {r["pid"]: r for r in read_readbacks(run.readback)}
        for event in read_events(run.cache):
            if event.get("event") != "build":
                continue
            builds += 1
            readback = by_pid.get(event["pid"])
            modes = {s["state"]["deterministic"] for s in readback["states"]} if readback else set()
            if modes != {"strict"}:
                failures.append(
                    f"{run.name}: {event['entry']} built by pid {event['pid']} under deterministic "
                    f"{sorted(modes) or 'unknown (no read-back from that process)'}"
                )
        if (run.report / "results.json").exists():
            failures += [
                f"{run.name}: row {rid} errored: {row.get('reason', '')[:200]}"
                for rid, row in read_rows(run.report).items()
                if row.get("verdict") == "error"
            ]
        failures += run_failures(run)
    return Result(
        "strict",
        builds,
        failures,
        f"{builds} builds, each under use_deterministic_algorithms(True) without warn_only",
        {"builds": builds},
    )


def check_xdist(serial: SuiteRun, parallel: SuiteRun, events_before: int) -> Result:
    """Check 4: ``-n 2`` on the serial run's warm cache gives its rows, row by row, and builds nothing."""
    failures = run_failures(parallel) + run_failures(serial)
    rows = 0
    if not failures:
        rows, row_failures = compare_rows(
            read_rows(serial.report), read_rows(parallel.report), f"{serial.name} vs {parallel.name}"
        )
        failures += row_failures
    built = [e["entry"] for e in read_events(serial.cache, skip=events_before) if e.get("event") == "build"]
    failures += [
        f"{parallel.name}: built {entry} on a warm cache (its fingerprint depends on the process)"
        for entry in built
    ]
    return Result(
        "xdist",
        rows,
        failures,
        f"{rows} measured rows of -n 2 against the serial run's",
        {"rows": rows, "built": built},
    )
