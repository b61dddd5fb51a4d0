"""The recency gap: how much better a skip-gram table fits the stretch of corpus it trained on last than the one it
trained on longest ago, under post A's training loss. What post A's reason (1) for drawing centres at random (exp. 1
(3): "특정 문단 세그먼트에서 나오는 단어과도 구성 방지. 즉 편향성 방지") says random order prevents.

The stretches are those of the ``sequential`` centre order (:data:`llm_claims_lab.word2vec.skipgram.CENTRE_ORDERS`):
after S steps of B centres the cycle of centre positions has been walked S·B times; the *last* stretch is the tenth
of the cycle that ends where the last step ended, the *oldest* the tenth that follows it (its positions were last
centres about nine tenths of a pass earlier). A table trained in random order is judged on the same stretches, so
each stretch's own difficulty cancels in the difference of the two orders' gaps.

Letters: V vocabulary, D dim, L positions in a stretch, K negatives.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from llm_claims_lab.word2vec.skipgram import SkipGramConfig, cycle_positions

SHARE = 10  # a stretch is 1/SHARE of the cycle of centre positions
EVAL_SEED = 0  # the evaluation's own draws (context offsets and negatives), the same for every table judged
CHUNK = 16_384  # centres scored at once (bounds the [CHUNK, K, D] float64 negatives' memory)
BLOCK = 4_096  # positions per block of the evaluation's batch-means SE: four of the ordered run's batches
GAP = "recency gap: sequential − random"  # the calibration's name of w2v.centre_order's statistic


def stretches(n_tokens: int, cfg: SkipGramConfig) -> dict[str, torch.Tensor]:
    """The two stretches' centre positions, ``{"last": [L], "oldest": [L]}``, for a corpus of ``n_tokens`` and the
    steps, batch and window of ``cfg`` (L = the cycle's length // :data:`SHARE`).

    Raises:
        ValueError: the corpus is too short for a cycle of ``SHARE`` positions.
    """
    cycle = n_tokens - 2 * cfg.window
    if cycle < SHARE:
        raise ValueError(f"a corpus of {n_tokens} tokens has {cycle} centre positions, fewer than {SHARE}")
    length, end = cycle // SHARE, cfg.steps * cfg.batch  # end: the index of the next centre the order would take
    return {"last": cycle_positions(torch.arange(end - length, end), n_tokens, cfg.window),  # [L]
            "oldest": cycle_positions(torch.arange(end, end + length), n_tokens, cfg.window)}  # [L]


def centre_losses(w_in: torch.Tensor, w_out: torch.Tensor, ids: torch.Tensor, centres: torch.Tensor,
                  cfg: SkipGramConfig) -> torch.Tensor:
    """Post A's negative-sampling loss of each centre position of ``centres: [L]`` in ``ids: [N]`` under the tables
    ``w_in, w_out: [V, D]``, in float64: ``−(log σ(s⁺) + mean over K of log σ(−s⁻))`` with one context (side and
    offset drawn as post A draws them) and K uniform negatives per centre, all from a generator seeded with
    :data:`EVAL_SEED`, so every table is judged on the same pairs. Returns ``[L]``; its mean is
    :meth:`~llm_claims_lab.word2vec.skipgram.SkipGram.loss` over the L pairs."""
    w_in, w_out = w_in.double(), w_out.double()  # [V, D]
    gen = torch.Generator().manual_seed(EVAL_SEED)
    n = len(centres)
    sign = torch.randint(0, 2, (n,), generator=gen) * 2 - 1  # [L]
    ctx = centres + torch.randint(1, cfg.window + 1, (n,), generator=gen) * sign  # [L] context positions
    neg = torch.randint(0, w_in.shape[0], (n, cfg.negatives), generator=gen)  # [L, K]
    parts = []
    for start in range(0, n, CHUNK):
        part = slice(start, start + CHUNK)
        vc = w_in[ids[centres[part]]]  # [C, D]
        positive = (vc * w_out[ids[ctx[part]]]).sum(-1)  # [C]
        negative = (w_out[neg[part]] * vc.unsqueeze(1)).sum(-1)  # [C, K]
        parts.append(-(F.logsigmoid(positive) + F.logsigmoid(-negative).mean(-1)))  # [C]
    return torch.cat(parts)  # [L]


def stretch_loss(w_in: torch.Tensor, w_out: torch.Tensor, ids: torch.Tensor, centres: torch.Tensor,
                 cfg: SkipGramConfig) -> float:
    """Post A's loss of the tables over the centre positions ``centres: [L]``: the mean of :func:`centre_losses`."""
    return centre_losses(w_in, w_out, ids, centres, cfg).mean().item()


def recency_gap(w_in: torch.Tensor, w_out: torch.Tensor, ids: torch.Tensor, cfg: SkipGramConfig) -> dict[str, float]:
    """The loss of the tables on the oldest stretch and on the last (:func:`stretches`, :func:`stretch_loss`) and
    ``gap``, the first minus the second (positive: the table fits the stretch it saw last better)."""
    found = {name: stretch_loss(w_in, w_out, ids, centres, cfg) for name, centres in stretches(len(ids), cfg).items()}
    return found | {"gap": found["oldest"] - found["last"]}


def age_profile(w_in: torch.Tensor, w_out: torch.Tensor, ids: torch.Tensor, cfg: SkipGramConfig,
                ages: range = range(SHARE)) -> list[float]:
    """The tables' loss (:func:`stretch_loss`) on tenths of the cycle of centre positions by how long ago the ordered
    run trained them: one per age of ``ages``, age 0 the tenth trained last (the last stretch of :func:`stretches`),
    age SHARE − 1 the tenth trained longest ago in the cycle."""
    n_tokens, length, end = len(ids), (len(ids) - 2 * cfg.window) // SHARE, cfg.steps * cfg.batch
    return [stretch_loss(w_in, w_out, ids, cycle_positions(torch.arange(end - (age + 1) * length, end - age * length),
                                                           n_tokens, cfg.window), cfg) for age in ages]


def block_se(values: torch.Tensor, block: int) -> float:
    """The standard error of the mean of ``values: [L]``, a series whose neighbours are correlated (positions of one
    article share its topic), by batch means: the SD (ddof 1) of the means of its consecutive blocks of ``block``
    values over √(the blocks), the tail shorter than a block left out (Flegal & Jones 2010, "Batch means and spectral
    variance estimators in Markov chain Monte Carlo").

    Raises:
        ValueError: fewer than two whole blocks.
    """
    count = len(values) // block
    if count < 2:
        raise ValueError(f"{len(values)} values make {count} block(s) of {block}; the SE needs at least 2")
    means = values[:count * block].reshape(count, block).mean(-1)  # [count]
    return (means.std(correction=1) / count ** 0.5).item()
