"""The suite's GPU check: what only a CUDA machine can show about the suite's trained rows (issue 31, item 3;
``../shared/device-check/README.md``).

    python tests/gpu_check.py --device cuda --out DIR [--cpu-ledger EVENTS]

Runs the suite itself (``python -m pytest claims/…`` with its own options: ``--claims-device``,
``--claims-cache-dir``, ``--claims-report-dir``, ``--claims-seed``) on the reduced trained set, then six
checks, each of which fails the run when it fails, and a comparison of 0 entries is a failure:

1. ``numerics``: the numerics in force in every pytest process and xdist worker, read back from inside each
   (this module is loaded into them as a pytest plugin, ``-p gpu_check``): TF32 off (``fp32_precision``
   ``ieee`` for matmul, cuDNN conv and rnn, or the legacy ``allow_tf32`` flags off), deterministic algorithms
   strict (no ``warn_only``), cuDNN autotuning off, ``CUBLAS_WORKSPACE_CONFIG`` set, at configure time (before
   any test, so before the first cuBLAS handle) and before every test.
2. ``determinism``: the set trained twice, by two processes at once on two fresh caches: every tensor of every
   safetensors file compared bitwise, every row of the two ``results.json`` compared value by value.
3. ``strict``: every model of the set was built, in each fresh cache, by a process whose read-back says
   deterministic algorithms strict (an op without a deterministic kernel then raises, and its rows error), and
   no row errored.
4. ``xdist``: ``-n 2`` on the warm cache (two CUDA contexts on one GPU) gives the serial rows, row by row, and
   builds nothing (a fingerprint that depended on the process would retrain).
5. ``steps``: per training step of each trainer of the set, host-device syncs and blocking copies
   (``torch.cuda.set_sync_debug_mode("warn")``, its warnings counted), host-to-device copies and kernels
   (``torch.profiler``), wall and host-CPU seconds and the GPU-busy share; counted as the difference between a
   90-step and a 10-step run, a window with no step that logs or saves (every 100th), so setup cancels out. A
   sync or a copy in the window fails the check.
6. ``ledger``: seconds per model from the fresh caches' ``events.jsonl``
   (:mod:`llm_claims_lab.core.build_log`), beside a CPU ledger when one is given; a cache without builds, or
   an entry built twice, fails.

The set on CUDA (:data:`SELECTIONS` ``cuda``): post A's extrapolation rows of the learned, sinusoidal and
relative schemes at seed 42, the skip-gram model of ``w2v.ws353[trained]``, and every heads toy row (5
configurations × 10 seeds). Expected time on one GPU: about 5 minutes (the two fresh runs at once, about 3
minutes, are most of it; a guess until a GPU measures it, printed per phase). On the CPU (``--device cpu``)
the check runs as a dry run on the cheapest selection that still exercises every check (one heads row: 10 toy
models, and the heads trainer's steps): syncs, copies and kernels are then not applicable and are counted
anyway, and the read-back numerics are pinned by this plugin (the suite pins them on CUDA only; on CUDA the
plugin only reads).

Prints one line per check (``PASS``, ``FAIL``) and writes ``DIR/gpu_check.json`` (every check's details and
the environment); exits 0 when every check passed, 1 when one failed, 2 on bad usage (``--device cuda``
without a visible GPU, an ``--out`` that is not empty).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
SEED = 42
# (pytest arguments, what they train), per device. -k, not node ids: a deselected test that uses a lab keeps
# the lab's builds lazy under xdist (fixtures/trained.py), so -n 2 trains nothing the serial rows did not.
SELECTIONS = {
    "cuda": (
        [
            "claims/test_extrapolation.py",
            "claims/test_heads.py",
            "claims/test_word2vec.py",
            "-k",
            "test_learned or test_sinusoidal or test_relative_bias or test_positional_vs_content"
            " or test_add_vs_concat or test_subspaces or test_ws353",
        ],
        "extrapolation learned, sinusoidal, relative (seed 42); skip-gram (w2v.ws353[trained]); heads toy "
        "(5 configurations × 10 seeds)",
    ),
    "cpu": (
        ["claims/test_heads.py", "-k", "positional_head and not control"],
        "heads toy, post B's configuration (10 seeds): the dry run's cheapest trained set",
    ),
}
READBACK_ENV = "GPU_CHECK_READBACK"  # directory each pytest process writes its read-back to
PIN_ENV = "GPU_CHECK_PIN_NUMERICS"  # dry run on the CPU only: the plugin pins what the suite pins on CUDA
CUBLAS_WORKSPACES = (":4096:8", ":16:8")  # the values cuBLAS documents for reproducible results
SYNC_WARNING = "called a synchronizing CUDA operation"  # c10's warning under set_sync_debug_mode("warn")
VOLATILE = ("duration_s", "run")  # a row's fields that differ between two runs by construction
STEP_TRAINERS = {
    "cuda": None,
    "cpu": ("heads",),
}  # every trainer of the set; the dry run's own (the others: 40 CPU-s)
STEP_WINDOW = (10, 90)  # steps of the short and the long run: the window 11–90 holds no 100th step


class UsageError(Exception):
    """The check cannot run as asked (no GPU, a used output directory); one line."""


@dataclasses.dataclass
class Result:
    """One check: ``passed``, ``compared`` (entries it compared: 0 fails), one-line ``summary``, ``failures``
    (one line each), ``details`` (JSON)."""

    name: str
    compared: int
    failures: list[str]
    summary: str
    details: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.compared == 0:
            self.failures.insert(0, f"{self.name}: compared 0 entries")

    @property
    def passed(self) -> bool:
        return not self.failures

    def line(self) -> str:
        head = f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.summary} ({self.compared} compared)"
        return "\n".join([head, *(f"    {f}" for f in self.failures[:20])])


# ---- 1. numerics, read back inside each pytest process (this module as a plugin: -p gpu_check) ----


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


# ---- 2–4. the suite's runs, their weights and their rows ----


def suite_command(
    device: str, selection: Sequence[str], cache: Path, report: Path, *, workers: int = 0
) -> list[str]:
    """The pytest command line of one run of the suite on ``selection``, with this module as a plugin."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "gpu_check",
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
    """The caller's environment (its data and corpus variables), less an enclosing xdist run's, with this
    module importable (``-p gpu_check``) and its read-back directory."""
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


# ---- 5. per training step ----


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


# ---- the whole check ----


def environment(device: torch.device) -> dict:
    """GPU model, SM count, driver, torch / CUDA / cuDNN versions (``torch.utils.collect_env``'s probes)."""
    facts = {"device": device.type, "torch": torch.__version__, "CUDA build": torch.version.cuda}
    if device.type == "cuda":
        from torch.utils import collect_env

        props = torch.cuda.get_device_properties(device)
        facts.update(
            {
                "GPU": props.name,
                "SMs": props.multi_processor_count,
                "compute capability": f"{props.major}.{props.minor}",
                "driver": collect_env.get_nvidia_driver_version(collect_env.run),
                "cuDNN": torch.backends.cudnn.version(),
            }
        )
    return facts


def run_checks(
    device: str, out: Path, *, cpu_events: Path | None = None, say: Callable[[str], None] = print
) -> list[Result]:
    """Every check on ``device`` (``cuda``, or ``cpu`` for the dry run), writing under ``out`` (created; must
    be empty), and ``out/gpu_check.json``.

    Raises: UsageError: ``cuda`` without a visible GPU, or ``out`` not empty.
    """
    dev = torch.device(device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise UsageError(
            f"no CUDA device is visible to torch {torch.__version__} (CUDA build: "
            f"{torch.version.cuda or 'no'}); the GPU check needs one"
        )
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"--out {out} is not empty: the check needs fresh caches")
    selection, what = SELECTIONS[dev.type]
    pin = dev.type == "cpu"
    started = time.perf_counter()
    say(f"gpu_check on {device}: {what}; writing under {out}")
    fresh = [
        SuiteRun(n, out / f"cache-{n}", out / f"report-{n}", out / f"readback-{n}", out / "logs" / f"{n}.log")
        for n in ("a", "b")
    ]
    start_runs(fresh, device, selection, pin=pin)
    say(
        f"  two fresh-cache runs at once: {max(r.wall_s for r in fresh):.0f} s "
        f"(exit {[r.returncode for r in fresh]})"
    )
    events_before = len(read_events(fresh[0].cache))
    parallel = SuiteRun("n2", fresh[0].cache, out / "report-n2", out / "readback-n2", out / "logs" / "n2.log")
    start_runs([parallel], device, selection, workers=2, pin=pin)
    say(f"  -n 2 on the warm cache: {parallel.wall_s:.0f} s (exit {parallel.returncode})")
    if dev.type == "cuda":
        from llm_claims_lab.core.devices import pin_cuda_numerics

        pin_cuda_numerics()  # this process steps the trainers as the suite's processes do
    step_start = time.perf_counter()
    steps = profile_steps(step_trainers(dev, STEP_TRAINERS[dev.type]), dev)
    say(f"  per-step counts: {time.perf_counter() - step_start:.0f} s")
    results = [
        check_numerics(
            {r.name: (read_readbacks(r.readback), {"main"}) for r in fresh}
            | {"n2": (read_readbacks(parallel.readback), {"controller", "gw0", "gw1"})}
        ),
        check_determinism(*fresh),
        check_strict(fresh),
        check_xdist(fresh[0], parallel, events_before),
        steps,
        check_ledger(fresh, cpu_events),
    ]
    report = {
        "environment": environment(dev),
        "selection": selection,
        "wall_s": round(time.perf_counter() - started),
        "checks": {
            r.name: {
                "passed": r.passed,
                "compared": r.compared,
                "summary": r.summary,
                "failures": r.failures,
                "details": r.details,
            }
            for r in results
        },
    }
    (out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
    for r in results:
        say(r.line())
    say(
        f"gpu_check: {sum(r.passed for r in results)} of {len(results)} checks passed in "
        f"{report['wall_s']} s; "
        f"details in {out / 'gpu_check.json'}"
    )
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--device",
        choices=("cuda", "cpu"),
        default="cuda",
        help="cuda: the check; cpu: its dry run on the cheapest set (default: cuda)",
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="an empty or new directory for caches, reports, logs"
    )
    parser.add_argument(
        "--cpu-ledger",
        type=Path,
        default=None,
        metavar="EVENTS",
        help="a CPU cache's events.jsonl, whose CPU-s per model are shown beside the GPU's",
    )
    args = parser.parse_args(argv)
    try:
        results = run_checks(args.device, args.out, cpu_events=args.cpu_ledger)
    except UsageError as exc:
        print(f"gpu_check: {exc}", file=sys.stderr)
        return 2
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
