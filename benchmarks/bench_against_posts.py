"""What the suite's builds cost against the posts' own scripts, for the same claims, in one run.

The posts' side: plain re-implementations of post A's loops at its protocol and torch's default threads, as the
post runs them: exp. 3's extrapolation duel (``pe_probe.py --exp extrapolate``: learned, sinusoidal and relative
bias, 3,000 Adam steps each, 4,096 evaluation sequences at lengths 20 and 40: ``bench_extrapolation.plain``) and
exp. 1's skip-gram loop (``word2vec_zero.py``: 20,000 steps of B = 1,024, 8 negatives: ``bench_word2vec.post_loop``).
The suite's side: the builds its fixtures make for the same claims from a cold cache (a fresh temporary one): the
three schemes' steps-sweep training (6,000 steps, the 3,000-step checkpoint being the protocol's run) and their
evaluations at every length the duel's rows read (16,384 sequences each, on one thread), and the trained skip-gram
table (20,000 steps, snapshots kept). The two sides alternate (extrapolation suite, extrapolation post, skip-gram
suite, skip-gram post) so that load from other processes falls on both. Prints each side's seconds and the ratio
suite / posts. The suite measures more than the posts (the sweep's extra 3,000 steps, four times the evaluation
sequences) with faster steps (one thread, fused kernels: ``bench_extrapolation.py`` and ``bench_word2vec.py`` time the
steps alone).

Usage, from the repository root (about 12 minutes on two cores; the word2vec data is fetched on first use)::

    python benchmarks/bench_against_posts.py
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
import uuid

import torch
from bench_extrapolation import plain as plain_extrapolation
from bench_word2vec import post_loop as plain_word2vec

from llm_claims_lab.core.cache import WeightCache
from llm_claims_lab.core.host_memory import keep_freed_memory
from llm_claims_lab.data import Store, data_dir, mirror
from llm_claims_lab.extrapolation import POST_SCHEMES, SWEPT_SCHEMES, ExtrapolationConfig, ExtrapolationLab
from llm_claims_lab.word2vec.corpus import build_corpus
from llm_claims_lab.word2vec.lab import Word2VecLab
from llm_claims_lab.word2vec.skipgram import SkipGramConfig

SEED = 42  # the posts' and the suite's


def suite_extrapolation(weights: WeightCache) -> None:
    """The duel's builds as the suite's fixture makes them: each post scheme trained through the steps sweep (when
    swept), its protocol checkpoint evaluated at every length the rows read."""
    lab = ExtrapolationLab(weights, torch.device("cpu"), sweep=SWEPT_SCHEMES)
    for run in lab.runs(POST_SCHEMES, [SEED]):
        for L in run.config.eval_lens:
            run.total(L)  # evaluates (and caches) that length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the word2vec data directory (default: the user cache)")
    parser.add_argument("--mirror", default=None, help="a mirror of the word2vec data (default: the network)")
    args = parser.parse_args()
    keep_freed_memory()  # as the suite's processes do
    threads = torch.get_num_threads()  # the posts run on torch's default; the suite's steps pin one thread
    data = build_corpus(Store(data_dir(args.data_dir), mirror(args.mirror)).corpus())
    seconds = {"suite": {}, "posts": {}}
    with tempfile.TemporaryDirectory(prefix="bench-against-posts-") as root:
        weights = WeightCache(root, run_id=uuid.uuid4().hex)
        start = time.perf_counter()
        suite_extrapolation(weights)
        seconds["suite"]["extrapolation"] = time.perf_counter() - start
        start = time.perf_counter()
        for scheme in POST_SCHEMES:
            plain_extrapolation(dataclasses.replace(ExtrapolationConfig(), scheme=scheme), SEED)
        seconds["posts"]["extrapolation"] = time.perf_counter() - start
        start = time.perf_counter()
        Word2VecLab(data, weights, torch.device("cpu"), kernels="fast", seeds=[SEED]).model("trained")
        seconds["suite"]["skip-gram"] = time.perf_counter() - start
        start = time.perf_counter()
        plain_word2vec(data.ids, len(data.vocab), SkipGramConfig(seed=SEED).steps, torch.device("cpu"), SEED)
        seconds["posts"]["skip-gram"] = time.perf_counter() - start
    print(f"post A's protocol, seed {SEED}; the posts' loops on {threads} torch threads, the suite's steps on 1")
    for part in ("extrapolation", "skip-gram"):
        suite, posts = seconds["suite"][part], seconds["posts"][part]
        print(f"  {part:13s} suite {suite:7.1f} s   posts {posts:7.1f} s   suite / posts {suite / posts:.2f}×")
    suite, posts = sum(seconds["suite"].values()), sum(seconds["posts"].values())
    print(f"  {'both':13s} suite {suite:7.1f} s   posts {posts:7.1f} s   suite / posts {suite / posts:.2f}×")


if __name__ == "__main__":
    main()
