"""Independent training seeds for the word2vec claims (``claims/test_word2vec*.py``): the seed part of their noise.

The suite trains post A's skip-gram once, at the run's seed (42 by default), and judges its WS-353 ρ with the
bootstrap SE over pairs: the evaluation set's noise. A second run at another seed draws other batches and another
initial table, and gives another ρ on the same pairs: the training's noise, which the bootstrap does not see. This
script trains the ``trained`` and ``shuffled`` models for seeds 1 … N (disjoint from the run's) through the suite's
cache and writes ``calibration/word2vec.json``: per seed and kind the ρ over the covered WS-353 pairs (scored as the
claims score it, :func:`llm_claims_lab.word2vec.relatedness.ws353_score`), the paired differences the controls judge, and
their SDs over seeds; and the trained ρ after the configuration's snapshot steps (5,000 and 10,000), for the steps
sweep. About 250 CPU-s per model on one thread; ``--jobs`` trains that many at once. With ``--device cuda`` it
trains on the GPU, under the suite's pinned numerics, and writes ``calibration/word2vec-cuda.json``, which judges the
word2vec rows of a run on CUDA once committed (until then they are judged by ``word2vec.json`` and say so:
:func:`llm_claims_lab.word2vec.lab.seed_noise_for`).

Usage, from the repository root (the data as the suite finds it: ``$CLAIMS_DATA_DIR``, ``$CLAIMS_DATA_MIRROR``)::

    python calibration/calibrate_word2vec.py [--seeds 5] [--jobs 2] [--device cuda]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import os
import statistics
import sys
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.calibration_files import calibration_path
from llm_claims_lab.core.devices import pin_cuda_numerics, usable_device
from llm_claims_lab.word2vec import corpus, ko_eval
from llm_claims_lab.core.analogy import WordList
from llm_claims_lab.core.atomic import write_text_atomic
from llm_claims_lab.data import Store, data_dir, mirror
from llm_claims_lab.word2vec.relatedness import spearman, ws353_score
from llm_claims_lab.word2vec.lab import CALIBRATION, TRAINING_CODE, Word2VecLab

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("trained", "shuffled")


def _lab(cache_dir: str, device: str, seeds: list[int]) -> tuple[Word2VecLab, Store]:
    store = Store(data_dir(None), mirror(None))
    weights = cache.WeightCache(Path(cache_dir), run_id=uuid.uuid4().hex,
                                say=lambda m: print(m, file=sys.stderr, flush=True))
    lab = Word2VecLab(corpus.build_corpus(store.corpus()), weights, torch.device(device), kernels="fast", seeds=seeds)
    return lab, store


def _train(cache_dir: str, device: str, kind: str, seed: int) -> None:
    """Train (or find) one model in the cache on ``device`` (under the suite's numerics on CUDA); a worker
    process's task."""
    if torch.device(device).type == "cuda":
        pin_cuda_numerics()
    _lab(cache_dir, device, [seed])[0].model(kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1 … N (default 5)")
    parser.add_argument("--jobs", type=int, default=2, help="models trained at once (default 2)")
    parser.add_argument("--cache-dir", default=os.environ.get("CLAIMS_CACHE_DIR") or ROOT / ".cache" / "claims",
                        help="weights cache (default: $CLAIMS_CACHE_DIR)")
    parser.add_argument("--device", default="cpu",
                        help="torch device (default cpu); writes calibration/word2vec-<device type>.json off the CPU")
    args = parser.parse_args()
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (a spread needs two values)")
    try:
        device = usable_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    out = calibration_path(CALIBRATION, device, ROOT / "calibration")
    if device.type == "cuda":
        pin_cuda_numerics()
    seeds = list(range(1, args.seeds + 1))
    # CUDA cannot start in a forked child of a process that touched it: workers off the CPU are spawned
    context = None if device.type == "cpu" else multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
        tasks = [(str(args.cache_dir), args.device, kind, s) for s in seeds for kind in KINDS]
        list(pool.map(_train, *zip(*tasks)))
    lab, store = _lab(str(args.cache_dir), args.device, seeds)
    vocab = WordList(lab.corpus.vocab, name="the skip-gram vocabulary", hint="particle-stripped stems")
    pairs = ko_eval.load_ws353(ko_eval.eval_dir(None, store) / ko_eval.WS353_FILE)
    def rho_of(table: torch.Tensor) -> float:
        return spearman(*ws353_score(table, vocab, pairs)[:2])

    rho = {kind: [rho_of(m.w_in) for m in lab.models(kind)] for kind in KINDS}
    rho["trained − shuffled"] = [t - s for t, s in zip(rho["trained"], rho["shuffled"])]
    for step in lab.config.snapshots:  # the steps sweep: the same runs' centre tables after fewer steps
        rho[f"trained@{step}"] = [rho_of(m.snapshots[step]) for m in lab.models("trained")]
    data = {"about": "Spearman ρ on the covered Korean WS-353 pairs of post A's skip-gram for training seeds disjoint "
                     "from the suite's; regenerate with python calibration/calibrate_word2vec.py",
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "torch": torch.__version__,
            "device": cache.describe_device(device), "kernels": lab.config.kernels, "steps": lab.config.steps,
            "training_code": cache.code_digest(TRAINING_CODE),
            "corpus_sha256": lab.corpus.sha256, "seeds": seeds,
            "rho": {k: [round(v, 6) for v in vs] for k, vs in rho.items()},
            "sd": {k: statistics.stdev(vs) for k, vs in rho.items()}}
    write_text_atomic(out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out}: " + "; ".join(f"{k} mean {statistics.fmean(v):.3f}, SD {data['sd'][k]:.3f}"
                                       for k, v in rho.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
