"""Rotary position embedding (RoPE; Su et al. 2021): queries and keys rotated by their positions.

Letters: T seq_len, D d_model.
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from llm_claims_lab.positional.absolute import BASE, _angle_dtype, frequencies


@functools.cache
def _frequencies_on(d_model: int, base: float, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """:func:`~llm_claims_lab.positional.absolute.frequencies` ``[D/2]`` (radians/position) in ``dtype`` on
    ``device``: built on the CPU, so every device rotates with the same frequencies bit for bit, and copied
    to ``device`` once per (``d_model``, ``base``, ``dtype``, ``device``), not in every forward pass (a few
    hundred bytes each, kept for the process's life).

    Raises:
        ValueError: see :func:`~llm_claims_lab.positional.absolute.frequencies`.
    """
    return frequencies(d_model, base=base, dtype=dtype).to(device)


def apply_rope(x: torch.Tensor, positions: torch.Tensor, *, base: float = BASE) -> torch.Tensor:
    """Rotary position embedding (Su et al. 2021), as post B describes: rotate each (2i, 2i+1) pair
    of a query or key by the angle ``pos·ω_i``. ``x: [..., T, D]``, ``positions: [T]`` → ``[..., T, D]``.

    Then ``apply_rope(q, m) · apply_rope(k, n)`` depends on ``m − n`` only.

    Angles and their sin/cos are computed in float32 or wider (:func:`_angle_dtype`: float64 for a
    float16/bfloat16 ``x``), the rotation in float32 or wider, and the result is cast back to ``x.dtype``;
    a float32 ``x`` is rotated entirely in float32, as before. The frequencies are the CPU's, copied to
    ``x``'s device once (:func:`_frequencies_on`): a forward pass on CUDA copies nothing from the host when
    ``positions`` are on ``x``'s device.

    Raises:
        ValueError: odd ``D``, ``positions`` whose length is not ``T``, or a non-floating ``x``.
    """
    d_model = x.shape[-1]
    if positions.shape != (x.shape[-2],):
        raise ValueError(f"positions must have shape [{x.shape[-2]}], got {list(positions.shape)}")
    wide = _angle_dtype(x.dtype)  # angles and sin/cos
    work = torch.promote_types(x.dtype, torch.float32)  # the rotation itself
    omega = _frequencies_on(d_model, base, wide, x.device)  # [D/2]
    angle = positions.to(device=x.device, dtype=wide)[:, None] * omega  # [T, D/2]
    cos, sin = angle.cos().to(work), angle.sin().to(work)  # [T, D/2]
    x_even, x_odd = x[..., 0::2].to(work), x[..., 1::2].to(work)  # [..., T, D/2]
    out = torch.empty(x.shape, dtype=work, device=x.device)  # [..., T, D]
    out[..., 0::2] = x_even * cos - x_odd * sin
    out[..., 1::2] = x_even * sin + x_odd * cos
    return out.to(x.dtype)


class RotaryPositionEmbedding(nn.Module):
    """RoPE as a module (no parameters): ``forward(x: [..., T, D], positions: [T]) -> [..., T, D]``
    rotates queries or keys with :func:`apply_rope` (Su et al. 2021)."""

    kind = "rotary"

    def __init__(self, *, base: float = BASE) -> None:
        super().__init__()
        self.base = base

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return apply_rope(x, positions, base=self.base)
