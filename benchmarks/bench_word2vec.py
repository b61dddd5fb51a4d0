"""Time the skip-gram fixture's training loop against a plain re-implementation of post A's loop.

Run: ``python benchmarks/bench_word2vec.py [--steps 500] [--device cpu]``. All variants run in this one
process, interleaved over ``--rounds`` rounds, at post A's settings (B=1024, D=100, 8 negatives, V=10,000
on the Korean Wikipedia corpus of llm_claims_lab/data/__init__.py, fetched on first use), on one CPU thread as the fixture
trains; the printed ratios are medians over rounds. Also reports how far each kernel set's tables
(``llm_claims_lab.word2vec.skipgram.KERNELS``) are from the plain loop's after ``--steps`` steps: ``post`` is bit-identical,
``fast`` differs by float rounding.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

from llm_claims_lab.word2vec.corpus import build_corpus
from llm_claims_lab.data import Store, data_dir, mirror
from llm_claims_lab.word2vec.skipgram import SkipGramConfig, train


def post_loop(ids: torch.Tensor, vocab_size: int, steps: int, device: torch.device, seed: int) -> torch.Tensor:
    """Post A's ``word2vec_zero.py`` loop, written plainly (its settings, its draws; ``seed``: post A's is 42)."""
    torch.manual_seed(seed)
    w_in, w_out = nn.Embedding(vocab_size, 100).to(device), nn.Embedding(vocab_size, 100).to(device)
    opt = torch.optim.Adam(list(w_in.parameters()) + list(w_out.parameters()), lr=2e-3)
    ids = ids.to(device)
    for _ in range(steps):
        c = torch.randint(5, len(ids) - 5, (1024,), device=device)
        sign = torch.randint(0, 2, (1024,), device=device) * 2 - 1
        off = torch.randint(1, 6, (1024,), device=device) * sign
        center, ctx = ids[c], ids[c + off]
        neg = torch.randint(0, vocab_size, (1024, 8), device=device)
        vc = w_in(center)
        pos_score = (vc * w_out(ctx)).sum(-1)
        neg_score = torch.bmm(w_out(neg), vc.unsqueeze(-1)).squeeze(-1)
        loss = -(F.logsigmoid(pos_score).mean() + F.logsigmoid(-neg_score).mean())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return w_in.weight.detach()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42, help="seed of both loops (default: post A's 42)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    data = build_corpus(Store(data_dir(None), mirror(None)).corpus())
    vocab_size = len(data.vocab)

    if device.type == "cpu":
        torch.set_num_threads(1)  # as skipgram.train runs on the CPU

    def fixture(kernels: str) -> torch.Tensor:
        cfg = SkipGramConfig(steps=args.steps, kernels=kernels, seed=args.seed)
        return train(data.ids, vocab_size, cfg, device)[0].w_in.weight.detach()

    variants = {"post loop": lambda: post_loop(data.ids, vocab_size, args.steps, device, args.seed),
                "fixture post": lambda: fixture("post"), "fixture fast": lambda: fixture("fast")}
    times: dict[str, list[float]] = {name: [] for name in variants}
    tables: dict[str, torch.Tensor] = {}
    for _ in range(args.rounds):
        for name, run in variants.items():
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            start = time.perf_counter()
            tables[name] = run()
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["post loop"])
    print(f"device {device}, {args.steps} steps, {args.rounds} rounds, torch threads {torch.get_num_threads()}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:20s} {med / args.steps * 1e3:7.2f} ms/step   speed-up vs post loop {base / med:5.2f}x")
    for name in ("fixture post", "fixture fast"):
        diff = (tables[name] - tables["post loop"]).abs().max().item()
        print(f"max |w_in({name}) - w_in(post loop)| after {args.steps} steps: {diff:.3g}")


if __name__ == "__main__":
    main()
