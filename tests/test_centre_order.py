"""The centre orders of skip-gram's sampler and the recency gap that w2v.centre_order judges
(:mod:`llm_claims_lab.word2vec.centre_order`): the ordered sampler walks the corpus in order and wraps, the random
order's draws are post A's as before, the stretches are the ones the ordered run trained last and longest ago, and the
stretch loss is post A's loss on those positions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from llm_claims_lab.word2vec import centre_order, skipgram
from llm_claims_lab.word2vec.centre_order import EVAL_SEED, recency_gap, stretch_loss, stretches

CPU = torch.device("cpu")
N, V = 60, 12  # a toy corpus: 50 centre positions (window 5), so a few steps of 16 wrap around
TOY = skipgram.SkipGramConfig(seed=0, batch=16, steps=7, dim=4, snapshots=(), centre_order="sequential")


def test_the_ordered_sampler_walks_the_corpus_in_order_and_wraps() -> None:
    positions = torch.arange(N)  # [N]: each id its own position
    taken = torch.cat([skipgram.sample_batch(positions, V, TOY, CPU, step)[0] for step in range(1, TOY.steps + 1)])
    cycle = torch.arange(TOY.window, N - TOY.window)  # [50]
    assert torch.equal(taken, cycle.repeat(3)[:TOY.steps * TOY.batch])


def test_the_random_order_draws_post_As_stream() -> None:
    """Post A's four draws, in its order, from the seeded global stream: the order option leaves them as they were."""
    ids, cfg = torch.arange(N), dataclasses.replace(TOY, centre_order="random")
    torch.manual_seed(3)
    got = skipgram.sample_batch(ids, V, cfg, CPU, step=5)
    torch.manual_seed(3)
    c = torch.randint(cfg.window, N - cfg.window, (cfg.batch,))
    sign = torch.randint(0, 2, (cfg.batch,)) * 2 - 1
    off = torch.randint(1, cfg.window + 1, (cfg.batch,)) * sign
    want = (c, c + off, torch.randint(0, V, (cfg.batch, cfg.negatives)))
    assert all(torch.equal(a, b) for a, b in zip(got, want))


def test_an_unknown_order_is_refused() -> None:
    with pytest.raises(ValueError, match="centre_order must be one of"):
        skipgram.SkipGramConfig(seed=0, centre_order="shuffled")


def test_the_stretches_are_those_trained_last_and_longest_ago() -> None:
    found = stretches(N, TOY)
    cycle = torch.arange(TOY.window, N - TOY.window).repeat(4)
    taken = cycle[:TOY.steps * TOY.batch]  # every centre of the run, in order: 112 = 2 passes and 12
    assert torch.equal(found["last"], taken[-5:])  # a tenth of 50
    assert torch.equal(found["oldest"], cycle[TOY.steps * TOY.batch:][:5])  # the next five the order would take
    with pytest.raises(ValueError, match="fewer than 10"):
        stretches(2 * TOY.window + 9, TOY)


def test_the_stretch_loss_is_post_As_loss_on_those_positions() -> None:
    ids = torch.randint(0, V, (N,), generator=torch.Generator().manual_seed(1))
    torch.manual_seed(2)
    model = skipgram.SkipGram(V, TOY.dim, kernels="post").double()
    centres = torch.arange(20, 40)  # [20]
    got = stretch_loss(model.w_in.weight.detach(), model.w_out.weight.detach(), ids, centres, TOY)
    gen = torch.Generator().manual_seed(EVAL_SEED)
    sign = torch.randint(0, 2, (20,), generator=gen) * 2 - 1
    ctx = centres + torch.randint(1, TOY.window + 1, (20,), generator=gen) * sign
    neg = torch.randint(0, V, (20, TOY.negatives), generator=gen)
    with torch.no_grad():
        want = model.loss(ids[centres], ids[ctx], neg).item()
    assert got == pytest.approx(want, rel=1e-12)


def test_the_gap_is_the_oldest_stretch_minus_the_last() -> None:
    ids = torch.randint(0, V, (N,), generator=torch.Generator().manual_seed(1))
    model, _, _ = skipgram.train(ids, V, TOY, CPU)
    tables = model.w_in.weight.detach(), model.w_out.weight.detach()
    found = recency_gap(*tables, ids, TOY)
    parts = {name: stretch_loss(*tables, ids, c, TOY) for name, c in stretches(N, TOY).items()}
    assert found == parts | {"gap": parts["oldest"] - parts["last"]}


def test_centre_losses_do_not_depend_on_the_chunking(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = torch.randint(0, V, (N,), generator=torch.Generator().manual_seed(1))
    tables = torch.randn(V, TOY.dim), torch.randn(V, TOY.dim)
    whole = centre_order.centre_losses(*tables, ids, torch.arange(10, 50), TOY)
    monkeypatch.setattr(centre_order, "CHUNK", 7)
    assert torch.allclose(centre_order.centre_losses(*tables, ids, torch.arange(10, 50), TOY), whole, rtol=1e-14)


def test_the_age_profile_starts_with_the_last_stretch() -> None:
    ids = torch.randint(0, V, (N,), generator=torch.Generator().manual_seed(1))
    tables = torch.randn(V, TOY.dim), torch.randn(V, TOY.dim)
    profile = centre_order.age_profile(*tables, ids, TOY)
    assert len(profile) == centre_order.SHARE
    assert profile[0] == stretch_loss(*tables, ids, stretches(N, TOY)["last"], TOY)


def test_block_se_is_the_batch_means_formula() -> None:
    values = torch.randn(1000, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    means = values[:960].numpy().reshape(15, 64).mean(1)
    assert centre_order.block_se(values, 64) == pytest.approx(np.std(means, ddof=1) / np.sqrt(15), rel=1e-12)
    with pytest.raises(ValueError, match="at least 2"):
        centre_order.block_se(values, 600)


def test_training_passes_each_step_to_the_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ordered run walks the corpus only if the loop hands the sampler its step (the step defaults to 1)."""
    seen = []
    sample = skipgram.sample_batch
    monkeypatch.setattr(skipgram, "sample_batch", lambda *args: seen.append(args[-1]) or sample(*args))
    skipgram.train(torch.randint(0, V, (N,)), V, TOY, CPU)
    assert seen == list(range(1, TOY.steps + 1))
