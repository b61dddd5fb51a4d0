"""Post A's tiny attention model for the length-extrapolation duel: its configuration, the positional schemes
it is trained with, and its forward pass.

Letters: B batch, T seq_len, D d_model, V vocab_size, O = 2T − 1 offsets ``j − i``, L evaluation length.

The forward pass is fast because most of the post's arithmetic is not needed for the same function. The
first layer only ever sees 50 tokens and 20 positions, so each projection is computed on the
``V + T`` distinct rows instead of the ``B·T = 5120`` token slots, and the attention logits are looked
up: ``(e_a + p_i)ᵀ Wq Wkᵀ (e_b + p_j)/√D`` is the sum of four entries of one ``[V+T, V+T]`` table
(RoPE: one ``[O, V, V]`` table by offset, since ``R_iᵀ R_j = R_{j−i}``), and ``(A h Wv) Woᵀ`` is
``A (h Wv Woᵀ)``. These are reassociations of the same sums: results differ from the post's loop by
float rounding only (``tests/test_extrapolation_fixture.py`` checks logits and gradients against
:meth:`ExtrapolationModel.forward_plain`).
"""

from __future__ import annotations

import dataclasses
import math
import typing

import torch
import torch.nn.functional as F
from torch import nn

from llm_claims_lab.positional.attention import SingleHeadSelfAttention
from llm_claims_lab.positional import (ALiBiBias, ClippedRelativePositionBias, LearnedPositionalEmbedding,
                                       NoPositionalEncoding, RawIntegerPositions, RelativePositionBias,
                                       RotaryPositionEmbedding, SinusoidalPositionalEncoding, T5RelativePositionBias,
                                       relative_offsets)

POST_SCHEMES = ("learned", "sinusoidal", "relative")  # post A's three: --pe learned | sin | rel
BEYOND_SCHEMES = ("alibi", "rope", "t5", "relative_clipped")  # what post A says fixes the failure
CONTROL_SCHEMES = ("alibi_symmetric",)  # ALiBi without the mask that gives it a direction
NAIVE_SCHEMES = ("raw_integer",)  # post A's dismissed first idea: add the numbers 1, 2, 3, … ('학습이 망가집니다')
NO_POSITION_SCHEMES = ("nope",)  # no position signal (NoPE): post B's '위치 정보가 없는 입력' (input without positions)
CLIP_DISTANCE = 16  # relative_clipped's k: Shaw et al. 2018 §4.1 (k = 16), inside the trained offsets ±19
CLIP_SWEEP = (2, 4, 8)  # further clip widths k (Shaw et al. 2018, Table 2: BLEU flat for k ≥ 2), beside 16
CLIP_SCHEMES = tuple(f"relative_clipped_k{k}" for k in CLIP_SWEEP)
MASK = "_masked"  # suffix of a scheme trained on ALiBi's footing: keys j < i masked, the mask mirrored to the task
MASKED_SCHEMES = tuple(s + MASK for s in ("learned", "sinusoidal", "relative", "rope", "t5", "relative_clipped"))
MIXED = "_mixed"  # suffix of a scheme trained on mixed lengths: each step's length uniform on 2 … max_len
MIXED_SCHEMES = ("sinusoidal" + MIXED,)  # post B: '학습 데이터의 길이 분포' (the training data's length distribution)
HELD, SPREAD = "_held", "_spread"  # suffixes of schemes trained with no loss at some query positions (held_out)
# post B's 'coordinates in which relative rules are easy to learn': each layout, sinusoidal and fixed random coordinates
HELD_SCHEMES = tuple(base + suffix for suffix in (SPREAD, HELD) for base in ("sinusoidal", "random_fixed"))
SCHEMES = (POST_SCHEMES + BEYOND_SCHEMES + CONTROL_SCHEMES + NAIVE_SCHEMES + NO_POSITION_SCHEMES + CLIP_SCHEMES
           + MASKED_SCHEMES + MIXED_SCHEMES + HELD_SCHEMES)
SWEPT_SCHEMES = POST_SCHEMES + BEYOND_SCHEMES  # schemes with a verdict at 40 whose budget dependence is shown
ALIBI_HEADS = 8  # ALiBi's slopes are defined for H heads (Press et al. 2022 use 8 and more); D/H = 16 each


@dataclasses.dataclass(frozen=True)
class ExtrapolationConfig:
    """Post A's protocol (exp. 3); every default is the post's."""

    # Suffix -> the query positions (of the 19 at length 20) whose prediction the loss leaves out: four single
    # positions, each between trained ones (figure 3's one-token shift), and a block of the middle five. Here, in the
    # class, so that the layouts are in the training code's digest.
    HELD_LAYOUTS: typing.ClassVar[dict[str, tuple[int, ...]]] = {SPREAD: (3, 7, 11, 15), HELD: (7, 8, 9, 10, 11)}
    scheme: str = "learned"  # positional scheme, one of SCHEMES
    vocab_size: int = 50  # tokens (post: Vv)
    d_model: int = 128  # width of embeddings and of Q, K, V (post: d)
    train_len: int = 20  # seq_len of every training sequence (post: Ltr)
    max_len: int = 40  # rows of the learned table; relative bias offsets ±(max_len − 1) (post: Lte)
    batch_size: int = 256  # sequences per step
    lr: float = 1e-3  # Adam learning rate; other Adam settings are torch's defaults, as in the post
    steps: int = 3000  # training steps

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"unknown positional scheme {self.scheme!r}; choose one of {SCHEMES}")
        if not 2 <= self.train_len <= self.max_len:
            raise ValueError(f"train_len must be in [2, max_len={self.max_len}], got {self.train_len}")
        if self.held_out and max(self.held_out) > self.train_len - 2:
            raise ValueError(f"the held-out query positions {self.held_out} need train_len ≥ {max(self.held_out) + 2}")

    @property
    def base_scheme(self) -> str:
        """The positional scheme without the footing: ``scheme`` less the :data:`MASK`, :data:`MIXED` or
        :data:`SPREAD` or :data:`HELD` suffix."""
        return self.scheme.removesuffix(MASK).removesuffix(MIXED).removesuffix(SPREAD).removesuffix(HELD)

    @property
    def held_out(self) -> tuple[int, ...]:
        """The query positions whose prediction the loss leaves out (:attr:`HELD_LAYOUTS` of a ``*_spread`` or
        ``*_held`` scheme, else none): the right-neighbour rule is never trained there, while their rows still serve
        as keys and values."""
        return next((held for suffix, held in self.HELD_LAYOUTS.items() if self.scheme.endswith(suffix)), ())

    @property
    def mixed_lengths(self) -> bool:
        """Whether each training step draws its sequences' length uniformly from 2 … ``max_len`` (a ``*_mixed``
        scheme; mean 21 tokens at the protocol's 40, about the 20 of a fixed-length step) instead of ``train_len``."""
        return self.scheme.endswith(MIXED)

    @property
    def right_mask(self) -> bool:
        """Whether keys ``j < i`` are masked, as ALiBi's mirrored mask does (a ``*_masked`` scheme; ALiBi's
        own bias carries its mask)."""
        return self.scheme.endswith(MASK)

    @property
    def num_heads(self) -> int:
        """Attention heads: :data:`ALIBI_HEADS` for ALiBi (its slopes are a per-head geometric sequence),
        else one, as in the post. The heads split ``Wq, Wk, Wv``'s columns, so parameters are the same."""
        return ALIBI_HEADS if self.scheme.startswith("alibi") else 1

    @property
    def eval_lens(self) -> tuple[int, ...]:
        """Evaluation lengths, in the order their batches are drawn: the post's 20 and 40, and 80 for
        the schemes beyond the post (the post's learned table and relative bias stop at 40)."""
        lens = (self.train_len, self.max_len)
        return lens if self.scheme not in BEYOND_SCHEMES + CONTROL_SCHEMES else lens + (2 * self.max_len,)


def positional_scheme(config: ExtrapolationConfig) -> nn.Module:
    """The positional module that ``config.scheme`` names (see :mod:`llm_claims_lab.positional`).

    ``learned``: post A's ``max_len``-row table (``randn·0.02``); ``sinusoidal``: the interleaved
    formula; ``relative``: post A's ``2·max_len − 1`` scalars; ``relative_clipped``: one scalar per
    offset clipped to ``±k``, :data:`CLIP_DISTANCE` (Shaw et al. 2018 clip learned vectors at k = 16; here a
    scalar bias), inside the trained offsets ``±(train_len − 1)`` so the shared far scalar is trained on
    every offset from k to 19; ``relative_clipped_k<k>``: the same with another k (:data:`CLIP_SWEEP`); ``t5``: T5's 32
    buckets with ``max_distance`` scaled to the training length (T5 trains at 512 with 128; here
    ``max_distance = train_len``, so the log-spaced buckets cover exactly the trained offsets and every
    longer offset shares the last trained bucket); ``alibi``: ALiBi's reference slopes for
    :data:`ALIBI_HEADS` heads, direction from a mask mirrored to the task (keys ``j ≥ i``);
    ``alibi_symmetric``: the same slopes, no mask (control); ``rope``: RoPE on queries and keys;
    ``raw_integer``: the raw numbers 1, 2, 3, … added on every channel (post A's dismissed first idea);
    ``nope``: no position signal (zeros; Kazemnejad et al. 2023's NoPE, here without a causal mask);
    ``random_fixed``: fixed random coordinates at the sinusoid's scale (:class:`FixedRandomPositions`).
    A ``*_masked`` scheme (:data:`MASKED_SCHEMES`) is its base scheme; the model adds the mask. A ``*_mixed``
    scheme (:data:`MIXED_SCHEMES`) is its base scheme; training draws the lengths. A ``*_spread`` or ``*_held``
    scheme (:data:`HELD_SCHEMES`) is its base scheme; the loss leaves out its held-out positions.
    """
    c = config
    if c.base_scheme.startswith("relative_clipped_k"):
        return ClippedRelativePositionBias(int(c.base_scheme.removeprefix("relative_clipped_k")))
    return {
        "learned": lambda: LearnedPositionalEmbedding(c.max_len, c.d_model),
        "sinusoidal": lambda: SinusoidalPositionalEncoding(c.d_model),
        "relative": lambda: RelativePositionBias(c.max_len),
        "relative_clipped": lambda: ClippedRelativePositionBias(CLIP_DISTANCE),
        "t5": lambda: T5RelativePositionBias(num_heads=1, max_distance=c.train_len),
        "alibi": lambda: ALiBiBias(c.num_heads, direction="right"),
        "alibi_symmetric": lambda: ALiBiBias(c.num_heads, direction=None),
        "rope": lambda: RotaryPositionEmbedding(),
        "raw_integer": lambda: RawIntegerPositions(c.d_model),
        "nope": lambda: NoPositionalEncoding(c.d_model),
        "random_fixed": lambda: FixedRandomPositions(c.max_len, c.d_model),
    }[c.base_scheme]()


class FixedRandomPositions(nn.Module):
    """Additive, fixed: a ``[max_len, D]`` table of random coordinates, ``randn · STD`` drawn where post A draws its
    learned table, never trained: the sinusoid's scale without its structure (no linear map takes every row p to
    row p + 1, as sin(a + b)'s expansion does for the sinusoid). ``forward(seq_len) -> [T, D]``.

    Raises:
        ValueError: ``seq_len > max_len``.
    """

    kind = "additive"
    STD = 2 ** -0.5  # the sinusoid's RMS per coordinate (each sin/cos pair has unit norm): rows of norm ≈ √(D/2)

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__()
        self.register_buffer("table", torch.randn(max_len, d_model) * self.STD)  # [max_len, D]

    def forward(self, seq_len: int) -> torch.Tensor:
        if seq_len > len(self.table):
            raise ValueError(f"a fixed random table has {len(self.table)} rows; position {seq_len - 1} is past its end")
        return self.table[:seq_len]


class ExtrapolationModel(nn.Module):
    """Post A's tiny model: token embedding ``[V, D]``, a positional scheme, one self-attention layer
    (one head, as the post's; ``H = config.num_heads`` heads of ``D/H`` for ALiBi, whose mask, if any,
    is part of its bias), output ``Linear(D, V)``. ``forward(x: [B, T]) -> [B, T, V]``.

    Built in the post's order (embedding, learned table, ``Wq, Wk, Wv``, output layer) with torch's
    default initialisers, so ``torch.manual_seed(s)`` gives the post's initial weights.

    Raises:
        ValueError: a positional module that is none of the three kinds, a bias whose head count is not
            ``config.num_heads``, several heads without a bias; a length the scheme does not cover.
    """

    def __init__(self, config: ExtrapolationConfig) -> None:
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.d_model)
        self.pos = positional_scheme(config)
        self.attn = SingleHeadSelfAttention(config.d_model)
        self.out = nn.Linear(config.d_model, config.vocab_size)
        if getattr(self.pos, "kind", None) not in ("additive", "bias", "rotary"):
            raise ValueError(f"{type(self.pos).__name__} is not an additive table, an attention bias or RoPE")
        heads = self.pos(1, 1).shape[0] if self.pos.kind == "bias" else 1
        if heads != config.num_heads:
            raise ValueError(f"the attention has {config.num_heads} head(s) but the positional scheme "
                             f"{type(self.pos).__name__} gives {heads}")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, T, V]`` for tokens ``x: [B, T]`` (the fast path; see the module docstring)."""
        return self.forward_with_attention(x)[0]

    def forward_with_attention(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``[B, T, V]`` and attention weights ``[B, T_q, T_k]`` (averaged over heads; rows sum to 1)
        for tokens ``x: [B, T]``, from one pass."""
        logits, values = self._logits_and_values(x)  # [B, H, T, T], [B, H, T, V]
        B, H, T, V = values.shape
        attn = logits.softmax(-1)  # [B, H, T, T]
        # Σ_h attn_h @ values_h as one product per sequence: [B, T, H·T] @ [B, H·T, V]
        mixed = attn.transpose(1, 2).reshape(B, T, H * T) @ values.reshape(B, H * T, V)  # [B, T, V]
        return mixed + self.out.bias, attn.mean(1)

    def forward_plain(self, x: torch.Tensor) -> torch.Tensor:
        """The post's computation, step by step (``[B, T] -> [B, T, V]``), heads split as usual: the
        reference for tests and the benchmark."""
        B, T = x.shape
        H, D = self.config.num_heads, self.config.d_model
        h = self.tok_emb(x)  # [B, T, D]
        kind, device = self.pos.kind, x.device
        if kind == "additive":
            h = h + self.pos(T)
        mask = self._mask(T, device)  # [1, T, T] or None
        if H == 1:
            bias = self.pos(T, T) if kind == "bias" else None  # [1, T, T]
            bias = mask if bias is None else bias if mask is None else bias + mask
            rope = torch.arange(T, device=device) if kind == "rotary" else None
            return self.out(self.attn(h, bias=bias, rope_positions=rope))
        split = lambda w: (h @ w).view(B, T, H, D // H).transpose(1, 2)  # noqa: E731  [B, H, T, D/H]
        q, k, v = split(self.attn.Wq), split(self.attn.Wk), split(self.attn.Wv)
        logits = q @ k.transpose(-2, -1) / math.sqrt(D // H) + self.pos(T, T)  # [B, H, T, T]
        heads = logits.softmax(-1) @ v  # [B, H, T, D/H]
        return self.out(heads.transpose(1, 2).reshape(B, T, D))

    def _mask(self, T: int, device: torch.device) -> torch.Tensor | None:
        """The footing's mask ``[1, T, T]`` (``−inf`` on keys ``j < i``, else 0) when ``config.right_mask``,
        else None: ALiBi's mirrored mask (:class:`~llm_claims_lab.positional.ALiBiBias`) for any scheme."""
        if not self.config.right_mask:
            return None
        offset = relative_offsets(T, T, device=device)  # [T, T]: j − i
        return torch.zeros(1, T, T, device=device).masked_fill(offset < 0, float("-inf"))

    def _logits_and_values(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Attention logits ``[B, H, T, T]`` (the footing's mask added) and value rows already mapped to the
        vocabulary ``[B, H, T, V]``."""
        logits, values = self._unmasked_logits_and_values(x)
        mask = self._mask(x.shape[1], x.device)
        return (logits if mask is None else logits + mask), values

    def _unmasked_logits_and_values(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`_logits_and_values` before the footing's mask."""
        T = x.shape[1]
        V, D, H = self.config.vocab_size, self.config.d_model, self.config.num_heads
        E, Wq, Wk, Wv = self.tok_emb.weight, self.attn.Wq, self.attn.Wk, self.attn.Wv  # [V, D], [D, D] ×3
        to_vocab = Wv @ self.out.weight.T  # [D, V]: value projection, then output layer
        xi, xj = x[:, :, None], x[:, None, :]  # [B, T, 1], [B, 1, T]
        if self.pos.kind == "additive":
            rows = torch.cat([E, self.pos(T)])  # [V + T, D]: token rows, then position rows
            p = torch.arange(V, V + T, device=x.device)  # [T]: row of each position
            pi, pj = p[:, None], p[None, :]  # [T, 1], [1, T]
            table = (rows @ Wq) @ (rows @ Wk).T / math.sqrt(D)  # [V + T, V + T]
            logits = table[xi, xj] + table[xi, pj] + table[pi, xj] + table[pi, pj]  # [B, T, T]
            vocab = rows @ to_vocab  # [V + T, V]
            return logits[:, None], (vocab[x] + vocab[p])[:, None]
        if self.pos.kind == "rotary":
            offsets = torch.arange(1 - T, T, device=x.device)  # [O]
            keys = (E @ Wk)[:, None, :].expand(V, 2 * T - 1, D)  # [V, O, D]
            rotated = self.pos(keys, offsets)  # [V, O, D]: key of token b seen from offset o
            table = torch.einsum("ad,bod->oab", E @ Wq, rotated) / math.sqrt(D)  # [O, V, V]
            logits = table[relative_offsets(T, T, device=x.device) + T - 1, xi, xj]  # [B, T, T]
            return logits[:, None], (E @ to_vocab)[x][:, None]
        # Several heads: one row lookup per slot in [H·V, ·] tables (cheap), instead of H small products. A slot
        # of head h looks up row h·V + token, so lookups come out head-major, as the mixing product reads them.
        B, dh = x.shape[0], D // H
        heads = lambda w: (E @ w).view(V, H, dh).transpose(0, 1)  # noqa: E731  [H, V, D/H]
        rows = torch.arange(H, device=x.device)[None, :, None] * V + x[:, None, :]  # [B, H, T]
        table = heads(Wq) @ heads(Wk).transpose(1, 2) / math.sqrt(dh)  # [H, V, V]: query token, key token
        by_query = F.embedding(rows, table.reshape(H * V, V))  # [B, H, T, V]
        keys = x[:, None, None, :].expand(B, H, T, T)  # [B, H, T, T]: key token of each slot
        logits = by_query.gather(3, keys) + self.pos(T, T)  # [B, H, T, T]
        out_w = self.out.weight.view(V, H, dh).transpose(0, 1)  # [H, V_out, D/H]
        vocab = heads(Wv) @ out_w.transpose(1, 2)  # [H, V, V_out]: each head's values, mapped to the vocabulary
        return logits, F.embedding(rows, vocab.reshape(H * V, -1))  # [B, H, T, T], [B, H, T, V]

    def loss(self, x: torch.Tensor) -> torch.Tensor:
        """Post A's objective: mean cross-entropy of predicting ``x[:, i+1]`` at position ``i`` (for ``x: [B, T]``),
        over every position but :attr:`ExtrapolationConfig.held_out`."""
        V = self.config.vocab_size
        if not self.config.held_out:
            return F.cross_entropy(self(x)[:, :-1].reshape(-1, V), x[:, 1:].reshape(-1))
        kept = torch.tensor([i for i in range(x.shape[1] - 1) if i not in self.config.held_out], device=x.device)
        return F.cross_entropy(self(x)[:, kept].reshape(-1, V), x[:, kept + 1].reshape(-1))
