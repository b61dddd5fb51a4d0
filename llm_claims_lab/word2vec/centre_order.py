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

from llm_claims_lab.word2vec.skipgram import SkipGram, SkipGramConfig, cycle_positions

SHARE = 10  # a stretch is 1/SHARE of the cycle of centre positions
EVAL_SEED = 0  # the evaluation's own draws (context offsets and negatives), the same for every table judged
CHUNK = 16_384  # centres scored at once (bounds the [CHUNK, K, D] float64 negatives' memory)


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


def stretch_loss(w_in: torch.Tensor, w_out: torch.Tensor, ids: torch.Tensor, centres: torch.Tensor,
                 cfg: SkipGramConfig) -> float:
    """Post A's negative-sampling loss (:meth:`~llm_claims_lab.word2vec.skipgram.SkipGram.loss`, in float64) of the
    tables ``w_in, w_out: [V, D]`` over every centre position of ``centres: [L]`` in ``ids: [N]``: one context per
    centre (side and offset drawn as post A draws them) and K uniform negatives, all from a generator seeded with
    :data:`EVAL_SEED`, so every table is judged on the same pairs. The loss's two means are over all L centres."""
    model = SkipGram(*w_in.shape, kernels="post").double()
    with torch.no_grad():
        model.w_in.weight.copy_(w_in)
        model.w_out.weight.copy_(w_out)
    gen = torch.Generator().manual_seed(EVAL_SEED)
    n = len(centres)
    sign = torch.randint(0, 2, (n,), generator=gen) * 2 - 1  # [L]
    ctx = centres + torch.randint(1, cfg.window + 1, (n,), generator=gen) * sign  # [L] context positions
    neg = torch.randint(0, w_in.shape[0], (n, cfg.negatives), generator=gen)  # [L, K]
    total = 0.0
    with torch.no_grad():
        for start in range(0, n, CHUNK):
            part = slice(start, start + CHUNK)
            total += model.loss(ids[centres[part]], ids[ctx[part]], neg[part]).item() * len(centres[part])
    return total / n


def recency_gap(w_in: torch.Tensor, w_out: torch.Tensor, ids: torch.Tensor, cfg: SkipGramConfig) -> dict[str, float]:
    """The loss of the tables on the oldest stretch and on the last (:func:`stretches`, :func:`stretch_loss`) and
    ``gap``, the first minus the second (positive: the table fits the stretch it saw last better)."""
    found = {name: stretch_loss(w_in, w_out, ids, centres, cfg) for name, centres in stretches(len(ids), cfg).items()}
    return found | {"gap": found["oldest"] - found["last"]}
