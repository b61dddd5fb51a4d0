""":func:`llm_claims_lab.word2vec.timing.time_steps`, which ``ns.wallclock_speedup`` times its steps with, leaves the
caller's state as it found it. How its ratio moves with the machine's load is a measurement, not a test:
``python benchmarks/bench_wallclock_speedup.py --busy 0 2`` prints it alone and beside two busy processes."""

from __future__ import annotations

import pytest
import torch

from llm_claims_lab.word2vec.skipgram import SkipGram, SkipGramConfig
from llm_claims_lab.word2vec.timing import time_steps


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
