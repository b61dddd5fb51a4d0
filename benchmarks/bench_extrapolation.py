"""Time the extrapolation fixture against a plain re-implementation of post A's loop, in one run.

Both sides run post A's protocol (exp. 3 ``pe_probe.py --exp extrapolate``) for the post's three schemes
and seed 42: the same initial weights, batches and evaluation batches. The plain side is the post's
loop as written: global generator, the step-by-step forward (:meth:`ExtrapolationModel.forward_plain`),
torch's default thread count. The fixture side is :class:`llm_claims_lab.extrapolation.runs.ExtrapolationLab`
on a fresh cache (the cold path: train, store, load, evaluate). Schemes alternate between the two sides,
so that load from other processes falls on both. Prints wall seconds per side, their ratio, and the
accuracies each side measured (equal up to float rounding of the reassociated sums).

Usage, from the repository root::

    python benchmarks/bench_extrapolation.py              # full protocol, 3000 steps (≈ 10 min on 2 cores)
    python benchmarks/bench_extrapolation.py --steps 300  # quicker; the ratio is nearly the same
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
import uuid

import torch
import torch.nn.functional as F

from llm_claims_lab.core.cache import WeightCache
from llm_claims_lab.extrapolation import (POST_SCHEMES, ExtrapolationConfig, ExtrapolationLab,
                                          ExtrapolationModel)


@torch.no_grad()
def _accuracy(model: ExtrapolationModel, L: int) -> float:
    x = torch.randint(0, 50, (4096, L))  # [N, L], from the global stream, as the post
    return 100 * (model.forward_plain(x)[:, :-1].argmax(-1) == x[:, 1:]).float().mean().item()


def plain(config: ExtrapolationConfig, seed: int) -> dict[int, float]:
    """Post A's script, for one scheme: accuracy (%) at 20 and 40."""
    torch.manual_seed(seed)
    model = ExtrapolationModel(config)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    for _ in range(config.steps):
        x = torch.randint(0, config.vocab_size, (config.batch_size, config.train_len))  # [B, T]
        y = model.forward_plain(x)[:, :-1]  # [B, T − 1, V]
        loss = F.cross_entropy(y.reshape(-1, config.vocab_size), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {L: _accuracy(model, L) for L in (config.train_len, config.max_len)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3000, help="training steps, both sides (default: 3000)")
    parser.add_argument("--plain-threads", type=int, default=torch.get_num_threads(),
                        help="torch threads of the plain loop (default: torch's default, as the post)")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    config = ExtrapolationConfig(steps=args.steps)
    torch.set_num_threads(args.plain_threads)  # the fixture runs on one thread whatever this is
    with tempfile.TemporaryDirectory() as cache_dir:
        weights = WeightCache(cache_dir, run_id=uuid.uuid4().hex)
        lab = ExtrapolationLab(weights, torch.device("cpu"), config=config)
        seconds = {"plain": 0.0, "fixture": 0.0}
        rows = []
        for scheme in POST_SCHEMES:
            start = time.perf_counter()
            ours = lab.run(scheme, args.seed)
            seconds["fixture"] += time.perf_counter() - start
            start = time.perf_counter()
            theirs = plain(dataclasses.replace(config, scheme=scheme), args.seed)
            seconds["plain"] += time.perf_counter() - start
            rows.append((scheme, theirs, {L: ours.total(L) for L in theirs}))
        start = time.perf_counter()
        ExtrapolationLab(weights, torch.device("cpu"), config=config).runs(POST_SCHEMES, [args.seed])
        warm = time.perf_counter() - start
    print(f"post A's protocol, {args.steps} steps, seed {args.seed}, schemes {', '.join(POST_SCHEMES)}; "
          f"plain loop on {args.plain_threads} torch threads, fixture on 1")
    for scheme, theirs, ours in rows:
        print(f"  {scheme:11s} accuracy at 20 / 40: plain {theirs[20]:6.2f} / {theirs[40]:6.2f} %"
              f"   fixture {ours[20]:6.2f} / {ours[40]:6.2f} %")
    print(f"plain loop: {seconds['plain']:7.1f} s")
    print(f"fixture   : {seconds['fixture']:7.1f} s cold (train + store + evaluate), {warm:.1f} s warm")
    print(f"ratio     : {seconds['plain'] / seconds['fixture']:.1f}× faster (cold)")


if __name__ == "__main__":
    main()
