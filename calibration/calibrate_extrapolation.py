"""Calibrate the length-extrapolation claims: run post A's protocol for many seeds and keep every value.

Writes ``calibration/extrapolation.json``: for each scheme and seed, the values the claims measure
(:func:`fixtures.extrapolation.measures`: accuracy at 20, 40 and 80, on seen and new positions, and
attention on the right neighbour), and the relative bias's accuracy at 40 after each budget of
:data:`fixtures.extrapolation.CURVE_STEPS`. ``claims/test_extrapolation.py`` derives its tolerances
from these per-seed values (:class:`fixtures.extrapolation.Calibration`).

Seeds ``1 … N`` are disjoint from the suite's default seed 42, so no tolerance depends on the value it
judges. Models go through the suite's cache (``--cache-dir``, default ``$CLAIMS_CACHE_DIR`` or
``.cache/claims``); ``--jobs 2`` trains in two processes that split the entries.

Usage, from the repository root (10 seeds: about 30 minutes of CPU, split over ``--jobs``)::

    python calibration/calibrate_extrapolation.py --seeds 10 --jobs 2
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from fixtures import cache  # noqa: E402
from fixtures.extrapolation import (  # noqa: E402
    CALIBRATION,
    CURVE_STEPS,
    SCHEMES,
    TRAINING_CODE,
    ExtrapolationConfig,
    ExtrapolationLab,
    mean_ci,
    measures,
)


def _lab(args: argparse.Namespace) -> ExtrapolationLab:
    job = os.environ.get("CALIBRATION_JOB", "0")

    def say(message: str) -> None:
        print(f"[job {job}] {message}", file=sys.stderr, flush=True)

    weights = cache.WeightCache(args.cache_dir, run_id=args.run_id, say=say)
    return ExtrapolationLab(weights, torch.device(args.device))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="number of seeds, 1 … N (default 10)")
    parser.add_argument("--jobs", type=int, default=1, help="training processes (default 1)")
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    default_cache = os.environ.get("CLAIMS_CACHE_DIR") or ROOT / ".cache" / "claims"
    parser.add_argument("--cache-dir", default=default_cache,
                        help="weights cache (default: $CLAIMS_CACHE_DIR, else .cache/claims)")
    parser.add_argument("--out", type=Path, default=CALIBRATION)
    parser.add_argument("--run-id", default=uuid.uuid4().hex, help=argparse.SUPPRESS)
    parser.add_argument("--train-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seeds < 2 or args.jobs < 1:
        parser.error("--seeds must be at least 2 (a spread needs two values) and --jobs at least 1")
    seeds = list(range(1, args.seeds + 1))

    helper = [sys.executable, __file__, *sys.argv[1:], "--run-id", args.run_id, "--train-only"]
    helpers = [subprocess.Popen(helper, env={**os.environ, "CALIBRATION_JOB": str(job)})
               for job in range(1, args.jobs)] if not args.train_only else []
    lab = _lab(args)
    curves = lab.curves(seeds)  # the long runs first, so that the jobs finish together
    runs = lab.runs(SCHEMES, seeds)
    if args.train_only:
        return
    if any(p.wait() for p in helpers):
        sys.exit("a helper job failed; rerun (finished entries stay cached)")

    per_scheme: dict[str, dict[str, list[float]]] = {}
    for run in runs:
        for name, value in measures(run).items():
            per_scheme.setdefault(run.config.scheme, {}).setdefault(name, []).append(round(value, 4))
    curve = {str(s): [round(c[s].total(40), 4) for c in curves] for s in CURVE_STEPS}
    data = {
        "about": "Per-seed values of post A's length-extrapolation protocol; tolerances of "
                 "claims/test_extrapolation.py are derived from them. Regenerate with: python "
                 "calibration/calibrate_extrapolation.py --seeds N --jobs J",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "device": cache.describe_device(args.device),
        "training_code": cache.code_digest(TRAINING_CODE),
        "protocol": {k: v for k, v in dataclasses.asdict(ExtrapolationConfig()).items() if k != "scheme"},
        "seeds": seeds,
        "runs": per_scheme,
        "curve": {"scheme": "relative", "quantity": "acc40", "steps": list(CURVE_STEPS), "values": curve},
        "summary": {scheme: {name: {**mean_ci(v), "std": round(torch.tensor(v).std().item(), 4)}
                             for name, v in values.items()} for scheme, values in per_scheme.items()},
    }
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
