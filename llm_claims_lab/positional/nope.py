"""No positional encoding: the control "NoPE" (Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length
Generalization in Transformers"), an additive table of zeros ``[T, D]`` (letters as in :mod:`.absolute`).

A module of its own, so that the code the other schemes' weights are fingerprinted by (:mod:`.absolute`, which the
heads lab also trains with) is not edited by it.
"""

from __future__ import annotations

import torch
from torch import nn


class NoPositionalEncoding(nn.Module):
    """Additive, parameter-free: no position signal, a table of zeros. ``forward(seq_len) -> [T, D]`` (float32
    zeros, on the module's device); any length is defined.

    Without a causal mask, attention over the sum is permutation-equivariant: the output at position ``i`` depends
    on token ``x_i`` and on the multiset of the sequence's tokens only (a causal mask would leak position, which is
    how Kazemnejad et al.'s decoders learn it)."""

    kind = "additive"

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.register_buffer("device_anchor", torch.empty(0), persistent=False)  # [0]: where the table is built

    def forward(self, seq_len: int) -> torch.Tensor:
        return torch.zeros(seq_len, self.d_model, device=self.device_anchor.device)  # [T, D]
