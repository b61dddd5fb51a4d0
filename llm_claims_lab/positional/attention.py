"""Single-head self-attention as post A writes it (exp. 3 ``pe_probe.py``).

Letters: B batch, T seq_len, D d_model.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from llm_claims_lab.positional import apply_rope


class SingleHeadSelfAttention(nn.Module):
    """``softmax(Q Kᵀ/√D + bias) V`` with ``Q, K, V = h Wq, h Wk, h Wv``; no mask, no output projection.

    ``Wq, Wk, Wv: [D, D]`` initialised ``randn/√D`` (post A). Position enters, if at all, through the
    input (additive PE), ``bias`` (``[H=1, T, T]``, e.g. :class:`~llm_claims_lab.positional.RelativePositionBias`)
    or ``rope_positions`` (``[T]``, rotates Q and K).
    """

    def __init__(self, d_model: int, *, generator: torch.Generator | None = None) -> None:
        super().__init__()
        self.d_model = d_model

        def w() -> nn.Parameter:
            return nn.Parameter(torch.randn(d_model, d_model, generator=generator) / math.sqrt(d_model))

        self.Wq, self.Wk, self.Wv = w(), w(), w()  # [D, D] each

    def logits(self, h: torch.Tensor, *, bias: torch.Tensor | None = None,
               rope_positions: torch.Tensor | None = None) -> torch.Tensor:
        """Attention logits ``[B, T, T]`` for ``h: [B, T, D]``."""
        q, k = h @ self.Wq, h @ self.Wk  # [B, T, D]
        if rope_positions is not None:
            q, k = apply_rope(q, rope_positions), apply_rope(k, rope_positions)
        s = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)  # [B, T, T]
        return s if bias is None else s + bias

    def forward(self, h: torch.Tensor, *, bias: torch.Tensor | None = None,
                rope_positions: torch.Tensor | None = None) -> torch.Tensor:
        """``h: [B, T, D]`` → ``[B, T, D]``."""
        attn = self.logits(h, bias=bias, rope_positions=rope_positions).softmax(-1)  # [B, T, T]
        return attn @ (h @ self.Wv)
