"""Report figures (matplotlib's Agg canvas, no display), written atomically as PNG."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from llm_claims_lab.atomic import write_atomic
from llm_claims_lab.stats import t_half_width

if TYPE_CHECKING:
    from llm_claims_lab.extrapolation import Run


def plot_accuracy_by_position(runs: Mapping[str, Sequence[Run]], path: Path) -> None:
    """Accuracy per position at length 40 (every scheme) and 80 (those evaluated there): mean over
    seeds, with its 95 % interval when there are several; written to ``path`` (PNG, atomically).
    ``runs``: scheme -> its runs, one per seed."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 4.6), layout="constrained")
    FigureCanvasAgg(fig)
    for ax, L in zip(fig.subplots(1, 2, sharey=True), (40, 80)):
        for color, (scheme, rs) in enumerate(runs.items()):
            if not rs or L not in rs[0].correct:
                continue
            acc = torch.stack([r.accuracy(L) for r in rs])  # [seeds, L − 1]
            mean = acc.mean(0)
            ax.plot(range(L - 1), mean, label=scheme, lw=1.4, color=f"C{color}")
            if len(rs) > 1:
                half = t_half_width(acc.std(0), len(rs), 0.975)  # [L − 1]
                ax.fill_between(range(L - 1), mean - half, mean + half, color=f"C{color}", alpha=0.2)
        T = next(iter(runs.values()))[0].config.train_len
        ax.axvline(T - 1.5, color="grey", ls="--", lw=0.8)
        ax.axhline(100 / next(iter(runs.values()))[0].config.vocab_size, color="grey", ls=":", lw=0.8)
        ax.set(title=f"length {L} (trained at {T})", xlabel="position i (predicting token i + 1)",
               ylim=(-2, 102))
    fig.axes[0].set_ylabel("accuracy (%)")
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(runs), fontsize=9)
    n = len(next(iter(runs.values())))
    fig.suptitle(f"Post A's extrapolation duel: accuracy by position ({n} seed{'s' if n > 1 else ''}; "
                 "dashed: first new position, dotted: chance)")
    write_atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110))


def _figure(figsize: tuple[float, float]):
    """A matplotlib figure on the Agg canvas (no display, no global pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: Path) -> None:
    """PNG, atomically, with no metadata that changes between runs (the same data gives the same bytes)."""
    write_atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None}))


def plot_sinusoidal_table(small: torch.Tensor, large: torch.Tensor, path: Path) -> None:
    """Two heatmaps of the sinusoidal table: ``small`` [8, 6] (post B's printed table) with its values written
    in the cells, and ``large`` [L, D] (e.g. post A's 64 × 128), channels across, positions down."""
    fig = _figure((11, 4.4))
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
    _save(fig, path)


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
    fig = _figure((8, 4.4))
    ax = fig.subplots()
    ax.scatter((j - i).numpy(), gram[i, j].numpy(), s=6, alpha=0.35, color="C0",
               label=f"PE(i)·PE(j), all {len(i):,} pairs i ≤ j")
    ax.plot(gaps.numpy(), closed.numpy(), color="C1", lw=1, label="Σ cos(k·ω), closed form")
    ax.scatter(list(post), list(post.values()), marker="x", s=60, color="C3", zorder=3, label="post A's means")
    ax.set(xlabel="gap k = j − i", ylabel="dot product",
           title=f"Sinusoidal PE (L = {L}, d = {D}): PE(i)·PE(j) against the gap j − i")
    ax.legend(fontsize=8)
    _save(fig, path)


def plot_relative_bias(bias: Sequence[float], train_len: int, path: Path) -> None:
    """The learned relative-bias table, one value per offset j − i (``bias``: offsets −(L−1) … L−1, index
    o + L − 1), with the offsets never seen in training (|o| ≥ ``train_len``) shaded and their values drawn
    as dots, so that a value of 0 is visible."""
    L = (len(bias) + 1) // 2
    offsets = list(range(1 - L, L))
    seen = [abs(o) < train_len for o in offsets]
    fig = _figure((10, 4))
    ax = fig.subplots()
    ax.axvspan(-(L - 0.5), -(train_len - 0.5), color="grey", alpha=0.15, label=f"never trained (|j − i| ≥ {train_len})")
    ax.axvspan(train_len - 0.5, L - 0.5, color="grey", alpha=0.15)
    ax.bar([o for o, s in zip(offsets, seen) if s], [b for b, s in zip(bias, seen) if s], color="C0",
           label="trained offsets")
    ax.scatter([o for o, s in zip(offsets, seen) if not s], [b for b, s in zip(bias, seen) if not s], s=12,
               color="C3", zorder=3, label="untrained offsets: their bias (0)")
    ax.axhline(0, color="black", lw=0.6)
    ax.set(xlabel="offset j − i (key minus query)", ylabel="learned bias on the attention logit",
           xlim=(-L, L), title="Post A's relative bias after training: one learned value per offset")
    ax.legend(fontsize=8)
    _save(fig, path)


def plot_relatedness(cosines: Sequence[float], human: Sequence[float], rho: float, interval: Sequence[float],
                     path: Path) -> None:
    """Cosine of two words' vectors against people's relatedness score, one point per pair, with Spearman's ρ
    and its interval in the title."""
    fig = _figure((6.5, 4.6))
    ax = fig.subplots()
    ax.scatter(list(human), list(cosines), s=9, alpha=0.6, color="C0")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set(xlabel="human relatedness score (WS-353, Korean, 0–10)", ylabel="cosine of the two rows",
           title=f"Trained skip-gram table: Spearman ρ = {rho:.3f}, 95 % interval "
                 f"[{interval[0]:.3f}, {interval[1]:.3f}], {len(cosines)} pairs")
    _save(fig, path)


def write_neighbour_table(rows: Mapping[str, tuple[Sequence[str], Sequence[str]]], path: Path) -> None:
    """A Markdown table of nearest neighbours (``rows``: query -> (ours, the post's)), with their overlap;
    Markdown because the words are Korean (no Hangul font is assumed for the plots)."""
    lines = ["# Nearest neighbours: ours beside post A's", "",
             "| query | ours (cosine on the centre table) | post A's | overlap |", "|---|---|---|---|"]
    for query, (ours, post) in rows.items():
        common = ", ".join(sorted(set(ours) & set(post))) or "none"
        lines.append(f"| {query} | {', '.join(ours)} | {', '.join(post)} | {common} |")
    write_atomic(path, lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n", encoding="utf-8"))
