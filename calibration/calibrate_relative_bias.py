"""Seed noise of the probes of post A's relative bias (``extrap.relative_errors_from_unseen_offsets``,
``extrap.relative_bias_table`` in ``claims/test_extrapolation_mechanisms.py``).

Writes ``calibration/relative_bias.json``: for each calibration seed of the ``relative`` scheme (the seeds of
``calibration/extrapolation.json``, never the suite's 42) the trained bias at offsets −1, +1, ±5 and the offset
where it peaks, and the accuracy at 20 and at 40 with every key at ``|j − i| ≥ train_len`` removed from the
attention (:func:`llm_claims_lab.extrapolation.evaluation.correct_with_offsets_masked`), and per quantity the SD
over seeds.
Nothing is trained when the cache holds the calibration's own weights (the runs behind
``calibration/extrapolation.json``, trained under its ``training_code``); otherwise each seed's protocol run
is trained with today's code (about a minute each on one core). Evaluation only: about 5 s per seed.

Usage, from the repository root::

    python calibration/calibrate_relative_bias.py [--cache-dir DIR] [--device cuda]

``--device cuda`` writes ``calibration/relative_bias-cuda.json``, which then judges the rows of CUDA runs
(without it they are judged with the CPU's file, and say so).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import sys
import uuid
from pathlib import Path

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.atomic import write_text_atomic
from llm_claims_lab.extrapolation import (
    CALIBRATION,
    EVAL_SEQUENCES,
    TRAINING_CODE,
    ExtrapolationLab,
    calibration_path,
    correct_with_offsets_masked,
    initial_model,
    relative_bias_probes,
    relative_probes_path,
)
from llm_claims_lab.core.devices import pin_cuda_numerics, usable_device
from llm_claims_lab.core.host_memory import keep_freed_memory
from llm_claims_lab.core.stats import summary

ROOT = Path(__file__).resolve().parents[1]


def masked_probes(model, seed: int) -> dict[str, float]:
    """Accuracy (%) at the training length, and at ``max_len`` with and without the keys at offsets never
    trained (``|j − i| ≥ train_len``); ``masked_drop`` = masked accuracy at ``max_len`` − accuracy at 20."""
    c = model.config
    acc = lambda L, m: 100 * correct_with_offsets_masked(model, seed, L, m).double().mean().item()  # noqa: E731
    out = {"acc20": acc(c.train_len, None), "acc40": acc(c.max_len, None),
           "acc40_masked": acc(c.max_len, c.train_len - 1)}
    return out | {"masked_drop": out["acc40_masked"] - out["acc20"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", default=os.environ.get("CLAIMS_CACHE_DIR", str(ROOT / ".cache" / "claims")))
    parser.add_argument("--device", default="cpu", help="torch device (default cpu); cuda writes relative_bias-cuda.json")
    args = parser.parse_args()
    keep_freed_memory()  # as the suite's processes do: no value changes, fewer page faults
    try:
        device = usable_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    if device.type == "cuda":
        pin_cuda_numerics()
    here = ROOT / "calibration"
    out = relative_probes_path(device, here)
    own = calibration_path(device, here)
    source = own if own.exists() else here / CALIBRATION  # its seeds and code
    calibration = json.loads(source.read_text(encoding="utf-8"))
    recorded_code = calibration["training_code"]
    weights = cache.WeightCache(Path(args.cache_dir), run_id=uuid.uuid4().hex,
                                say=lambda m: print(m, file=sys.stderr, flush=True))
    lab = ExtrapolationLab(weights, device)
    runs, codes = {}, set()
    for seed in calibration["seeds"]["relative"]:
        today = lab.entry_of("relative", seed)
        recorded = cache.Entry(today.name, {**today.fingerprint, "code": recorded_code}, today.build)
        entry = recorded if weights.path(recorded).exists() else today
        codes.add(entry.fingerprint["code"])
        saved = weights.fetch(entry)
        model, _ = initial_model(dataclasses.replace(lab.config, scheme="relative"), seed)
        step = f"step{lab.config.steps}/"
        model.load_state_dict({k[len(step):]: v for k, v in saved.items() if k.startswith(step)})
        c = model.config
        bias = model.pos.bias.detach()  # [2·max_len − 1]
        runs[seed] = relative_bias_probes(bias, c.max_len, c.train_len) | masked_probes(model, seed)
        print(f"seed {seed}: {runs[seed]}", file=sys.stderr, flush=True)
    quantities = list(next(iter(runs.values())))
    noise = {q: summary([r[q] for r in runs.values()]) for q in quantities}
    data = {"about": "Per-seed probes of post A's trained relative bias (scheme 'relative', protocol of "
                     "calibration/extrapolation.json) and their SD over seeds: the noise of "
                     "extrap.relative_errors_from_unseen_offsets and extrap.relative_bias_table. Regenerate with: "
                     "python calibration/calibrate_relative_bias.py",
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "torch": torch.__version__, "device": cache.describe_device(device), "eval_sequences": EVAL_SEQUENCES,
            "weights_training_code": sorted(codes), "today_training_code": cache.code_digest(TRAINING_CODE),
            "seeds": sorted(runs), "runs": {q: [round(runs[s][q], 6) for s in sorted(runs)] for q in quantities},
            "noise": noise}
    write_text_atomic(out, json.dumps(data, indent=1) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
