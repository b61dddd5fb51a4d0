"""Figures of the sinusoidal table (posts A and B): the table itself and the dot product of two rows against their
gap. PNG, written atomically (:mod:`llm_claims_lab.core.figures`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import torch

from llm_claims_lab.core.figures import figure, save


def plot_sinusoidal_table(small: torch.Tensor, large: torch.Tensor, path: Path) -> None:
    """Two heatmaps of the sinusoidal table: ``small`` [8, 6] (post B's printed table) with its values written
    in the cells, and ``large`` [L, D] (e.g. post A's 64 × 128), channels across, positions down."""
    fig = figure((11, 4.4))
    left, right = fig.subplots(1, 2, width_ratios=(1, 1.6))
    left.imshow(small.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    for i in range(small.shape[0]):
        for j in range(small.shape[1]):
            left.text(j, i, f"{small[i, j].item():.4f}", ha="center", va="center", fontsize=7)
    left.set(title=f"{small.shape[0]} × {small.shape[1]} (post B's printed table)", xlabel="channel",
             ylabel="position", xticks=range(small.shape[1]), yticks=range(small.shape[0]))
    image = right.imshow(large.numpy(), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    right.set(title=f"{large.shape[0]} × {large.shape[1]} (post A's exp. 3): fast channels left, slow right",
              xlabel="channel (even: sin, odd: cos)", ylabel="position")
    fig.colorbar(image, ax=right, shrink=0.9, label="PE(position, channel)")
    fig.suptitle("Sinusoidal positional encoding, PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(…)")
    save(fig, path)


def plot_dot_by_gap(table: torch.Tensor, post: Mapping[int, float], path: Path) -> None:
    """PE(i)·PE(j) of every pair of rows of ``table`` [L, D] against the gap j − i ≥ 0 (one point per pair:
    the pairs of a gap fall on one point when the dot product depends on the gap alone), the closed form
    Σ cos(k·ω) over the channel pairs, and the post's printed means (``post``: gap -> value)."""
    L, D = table.shape
    gram = (table.double() @ table.double().T)  # [L, L]
    i, j = torch.triu_indices(L, L)  # pairs with j ≥ i
    omega = 1.0 / torch.pow(torch.tensor(10000.0, dtype=torch.float64),
                            torch.arange(0, D, 2, dtype=torch.float64) / D)  # [D/2]
    gaps = torch.arange(L, dtype=torch.float64)  # [L]
    closed = torch.cos(gaps[:, None] * omega[None, :]).sum(1)  # [L]
    fig = figure((8, 4.4))
    ax = fig.subplots()
    ax.scatter((j - i).numpy(), gram[i, j].numpy(), s=6, alpha=0.35, color="C0",
               label=f"PE(i)·PE(j), all {len(i):,} pairs i ≤ j")
    ax.plot(gaps.numpy(), closed.numpy(), color="C1", lw=1, label="Σ cos(k·ω), closed form")
    ax.scatter(list(post), list(post.values()), marker="x", s=60, color="C3", zorder=3, label="post A's means")
    ax.set(xlabel="gap k = j − i", ylabel="dot product",
           title=f"Sinusoidal PE (L = {L}, d = {D}): PE(i)·PE(j) against the gap j − i")
    ax.legend(fontsize=8)
    save(fig, path)
