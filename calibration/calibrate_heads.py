"""Independent seeds for the heads toy: every row of ``claims/test_heads.py``.

The suite judges the mean over the run's 10 seeds (42 … 51 by default); this script trains the same
configurations for seeds 1 … N, disjoint from them, and writes ``calibration/heads.json``: per seed the value of
every heads row (:data:`llm_claims_lab.heads.rows.ROWS`, the claims' own definition), from which each row takes
its noise, and the mean and SD of each. A row whose expectation is revised to a finding cites these seeds, never
the values it judges. Models go through the suite's cache (``--cache-dir``, default ``$CLAIMS_CACHE_DIR`` or
``.cache/claims``); 1–4 CPU-s per model, five configurations per seed. The file also records each
configuration's CPU-seconds per model (the mean over the builds of these seeds' models in the cache's build log,
``events.jsonl``, this run's or an earlier one's): what a row that these seeds cannot decide states as the cost of
the seeds that would. With ``--device cuda`` it trains on the GPU, under the suite's pinned numerics, and writes
``calibration/heads-cuda.json``, which judges the heads rows of a run on CUDA once committed (until then they are
judged by ``heads.json`` and say so: :meth:`llm_claims_lab.heads.rows.HeadsCalibration.for_device`).

Usage, from the repository root::

    python calibration/calibrate_heads.py [--seeds 40] [--device cuda]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import uuid
from pathlib import Path

import torch

from llm_claims_lab.core import build_log, cache
from llm_claims_lab.core.calibration_files import calibration_path
from llm_claims_lab.core.atomic import write_text_atomic
from llm_claims_lab.core.devices import pin_cuda_numerics, usable_device
from llm_claims_lab.core.host_memory import keep_freed_memory
from llm_claims_lab.heads.lab import CALIBRATION, TRAINING_CODE, HeadsLab, entry
from llm_claims_lab.heads.rows import ROWS, configuration_name, configurations, per_seed

ROOT = Path(__file__).resolve().parents[1]


def cpu_s_per_model(weights: cache.WeightCache, lab: HeadsLab) -> dict[str, float]:
    """Per configuration the rows read, the mean CPU-seconds of one model's build, over the builds of ``lab``'s
    models that the cache's event log records.

    Raises:
        SystemExit: a configuration none of whose models' builds is in the log (its models came from a cache
            whose log is gone): rerun with an empty ``--cache-dir``.
    """
    builds = build_log.read(weights.root / "events.jsonl")
    costs = {}
    for config in {c for row in ROWS for c in configurations(row)}:
        logs = [builds.get(entry(config, seed, lab.device).key) for seed in lab.seeds]
        cpu = [log.cpu_s / log.builds for log in logs if log is not None and log.builds]
        if not cpu:
            raise SystemExit(f"calibrate_heads: no build of a {configuration_name(config)} model is in "
                             f"{weights.root / 'events.jsonl'}, so its cost is unknown; rerun with an empty --cache-dir")
        costs[configuration_name(config)] = round(statistics.fmean(cpu), 2)
    return dict(sorted(costs.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=40, help="seeds 1 … N (default 40)")
    default_cache = os.environ.get("CLAIMS_CACHE_DIR") or ROOT / ".cache" / "claims"
    parser.add_argument("--cache-dir", default=default_cache, help="weights cache (default: $CLAIMS_CACHE_DIR)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write (default: calibration/heads.json; heads-<device type>.json off the CPU)")
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    args = parser.parse_args()
    keep_freed_memory()  # as the suite's processes do: no value changes, fewer page faults
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (a spread needs two values)")
    weights = cache.WeightCache(Path(args.cache_dir), run_id=uuid.uuid4().hex,
                                say=lambda m: print(m, file=sys.stderr, flush=True))
    try:
        device = usable_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    args.out = args.out or calibration_path(CALIBRATION, device, ROOT / "calibration")
    if device.type == "cuda":
        pin_cuda_numerics()
    lab = HeadsLab(weights, device, seeds=range(1, args.seeds + 1))
    values = {row: [round(v, 6) for v in per_seed(lab, row)] for row in ROWS}
    data = {"about": "Per-seed values of every heads row (llm_claims_lab/heads/rows.py) for seeds disjoint from the "
                     "suite's; regenerate with python calibration/calibrate_heads.py",
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "torch": torch.__version__,
            "device": cache.describe_device(device), "training_code": cache.code_digest(TRAINING_CODE),
            "seeds": lab.seeds, "per_seed": values, "cpu_s_per_model": cpu_s_per_model(weights, lab),
            "summary": {row: {"mean": statistics.fmean(v), "sd": statistics.stdev(v)} for row, v in values.items()}}
    write_text_atomic(args.out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: " + "; ".join(f"{k} {v['mean']:+.3g} (SD {v['sd']:.3g})"
                                           for k, v in data["summary"].items()), file=sys.stderr)


if __name__ == "__main__":
    main()
