"""How much faster a negative-sampling step of post A's loop runs than a full-softmax one: the steps timed so that
the number measures the algorithm, not the machine's load.

Post A, '핵심 아이디어 (2) 네거티브 샘플링' ('계산 속도가 수천 배 빨라집니다'). Other processes on the machine slow a step
in three ways: threads of a pool that outnumber the free cores wait on each other (torch's pool spans every core;
beside other work a step of small operations then takes as long as a full-softmax step), a step descheduled
mid-way waits, and a co-runner evicts its caches. So the steps run on one thread, the two kinds interleaved (each
kind's steps see the same load), each timed by the thread's own CPU time, and the ratio is taken between the
shortest step of each kind: interference only ever adds time to a step. Where the tables happen to lie in memory
changes a step's time by several per cent from one copy of the model to the next, more than the steps of one copy
vary, so the steps are timed in blocks, each on a fresh copy of the model, its optimizer and the ids, and the
noise is the spread of the blocks' ratios. What no clock of the thread removes: while the other cores are busy, the
steps' memory-bound part (lookups, the Adam update: most of a sampled step, little of a full one) runs slower, so
beside two busy processes on two cores the ratio reads a few per cent lower
(``python benchmarks/bench_wallclock_speedup.py --busy 0 2``).

Letters: B batch of centre words, K negatives, V vocabulary, D dim (as in :mod:`.skipgram`).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import time
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from llm_claims_lab.core.devices import one_thread
from llm_claims_lab.core.stats import standard_error
from llm_claims_lab.word2vec.skipgram import SkipGram, SkipGramConfig, sample_batch


@dataclasses.dataclass(frozen=True)
class StepTimes:
    """Seconds per step of each kind, ``[blocks, pairs]`` in the order measured, the clock that timed them, and
    the share of the measurement's wall time the timing thread ran (CPU: its CPU time over the wall time, 1 on a
    core of its own; ``None`` on CUDA): how much other work held its core."""

    full: np.ndarray  # full softmax over V
    sampled: np.ndarray  # 1 + K sampled words
    clock: str
    share: float | None

    def block_speedups(self) -> np.ndarray:
        """Per block, the shortest full-softmax step over the shortest sampled step: ``[blocks]`` (×)."""
        return self.full.min(axis=1) / self.sampled.min(axis=1)

    def speedup(self) -> tuple[float, float]:
        """``(ratio, se)``: the mean of :meth:`block_speedups` and its standard error (their SD / √blocks), in ×."""
        ratios = self.block_speedups()
        return float(ratios.mean()), standard_error(float(ratios.std(ddof=1)), len(ratios))


def time_steps(model: SkipGram, ids: torch.Tensor, cfg: SkipGramConfig, device: torch.device, *,
               blocks: int = 5, pairs: int = 8, warmup: int = 2) -> StepTimes:
    """Time training steps of each kind on copies of ``model`` (forward, backward, one dense Adam step over both
    tables, torch's defaults and ``cfg.lr``, computed with ``model``'s kernels as :func:`.skipgram.train` computes
    them) on batches of ``ids: [N]`` drawn as :func:`.skipgram.sample_batch`
    draws them: a full-softmax step scores the context word against all V rows of ``w_out`` by cross-entropy, a
    sampled step is post A's loss on 1 + K rows. ``blocks`` times, on a fresh copy of ``model`` and a fresh
    optimizer, ``warmup`` untimed pairs, then ``pairs`` timed ones, the kinds alternating and each pair in the other
    order from the last (F S, S F, …); the draws are not timed; ``model`` itself is left untouched.

    On the CPU the steps run on one thread (:func:`~llm_claims_lab.core.devices.one_thread`; the caller's thread
    count is restored) and are timed by the thread's CPU time (``time.thread_time``), which does not count the
    time other processes hold the core; on CUDA, by the wall time between synchronisations around each step.

    Raises:
        ValueError: fewer than 2 ``blocks`` (their spread is the noise) or no timed ``pairs``.
    """
    if blocks < 2 or pairs < 1:
        raise ValueError(f"need at least 2 blocks of at least 1 pair, got {blocks} blocks of {pairs}")
    cuda = device.type == "cuda"
    clock = time.perf_counter if cuda else time.thread_time
    times = {True: np.empty((blocks, pairs)), False: np.empty((blocks, pairs))}
    wall, cpu = time.perf_counter(), time.thread_time()
    with contextlib.nullcontext() if cuda else one_thread():
        for block in range(blocks):
            replica, stream = copy.deepcopy(model), ids.clone()  # fresh memory for the tables and ids, same values
            opt = torch.optim.Adam(replica.parameters(), lr=cfg.lr, fused=model.kernels == "fast" or None)
            for i in range(warmup + pairs):
                for full in (True, False) if i % 2 == 0 else (False, True):
                    seconds = _step(replica, opt, stream, cfg, device, full, clock)
                    if i >= warmup:
                        times[full][block, i - warmup] = seconds
    share = None if cuda else (time.thread_time() - cpu) / (time.perf_counter() - wall)
    return StepTimes(times[True], times[False],
                     "wall time between CUDA synchronisations" if cuda else "the thread's CPU time, one thread", share)


def _step(model: SkipGram, opt: torch.optim.Optimizer, ids: torch.Tensor, cfg: SkipGramConfig,
          device: torch.device, full: bool, clock: Callable[[], float]) -> float:
    """One training step of ``model`` (full softmax or sampled), its draws untimed: the seconds ``clock`` counts."""
    center, ctx, neg = sample_batch(ids, model.w_in.num_embeddings, cfg, device)  # [B], [B], [B, K]
    cuda = device.type == "cuda"
    if cuda:
        torch.cuda.synchronize(device)
    start = clock()
    if full:
        loss = F.cross_entropy(model.w_in(center) @ model.w_out.weight.T, ctx)  # logits [B, V]
    else:
        loss = model.loss(center, ctx, neg)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if cuda:
        torch.cuda.synchronize(device)
    return clock() - start
