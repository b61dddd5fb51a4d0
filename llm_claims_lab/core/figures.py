"""Report figures: a matplotlib figure on the Agg canvas (no display, no global pyplot state) and its PNG, written
atomically. Each experiment's figures live in its sub-package (``extrapolation.figures``, ``positional.figures``,
``word2vec.figures``)."""

from __future__ import annotations

from pathlib import Path

from llm_claims_lab.core.atomic import write_atomic


def figure(figsize: tuple[float, float]):
    """A matplotlib figure on the Agg canvas (no display, no global pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig, path: Path) -> None:
    """PNG, atomically, with no metadata that changes between runs (the same data gives the same bytes)."""
    write_atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None}))
