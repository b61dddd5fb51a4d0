"""Additive positional encodings: a ``[T, D]`` table added to token embeddings ``[B, T, D]``.

Letters: T seq_len, D d_model.

:class:`SinusoidalPositionalEncoding` (parameter-free; Vaswani et al. 2017, both posts),
:class:`LearnedPositionalEmbedding` (a BERT/GPT-2-style table with ``max_len`` rows) and
:class:`RawIntegerPositions` (post A's naive first idea: the numbers 1, 2, 3, … themselves), with the
sinusoidal table's building blocks (:func:`frequencies`, :func:`sinusoidal_table`, :func:`shift_matrix`).
"""

from __future__ import annotations


import torch
from torch import nn

BASE = 10000.0  # Vaswani et al. 2017, and both posts


def _check_even(d_model: int) -> None:
    if d_model <= 0 or d_model % 2:
        raise ValueError(f"d_model must be a positive even number (sin/cos pairs), got {d_model}")


def _angle_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype positional angles and their sin/cos are computed in before casting to ``dtype``: ``dtype``
    itself for float32 (bit-identical to both posts' float32 code) and float64, float64 for anything
    narrower (float16, bfloat16), whose positions and angles would otherwise be rounded (float16 holds
    integers exactly only up to 2048, and an angle of 1000 rad to ±0.25).

    Raises:
        ValueError: ``dtype`` is not a floating-point dtype.
    """
    if not dtype.is_floating_point:
        raise ValueError(f"positional encodings need a floating-point dtype, got {dtype}")
    return dtype if dtype in (torch.float32, torch.float64) else torch.float64


def frequencies(d_model: int, *, base: float = BASE, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Angular frequency of each sin/cos pair, ``ω_i = base^(-2i/d_model)``: ``[D/2]`` (radians/position),
    computed in float32 or wider (:func:`_angle_dtype`) and then cast to ``dtype``.

    Raises:
        ValueError: ``d_model`` not a positive even number, or ``dtype`` not floating-point.
    """
    _check_even(d_model)
    wide = _angle_dtype(dtype)
    two_i = torch.arange(0, d_model, 2, dtype=wide)  # [D/2]
    return (1.0 / base ** (two_i / d_model)).to(dtype)


def sinusoidal_table(seq_len: int, d_model: int, *, base: float = BASE, dtype: torch.dtype = torch.float32,
                     device: torch.device | str | None = None) -> torch.Tensor:
    """Sinusoidal positional encoding of Vaswani et al. 2017, as both posts write it: ``[T, D]``.

    The paper's **interleaved** layout with exponent ``2i/d_model`` shared by each pair:
    ``PE[pos, 2i] = sin(pos·ω_i)``, ``PE[pos, 2i+1] = cos(pos·ω_i)``, ``ω_i = base^(-2i/d_model)``
    (post A, exp. 3 ``sinusoidal``; post B, "small PyTorch implementation"). Not the ``[sin | cos]``
    concatenated variant, nor one with ``d_model/2 − 1`` in the exponent.

    Positions, angles and sin/cos are computed in float32 or wider (:func:`_angle_dtype`: float32 as
    the posts' code does for a float32 table, float64 for float16/bfloat16), then cast to ``dtype``; a
    reduced-precision table is therefore the float64 table rounded once. Built on ``device`` (default: CPU).

    Raises:
        ValueError: ``seq_len`` negative, ``d_model`` not a positive even number, or ``dtype`` not
            floating-point.
    """
    if seq_len < 0:
        raise ValueError(f"seq_len must be non-negative, got {seq_len}")
    _check_even(d_model)
    wide = _angle_dtype(dtype)
    two_i = torch.arange(0, d_model, 2, dtype=wide, device=device)  # [D/2]
    positions = torch.arange(seq_len, dtype=wide, device=device)  # [T]
    angle = positions[:, None] / base ** (two_i / d_model)  # [T, D/2], as post A
    pe = torch.empty(seq_len, d_model, dtype=wide, device=device)  # [T, D]
    pe[:, 0::2] = angle.sin()
    pe[:, 1::2] = angle.cos()
    return pe.to(dtype)


def shift_matrix(k: int, d_model: int, *, base: float = BASE, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The linear map ``M_k`` with ``PE(pos + k) = M_k · PE(pos)`` for every ``pos``: ``[D, D]``.

    Block-diagonal, one 2×2 rotation per (sin, cos) pair, built from the offset ``k`` alone, from
    sin(a+b) = sin a cos b + cos a sin b and cos(a+b) = cos a cos b − sin a sin b (post B).
    Angles in float32 or wider (:func:`_angle_dtype`), then cast to ``dtype``.
    """
    wide = _angle_dtype(dtype)
    omega = frequencies(d_model, base=base, dtype=wide)  # [D/2]
    c, s = (k * omega).cos(), (k * omega).sin()  # [D/2]
    m = torch.zeros(d_model, d_model, dtype=wide)  # [D, D]
    idx = torch.arange(0, d_model, 2)
    m[idx, idx], m[idx, idx + 1] = c, s  # sin' = sin·cos kω + cos·sin kω
    m[idx + 1, idx], m[idx + 1, idx + 1] = -s, c  # cos' = cos·cos kω − sin·sin kω
    return m.to(dtype)


class SinusoidalPositionalEncoding(nn.Module):
    """Additive, parameter-free: ``forward(seq_len) -> [T, D]`` for any ``seq_len`` (no table limit), on the
    module's device (``module.to(device)`` moves its empty ``device_anchor`` buffer, which nothing saves)."""

    kind = "additive"

    def __init__(self, d_model: int, *, base: float = BASE) -> None:
        super().__init__()
        _check_even(d_model)
        self.d_model, self.base = d_model, base
        self.register_buffer("device_anchor", torch.empty(0), persistent=False)  # [0]: where the table is built

    def forward(self, seq_len: int) -> torch.Tensor:
        return sinusoidal_table(seq_len, self.d_model, base=self.base, device=self.device_anchor.device)


class RawIntegerPositions(nn.Module):
    """Additive, parameter-free: the raw position number ``p = 1, 2, 3, …`` on every channel, the idea post A
    dismisses before sinusoidal PE ('단순히 1, 2, 3, 4라는 숫자를 더해주면'). ``forward(seq_len) -> [T, D]``
    (float32, on the module's device), row ``i`` equal to ``i + 1`` everywhere; any length is defined."""

    kind = "additive"

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.register_buffer("device_anchor", torch.empty(0), persistent=False)  # [0]: where the table is built

    def forward(self, seq_len: int) -> torch.Tensor:
        p = torch.arange(1, seq_len + 1, dtype=torch.float32, device=self.device_anchor.device)  # [T]
        return p[:, None].expand(seq_len, self.d_model)  # [T, D]


class LearnedPositionalEmbedding(nn.Module):
    """Additive, learned: a ``[max_len, D]`` table trained by the optimizer (post A: ``randn·0.02``).

    ``forward(seq_len) -> [T, D]``. There is no row past ``max_len``.

    Raises:
        ValueError: ``seq_len > max_len`` (never a silent clamp or wrap-around).
    """

    kind = "additive"

    def __init__(self, max_len: int, d_model: int, *, init_std: float = 0.02) -> None:
        super().__init__()
        self.max_len = max_len
        self.weight = nn.Parameter(torch.randn(max_len, d_model) * init_std)  # [max_len, D]

    def forward(self, seq_len: int) -> torch.Tensor:
        if seq_len > self.max_len:
            raise ValueError(f"a learned positional table has {self.max_len} rows; "
                             f"position {seq_len - 1} (seq_len={seq_len}) is past its end")
        return self.weight[:seq_len]
