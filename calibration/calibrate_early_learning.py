"""Calibrate the early learning curves of ``extrap.sin_relative_rule_learned_faster`` (post B's 'easy to learn').

For each seed ``1 … N`` (disjoint from the suite's 42) and each of
:data:`~llm_claims_lab.extrapolation.EARLY_SCHEMES` (sinusoidal PE and the learned table): post A's protocol
trained :data:`~llm_claims_lab.extrapolation.EARLY_STEPS`'s last step count, its accuracy at length 20 after each
early step. The weights at each step are those of the suite's steps-sweep run at that step (a checkpoint does not
depend on later ones). Writes the per-seed curves into the ``early_learning`` section of
``calibration/extrapolation.json`` (the rest of the file is kept); the row's noise is the SD of the paired
difference of the curves' areas (:meth:`llm_claims_lab.extrapolation.Calibration.early_area_diff_sd`).

Usage, from the repository root (about 5 minutes on two cores)::

    python calibration/calibrate_early_learning.py --seeds 20 --jobs 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import uuid
from pathlib import Path

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.atomic import write_text_atomic
from llm_claims_lab.core.devices import pin_cuda_numerics, usable_device
from llm_claims_lab.core.executors import add_options, from_options
from llm_claims_lab.core.host_memory import keep_freed_memory
from llm_claims_lab.extrapolation import (EARLY_SCHEMES, EARLY_STEPS, TRAINING_CODE, ExtrapolationLab, calibration_path,
                                          early_accuracies)

ROOT = Path(__file__).resolve().parents[1]


def curve_task(cache_dir: str, device: str, run_id: str, scheme: str, seed: int) -> list[float]:
    """One seed's early learning curve of ``scheme`` on ``device``: accuracy at 20 (%) after each early step,
    rounded to 6 decimals; trained (or loaded) through the weight cache at ``cache_dir``."""
    keep_freed_memory()  # as the suite's processes do: no value changes, fewer page faults
    if torch.device(device).type == "cuda":
        pin_cuda_numerics()
    lab = ExtrapolationLab(cache.WeightCache(Path(cache_dir), run_id=run_id), torch.device(device))
    return [round(acc, 6) for acc in early_accuracies(lab.early_curves(scheme, [seed])[0], 20)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="number of seeds, 1 … N (default 20)")
    add_options(parser, jobs=1, what="tasks trained and evaluated")
    default_cache = os.environ.get("CLAIMS_CACHE_DIR") or ROOT / ".cache" / "claims"
    parser.add_argument("--cache-dir", default=default_cache,
                        help="weights cache (default: $CLAIMS_CACHE_DIR, else .cache/claims)")
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the calibration file whose early_learning section is written (default: "
                             "calibration/extrapolation.json on the CPU, extrapolation-<device type>.json elsewhere)")
    args = parser.parse_args()
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (a spread needs two values)")
    try:
        usable_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    args.out = args.out or calibration_path(args.device, ROOT / "calibration")
    try:
        data = json.loads(args.out.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        sys.exit(f"{args.out}: cannot read the calibration ({type(exc).__name__}: {exc}); run "
                 "calibration/calibrate_extrapolation.py first")
    curves: dict[tuple[str, int], list[float]] = {}
    tasks = [(str(args.worker_cache_dir or args.cache_dir), args.device, uuid.uuid4().hex, scheme, seed)
             for seed in range(1, args.seeds + 1) for scheme in EARLY_SCHEMES]

    def keep(task: tuple, values: list[float]) -> None:
        curves[task[-2:]] = values
        print(f"measured {task[-2]} seed {task[-1]}", file=sys.stderr, flush=True)

    from_options(parser, args).run(curve_task, tasks, keep)
    data["early_learning"] = {
        "about": "Accuracy at 20 (%) after each early step, per scheme and calibration seed (one list per seed); "
                 "written by calibration/calibrate_early_learning.py",
        "steps": list(EARLY_STEPS), "seeds": list(range(1, args.seeds + 1)),
        "code": cache.code_digest(TRAINING_CODE), "torch": torch.__version__,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "acc20": {scheme: [curves[scheme, seed] for seed in range(1, args.seeds + 1)] for scheme in EARLY_SCHEMES}}
    write_text_atomic(args.out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote the early_learning section of {args.out}: {args.seeds} seeds of {', '.join(EARLY_SCHEMES)}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
