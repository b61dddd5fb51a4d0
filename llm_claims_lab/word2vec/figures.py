"""Figures of post A's exp. 1: relatedness against the trained table's cosines (PNG) and the nearest-neighbour
table (Markdown), written atomically (:mod:`llm_claims_lab.core.figures`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from llm_claims_lab.core.atomic import write_atomic
from llm_claims_lab.core.figures import figure, save


def plot_relatedness(cosines: Sequence[float], human: Sequence[float], rho: float, interval: Sequence[float],
                     path: Path) -> None:
    """Cosine of two words' vectors against people's relatedness score, one point per pair, with Spearman's ρ
    and its interval in the title."""
    fig = figure((6.5, 4.6))
    ax = fig.subplots()
    ax.scatter(list(human), list(cosines), s=9, alpha=0.6, color="C0")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set(xlabel="human relatedness score (WS-353, Korean, 0–10)", ylabel="cosine of the two rows",
           title=f"Trained skip-gram table: Spearman ρ = {rho:.3f}, 95 % interval "
                 f"[{interval[0]:.3f}, {interval[1]:.3f}], {len(cosines)} pairs")
    save(fig, path)


def write_neighbour_table(rows: Mapping[str, tuple[Sequence[str], Sequence[str]]], path: Path) -> None:
    """A Markdown table of nearest neighbours (``rows``: query -> (ours, the post's)), with their overlap;
    Markdown because the words are Korean (no Hangul font is assumed for the plots)."""
    lines = ["# Nearest neighbours: ours beside post A's", "",
             "| query | ours (cosine on the centre table) | post A's | overlap |", "|---|---|---|---|"]
    for query, (ours, post) in rows.items():
        common = ", ".join(sorted(set(ours) & set(post))) or "none"
        lines.append(f"| {query} | {', '.join(ours)} | {', '.join(post)} | {common} |")
    write_atomic(path, lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n", encoding="utf-8"))
