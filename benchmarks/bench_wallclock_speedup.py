"""How ``ns.wallclock_speedup``'s ratio moves with the machine's load, measured two ways.

Run: ``python benchmarks/bench_wallclock_speedup.py [--busy 0 2 4] [--blocks 5] [--pairs 8]``. For each number of
busy processes (Python spin loops started beside it, killed after), on post A's sizes (V = 10,000, D = 100,
B = 1,024, K = 8; token ids drawn uniformly): the row's statistic (:mod:`llm_claims_lab.word2vec.timing`: the
suite's default kernels, one thread, the thread's CPU time, the shortest step of each kind per block, the mean over
blocks ± its SE) beside the one it replaced (post A's code as written, the median wall time of 20 full-softmax
steps over that of 20 sampled steps, one kind after the other, on torch's default thread pool), with the timing
thread's share of the wall time and how many SDs (of the difference) the statistic lies from its value at the
first ``--busy`` count. On a shared two-core machine, beside two busy processes it read 0.1–3.6 SDs (about 4 %)
below its idle value: the steps' memory-bound part runs slower while the other core is busy.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from llm_claims_lab.core.host_memory import keep_freed_memory
from llm_claims_lab.word2vec.skipgram import SkipGram, SkipGramConfig, sample_batch
from llm_claims_lab.word2vec.timing import time_steps

SPIN = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end:\n    pass\n"


def median_wall_ratio(model: SkipGram, ids: torch.Tensor, cfg: SkipGramConfig, steps: int = 20) -> float:
    """The replaced statistic: median wall time of ``steps`` full-softmax steps over that of ``steps`` sampled ones,
    each kind after 3 warm-up steps, one kind after the other, on torch's thread pool as configured."""
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    medians = []
    for full in (True, False):
        times = []
        for i in range(steps + 3):
            center, ctx, neg = sample_batch(ids, model.w_in.num_embeddings, cfg, torch.device("cpu"))
            start = time.perf_counter()
            loss = (F.cross_entropy(model.w_in(center) @ model.w_out.weight.T, ctx) if full
                    else model.loss(center, ctx, neg))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i >= 3:
                times.append(time.perf_counter() - start)
        medians.append(statistics.median(times))
    return medians[0] / medians[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 2], help="busy processes beside (default 0 2)")
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=8)
    args = parser.parse_args()
    keep_freed_memory()  # as the suite's processes do
    cfg = SkipGramConfig(seed=42)
    torch.manual_seed(cfg.seed)
    ids = torch.randint(0, 10_000, (1_800_000,))  # [N]
    model = SkipGram(10_000, cfg.dim, kernels=cfg.kernels)  # the row's: the suite's default kernels
    print(f"torch threads {torch.get_num_threads()}; {args.blocks} blocks of {args.pairs} pairs")
    first = None  # (ratio, se) at the first --busy count, what the others are compared with
    for busy in args.busy:
        spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(busy)]
        try:
            times = time_steps(model, ids, cfg, torch.device("cpu"), blocks=args.blocks, pairs=args.pairs)
            ratio, se = times.speedup()
            old = median_wall_ratio(SkipGram(10_000, cfg.dim, kernels="post"), ids, cfg)
        finally:
            for p in spinners:
                p.kill()
                p.wait()
        apart = "" if first is None else (
            f", {abs(ratio - first[0]) / math.hypot(se, first[1]):.1f} SDs from {args.busy[0]} busy")
        first = first or (ratio, se)
        print(f"{busy} busy: row's statistic {ratio:.2f}× ± {se:.2f} (thread's share {times.share:.0%}{apart}); "
              f"median wall-time ratio, default threads {old:.2f}×", flush=True)


if __name__ == "__main__":
    main()
