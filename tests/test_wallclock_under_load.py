"""``ns.wallclock_speedup`` measures the algorithm, not the machine's load: its ratio (per block of steps, the
shortest full-softmax step over the shortest sampled step, one thread, the thread's CPU time; the mean over blocks,
its noise their spread: :mod:`llm_claims_lab.word2vec.timing`) taken while two busy processes run beside it stays
within 3 noise SDs of the ratio taken without them, both measured in this test. Before, the row's ratio of median
wall times went from 14.1× alone to 1.0× beside other work (torch's thread pool oversubscribed; here, beside one
busy two-thread torch process on two cores, it read 1.2× in one try and 18.8× in the next, the row's statistic
18.1 ± 0.6 against 19.0 ± 0.2 alone).

The steps are post A's at its sizes (V = 10,000, D = 100, B = 1,024, K = 8), computed with the suite's default
kernels as the row computes them, on token ids drawn uniformly (the time of a step does not depend on which ids it
reads); about 10 s alone and 15 s under load on two cores. What remains of the load: the memory-bound part of a step
runs slower while the other core is busy, so on two cores the loaded ratio reads about 4 % lower (0.1–2.9 SDs apart
in 8 tries on a shared two-core machine). Where more than the two processes are busy (the timing thread then gets less
than its fair share of a core, and sharing a core with a process that works through memory costs its steps 10–20 %
more), the test skips, saying so.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
import torch

from llm_claims_lab.word2vec.skipgram import SkipGram, SkipGramConfig
from llm_claims_lab.word2vec.timing import StepTimes, time_steps

BUSY_FOR_S = 300  # each busy process ends itself after this long, should the test die before killing it
SPIN = f"import time\nend = time.monotonic() + {BUSY_FOR_S}\nwhile time.monotonic() < end:\n    pass\n"


def _steps(seed: int) -> StepTimes:
    """:func:`time_steps` of post A's model at its sizes, on ids drawn from ``seed``."""
    cfg = SkipGramConfig(seed=seed)
    torch.manual_seed(seed)
    ids = torch.randint(0, 10_000, (1_800_000,))  # [N], about the corpus's length
    return time_steps(SkipGram(10_000, cfg.dim, kernels=cfg.kernels), ids, cfg, torch.device("cpu"))


@pytest.mark.slow
def test_speedup_under_two_busy_processes_stays_within_its_noise() -> None:
    """The row's measurement (5 blocks of 8 pairs) alone, then beside two busy processes; their difference within
    3 SDs of the difference (each measurement's noise as the row reports it). Run serially
    (``pytest tests/test_wallclock_under_load.py``): under xdist the other workers are load this test does not
    control, so its 'alone' is not alone."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("run serially: under xdist the other workers' load is not the two controlled busy processes")
    alone, alone_se = _steps(42).speedup()
    busy = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(2)]
    try:
        loaded = _steps(42)
        assert all(p.poll() is None for p in busy), "a busy process ended before the loaded measurement did"
    finally:
        for p in busy:
            p.kill()
            p.wait()
    cores = len(os.sched_getaffinity(0))
    fair = min(1.0, cores / 3)  # the timing thread's share of the wall time beside two busy processes, nothing else
    if loaded.share < 0.85 * fair:
        pytest.skip(f"other work holds the cores: beside the two busy processes the timing thread ran "
                    f"{loaded.share:.0%} of the wall time, not the {fair:.0%} of {cores} cores shared by 3; the "
                    "comparison needs a machine where nothing else is busy (run this test alone)")
    beside, beside_se = loaded.speedup()
    noise = math.hypot(alone_se, beside_se)  # SD of the difference of two independent measurements
    assert abs(beside - alone) <= 3 * noise, (
        f"under two busy processes {beside:.2f}× ± {beside_se:.2f}, alone {alone:.2f}× ± {alone_se:.2f}: "
        f"{abs(beside - alone) / noise:.1f} SDs apart")


def test_time_steps_restores_the_thread_count_and_interleaves() -> None:
    """The caller's thread count is restored after timing; as many steps of each kind as asked, on copies of the
    model."""
    cfg = SkipGramConfig(seed=0, batch=8)
    before = torch.get_num_threads()
    model = SkipGram(50, 4)
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    times = time_steps(model, torch.randint(0, 50, (200,)), cfg, torch.device("cpu"), blocks=2, pairs=3, warmup=1)
    assert torch.get_num_threads() == before
    assert times.full.shape == times.sampled.shape == (2, 3) and (times.full > 0).all()
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in weights.items())  # the steps ran on copies
    with pytest.raises(ValueError, match="at least 2 blocks"):
        time_steps(model, torch.randint(0, 50, (200,)), cfg, torch.device("cpu"), blocks=1)
