"""Figures of the length-extrapolation duel (post A, exp. 3): accuracy by position, and the relative bias a run
learned. PNG, written atomically."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from llm_claims_lab.core.atomic import write_atomic
from llm_claims_lab.core.figures import figure, save
from llm_claims_lab.core.stats import t_half_width

if TYPE_CHECKING:
    from llm_claims_lab.extrapolation.evaluation import Run


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


def plot_relative_bias(bias: Sequence[float], train_len: int, path: Path) -> None:
    """The learned relative-bias table, one value per offset j − i (``bias``: offsets −(L−1) … L−1, index
    o + L − 1), with the offsets never seen in training (|o| ≥ ``train_len``) shaded and their values drawn
    as dots, so that a value of 0 is visible."""
    L = (len(bias) + 1) // 2
    offsets = list(range(1 - L, L))
    seen = [abs(o) < train_len for o in offsets]
    fig = figure((10, 4))
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
    save(fig, path)
