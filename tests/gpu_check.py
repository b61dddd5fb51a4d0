"""The suite's GPU check: what only a CUDA machine can show about the suite's trained rows (issue 31, item 3;
``../shared/device-check/README.md``).

    python tests/gpu_check.py --device cuda --out DIR [--cpu-ledger EVENTS]

Runs the suite itself (``python -m pytest claims/…`` with its own options: ``--claims-device``,
``--claims-cache-dir``, ``--claims-report-dir``, ``--claims-seed``) on the reduced trained set, then six
checks, each of which fails the run when it fails, and a comparison of 0 entries is a failure:

1. ``numerics`` (:mod:`gpu_numerics`, loaded into every pytest process and xdist worker as a plugin): the
   numerics in force, read back from inside each.
2. ``determinism``, 3. ``strict``, 4. ``xdist`` (:mod:`gpu_runs`): two processes at once on fresh caches give
   bitwise-equal weights and equal rows; every build under deterministic algorithms strict, no row errored;
   ``-n 2`` on the warm cache gives the serial rows and builds nothing.
5. ``steps``, 6. ``ledger`` (:mod:`gpu_steps`): host-device syncs and copies per training step (none
   allowed), with wall time and GPU-busy share; seconds per model from the fresh caches' ``events.jsonl``.

What they share (the root, the seed, :class:`gpu_common.Result`) is :mod:`gpu_common`; this module holds the set
trained, the order of the whole check and its command line.

The set on CUDA (:data:`SELECTIONS` ``cuda``): post A's extrapolation rows of the learned, sinusoidal and
relative schemes at seed 42, the skip-gram model of ``w2v.ws353[trained]``, and every heads toy row (5
configurations × 10 seeds). Expected time on one GPU: about 5 minutes (the two fresh runs at once, about 3
minutes, are most of it; a guess until a GPU measures it, printed per phase). On the CPU (``--device cpu``)
the check runs as a dry run on the cheapest selection that still exercises every check (one heads row: 10 toy
models, and the heads trainer's steps): syncs, copies and kernels are then not applicable and are counted
anyway, and the read-back numerics are pinned by the plugin (the suite pins them on CUDA only; on CUDA the
plugin only reads).

Prints one line per check (``PASS``, ``FAIL``) and writes ``DIR/gpu_check.json`` (every check's details and
the environment); exits 0 when every check passed, 1 when one failed, 2 on bad usage (``--device cuda``
without a visible GPU, an ``--out`` that is not empty).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from gpu_common import Result
from gpu_numerics import check_numerics, read_readbacks
from gpu_runs import SuiteRun, check_determinism, check_strict, check_xdist, read_events, start_runs
from gpu_steps import STEP_TRAINERS, check_ledger, profile_steps, step_trainers

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


class UsageError(Exception):
    """The check cannot run as asked (no GPU, a used output directory); one line."""


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
