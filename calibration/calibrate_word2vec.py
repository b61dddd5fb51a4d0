"""Independent training seeds for the word2vec claims (``claims/test_word2vec*.py``): the seed part of their noise.

The suite trains post A's skip-gram once, at the run's seed (42 by default), and judges its WS-353 ρ with the
bootstrap SE over pairs: the evaluation set's noise. A second run at another seed draws other batches and another
initial table, and gives another ρ on the same pairs: the training's noise, which the bootstrap does not see. This
script trains the ``trained``, ``shuffled`` and ``sequential`` models for seeds 1 … N (disjoint from the run's)
through the suite's cache and writes ``calibration/word2vec.json``: per seed and kind the ρ over the covered WS-353
pairs (scored as the claims score it, :func:`llm_claims_lab.word2vec.relatedness.ws353_score`), the paired differences
the controls judge, and their SDs over seeds; the trained ρ after the configuration's snapshot steps (5,000 and
10,000), for the steps sweep; and, for w2v.centre_order, each order's recency gap in post A's loss
(:func:`llm_claims_lab.word2vec.centre_order.recency_gap`) and their paired difference. About 140 CPU-s per model on
one thread; ``--jobs`` trains that many at once, on ``--executor`` (local processes, or a Dask cluster:
:mod:`llm_claims_lab.core.executors`). With ``--device cuda`` it
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
import os
import statistics
import sys
import uuid
from pathlib import Path

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.calibration_files import calibration_path
from llm_claims_lab.core.devices import pin_cuda_numerics, usable_device
from llm_claims_lab.core.executors import add_options, from_options
from llm_claims_lab.word2vec import corpus, ko_eval
from llm_claims_lab.core.analogy import WordList
from llm_claims_lab.core.atomic import write_text_atomic
from llm_claims_lab.data import Store, data_dir, mirror
from llm_claims_lab.word2vec.relatedness import spearman, ws353_score
from llm_claims_lab.word2vec.centre_order import GAP, recency_gap
from llm_claims_lab.word2vec.lab import CALIBRATION, TRAINING_CODE, Word2VecLab

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("trained", "shuffled", "sequential")


def _lab(cache_dir: str, device: str, seeds: list[int]) -> tuple[Word2VecLab, Store]:
    store = Store(data_dir(None), mirror(None))
    weights = cache.WeightCache(Path(cache_dir), run_id=uuid.uuid4().hex,
                                say=lambda m: print(m, file=sys.stderr, flush=True))
    lab = Word2VecLab(corpus.build_corpus(store.corpus()), weights, torch.device(device), kernels="fast", seeds=seeds)
    return lab, store


def _task(cache_dir: str, device: str, kind: str, seed: int) -> dict[str, float]:
    """One task, wherever it runs (:class:`llm_claims_lab.core.executors.Executor`): train (or find in the cache at
    ``cache_dir``, that host's or a shared one) one model on ``device`` (under the suite's numerics on CUDA) and
    return its Spearman ρ on the covered WS-353 pairs: ``{kind: ρ}``, for a trained model its centre table's
    after each snapshot's steps (``trained@<step>``), and for either order its recency gap (``gap <kind>``)."""
    if torch.device(device).type == "cuda":
        pin_cuda_numerics()
    lab, store = _lab(cache_dir, device, [seed])
    vocab = WordList(lab.corpus.vocab, name="the skip-gram vocabulary", hint="particle-stripped stems")
    pairs = ko_eval.load_ws353(ko_eval.eval_dir(None, store) / ko_eval.WS353_FILE)
    model = lab.model(kind)
    rho = {kind: float(spearman(*ws353_score(model.w_in, vocab, pairs)[:2]))}
    if kind == "trained":  # the steps sweep: the same run's centre table after fewer steps
        rho |= {f"trained@{step}": float(spearman(*ws353_score(model.snapshots[step], vocab, pairs)[:2]))
                for step in lab.config.snapshots}
    if kind != "shuffled":
        rho[f"gap {kind}"] = recency_gap(model.w_in, model.w_out, lab.corpus.ids, lab.config)["gap"]
    return rho


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1 … N (default 5)")
    add_options(parser, jobs=2, what="models trained")
    parser.add_argument("--cache-dir", default=os.environ.get("CLAIMS_CACHE_DIR") or ROOT / ".cache" / "claims",
                        help="weights cache (default: $CLAIMS_CACHE_DIR)")
    parser.add_argument("--device", default="cpu",
                        help="torch device (default cpu); writes calibration/word2vec-<device type>.json off the CPU")
    args = parser.parse_args()
    if args.seeds < 2 or args.jobs < 1:
        parser.error("--seeds must be at least 2 (a spread needs two values), --jobs at least 1")
    executor = from_options(parser, args)
    try:
        device = usable_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    out = calibration_path(CALIBRATION, device, ROOT / "calibration")
    if device.type == "cuda":
        pin_cuda_numerics()
    seeds = list(range(1, args.seeds + 1))
    tasks = [(str(args.worker_cache_dir or args.cache_dir), args.device, kind, s) for s in seeds for kind in KINDS]
    found: dict[tuple[str, int], dict[str, float]] = {}
    print(f"calibrate_word2vec: {len(tasks)} models on {executor.describe()}", file=sys.stderr, flush=True)
    try:
        executor.run(_task, tasks, lambda task, rho: found.update({task[2:]: rho}))
    except ImportError as exc:
        sys.exit(f"calibrate_word2vec: {exc}")
    rho = {kind: [found[kind, s][kind] for s in seeds] for kind in KINDS}
    rho["trained − shuffled"] = [t - s for t, s in zip(rho["trained"], rho["shuffled"])]
    gaps = {kind: [found[kind, s][f"gap {kind}"] for s in seeds] for kind in ("trained", "sequential")}
    rho |= {"recency gap: random": gaps["trained"], "recency gap: sequential": gaps["sequential"],
            GAP: [q - r for q, r in zip(gaps["sequential"], gaps["trained"])]}
    lab, _ = _lab(str(args.cache_dir), args.device, seeds)  # its configuration and corpus, for the file; no training
    for step in lab.config.snapshots:
        rho[f"trained@{step}"] = [found["trained", s][f"trained@{step}"] for s in seeds]
    data = {"about": "Spearman ρ on the covered Korean WS-353 pairs of post A's skip-gram for training seeds disjoint "
                     "from the suite's, and (the 'recency gap' entries, not ρ) post A's loss on the oldest stretch "
                     "minus on the last, llm_claims_lab.word2vec.centre_order; regenerate with python "
                     "calibration/calibrate_word2vec.py",
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "torch": torch.__version__,
            "device": cache.describe_device(device), "kernels": lab.config.kernels, "steps": lab.config.steps,
            "training_code": cache.code_digest(TRAINING_CODE),
            "corpus_sha256": lab.corpus.sha256, "seeds": seeds,
            "rho": {k: [float(f"{v:.7g}") for v in vs] for k, vs in rho.items()},  # 7 significant digits
            "sd": {k: statistics.stdev(vs) for k, vs in rho.items()}}
    write_text_atomic(out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out}: " + "; ".join(f"{k} mean {statistics.fmean(v):.3f}, SD {data['sd'][k]:.3f}"
                                       for k, v in rho.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
