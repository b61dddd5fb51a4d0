"""Attention biases: ``[H, T_q, T_k]`` added to the attention logits.

Letters: T seq_len (T_q, T_k for queries and keys), H heads.

:class:`RelativePositionBias` (post A's one learned scalar per offset), :class:`ClippedRelativePositionBias`
(offsets clipped, Shaw et al. 2018), :class:`T5RelativePositionBias` (log-spaced buckets, Raffel et al. 2020)
and :class:`ALiBiBias` (fixed linear penalties, Press et al. 2022).
"""

from __future__ import annotations

import math

import torch
from torch import nn


class RelativePositionBias(nn.Module):
    """Attention bias, post A's ``rel``: one learned scalar per offset ``j − i`` (Shaw et al. 2018 family).

    ``2·max_len − 1`` scalars (offsets ``−(max_len−1) … max_len−1``), initialised to 0.
    ``forward(T_q, T_k) -> [1, T_q, T_k]`` (one head).

    Raises:
        ValueError: a length past ``max_len`` (its offsets have no entry).
    """

    kind = "bias"

    def __init__(self, max_len: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.bias = nn.Parameter(torch.zeros(2 * max_len - 1))  # [2·max_len − 1]

    def forward(self, q_len: int, k_len: int) -> torch.Tensor:
        if max(q_len, k_len) > self.max_len:
            raise ValueError(f"relative bias covers offsets up to ±{self.max_len - 1}; "
                             f"got lengths {q_len}×{k_len}")
        i = torch.arange(q_len, device=self.bias.device)[:, None]  # [T_q, 1]
        j = torch.arange(k_len, device=self.bias.device)[None, :]  # [1, T_k]
        return self.bias[j - i + self.max_len - 1][None]  # [1, T_q, T_k]



def relative_offsets(q_len: int, k_len: int, *, device: torch.device | str | None = None) -> torch.Tensor:
    """Offset ``j − i`` of key ``j`` from query ``i``: ``[T_q, T_k]`` (long; +1 is the right neighbour)."""
    i = torch.arange(q_len, device=device)[:, None]  # [T_q, 1]
    j = torch.arange(k_len, device=device)[None, :]  # [1, T_k]
    return j - i


class ClippedRelativePositionBias(nn.Module):
    """Attention bias: one learned scalar per offset, offsets clipped to ``±max_distance`` (Shaw et al. 2018).

    ``2·max_distance + 1`` scalars, initialised to 0 (as post A's ``rel``); every offset beyond the
    range shares the scalar of ``±max_distance``, so any length is defined.
    ``forward(T_q, T_k) -> [1, T_q, T_k]`` (one head).
    """

    kind = "bias"

    def __init__(self, max_distance: int) -> None:
        super().__init__()
        self.max_distance = max_distance
        self.bias = nn.Parameter(torch.zeros(2 * max_distance + 1))  # [2·max_distance + 1]

    def forward(self, q_len: int, k_len: int) -> torch.Tensor:
        k = self.max_distance
        offset = relative_offsets(q_len, k_len, device=self.bias.device).clamp(-k, k)  # [T_q, T_k]
        return self.bias[offset + k][None]  # [1, T_q, T_k]


def t5_bucket(offset: torch.Tensor, *, num_buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    """T5's bidirectional bucket of each offset ``j − i`` (Raffel et al. 2020; mesh-tensorflow's
    ``_relative_position_bucket``, as Hugging Face's ``T5Attention`` computes it): same shape, long.

    Half the buckets hold keys left of the query, half keys right of it. Within a half, distances
    below ``num_buckets // 4`` get a bucket each; longer ones share log-spaced buckets up to
    ``max_distance``; everything farther shares the last bucket of its half.
    """
    half = num_buckets // 2
    exact = half // 2
    side = (offset > 0).long() * half  # right of the query: upper half
    n = offset.abs()
    spaced = exact + (torch.log(n.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                      * (half - exact)).long()
    return side + torch.where(n < exact, n, spaced.clamp(max=half - 1))


class T5RelativePositionBias(nn.Module):
    """Attention bias: one learned scalar per head and T5 bucket of the offset (Raffel et al. 2020).

    ``[num_buckets, H]`` scalars, initialised to 0 like post A's ``rel`` (T5 draws them at random),
    so that only the bucketing differs from it. Defined for any length: offsets past ``max_distance``
    share a bucket. ``forward(T_q, T_k) -> [H, T_q, T_k]``.
    """

    kind = "bias"

    def __init__(self, num_heads: int = 1, *, num_buckets: int = 32, max_distance: int = 128) -> None:
        super().__init__()
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.bias = nn.Parameter(torch.zeros(num_buckets, num_heads))  # [buckets, H]

    def forward(self, q_len: int, k_len: int) -> torch.Tensor:
        bucket = t5_bucket(relative_offsets(q_len, k_len, device=self.bias.device),
                           num_buckets=self.num_buckets, max_distance=self.max_distance)  # [T_q, T_k]
        return self.bias[bucket].permute(2, 0, 1)  # [H, T_q, T_k]


def alibi_slopes(num_heads: int) -> list[float]:
    """ALiBi's head slopes (Press et al. 2022), the reference repository's ``get_slopes``: ``[H]``.

    For ``H`` a power of two: the geometric sequence ``2^(−8/H), 2^(−16/H), …, 2^(−8)``. Otherwise the
    slopes for ``p``, the largest power of two below ``H``, followed by the first ``H − p`` of every
    other slope for ``2p`` (e.g. 6 heads: 1/4, 1/16, 1/64, 1/256, then 1/2, 1/8).

    Raises:
        ValueError: ``num_heads < 1``.
    """
    if num_heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {num_heads}")
    p = 2 ** math.floor(math.log2(num_heads))
    start = 2 ** (-8 / p)
    slopes = [start * start**h for h in range(p)]
    return slopes if p == num_heads else slopes + alibi_slopes(2 * p)[0::2][: num_heads - p]


class ALiBiBias(nn.Module):
    """Attention bias without parameters: a penalty ``m_h·distance`` per head (ALiBi, Press et al. 2022),
    with the head slopes of :func:`alibi_slopes`. ``forward(T_q, T_k) -> [H, T_q, T_k]``.

    ALiBi takes its direction from the attention mask: the paper's causal mask lets query ``i`` see keys
    ``j ≤ i`` and subtracts ``m·(i − j)``. ``direction="right"`` mirrors that to a task whose answer lies
    right of the query (post A's: predict token ``i + 1``): keys ``j < i`` are masked (``−inf``) and the
    bias is ``−m·(j − i)``. ``direction=None`` is the mask-free symmetric form ``−m·|j − i|`` (the usual
    bidirectional extension, e.g. x-transformers), which gives a left and a right neighbour the same bias.

    Raises:
        ValueError: ``num_heads < 1`` or an unknown ``direction``.
    """

    kind = "bias"

    def __init__(self, num_heads: int = 1, *, direction: str | None = "right") -> None:
        super().__init__()
        if direction not in (None, "right"):
            raise ValueError(f"ALiBi direction must be 'right' (keys j ≥ i) or None (symmetric), got {direction!r}")
        self.direction = direction
        self.register_buffer("slopes", torch.tensor(alibi_slopes(num_heads)), persistent=False)  # [H]

    def forward(self, q_len: int, k_len: int) -> torch.Tensor:
        offset = relative_offsets(q_len, k_len, device=self.slopes.device)  # [T_q, T_k]: j − i
        bias = -self.slopes[:, None, None] * offset.abs()  # [H, T_q, T_k]
        if self.direction == "right":
            bias = bias.masked_fill(offset < 0, float("-inf"))
        return bias
