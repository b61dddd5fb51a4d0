"""The report's figures (``figures`` of llm_claims_lab.extrapolation, .positional and .word2vec): drawn from given values, the same bytes every time, written
atomically (no temp file left), on synthetic inputs (no training)."""

from __future__ import annotations

from pathlib import Path

import torch

from llm_claims_lab.extrapolation import figures as extrapolation_figures
from llm_claims_lab.positional import figures as positional_figures
from llm_claims_lab.positional import sinusoidal_table
from llm_claims_lab.word2vec import figures as word2vec_figures


def _draw_all(out: Path) -> dict[str, bytes]:
    bias = torch.zeros(79)
    bias[20:59] = torch.linspace(-1, 1, 39)  # offsets −19 … 19 trained, the rest 0
    positional_figures.plot_sinusoidal_table(sinusoidal_table(8, 6), sinusoidal_table(64, 128), out / "table.png")
    positional_figures.plot_dot_by_gap(sinusoidal_table(64, 128, dtype=torch.float64), {1: 62.094, 3: 52.186}, out / "dot.png")
    extrapolation_figures.plot_relative_bias(bias.tolist(), 20, out / "bias.png")
    word2vec_figures.plot_relatedness([0.1, 0.3, 0.2], [2.0, 8.0, 5.0], 0.5, [-0.2, 0.9], out / "ws353.png")
    word2vec_figures.write_neighbour_table({"물리학": (["분야", "물리"], ["분야", "역학"])}, out / "neighbours.md")
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_figures_are_deterministic_and_atomic(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _draw_all(tmp_path / "a"), _draw_all(tmp_path / "b")
    assert first == second
    assert set(first) == {"table.png", "dot.png", "bias.png", "ws353.png", "neighbours.md"}
    assert all(data.startswith(b"\x89PNG") for name, data in first.items() if name.endswith(".png"))
    assert "| 물리학 | 분야, 물리 | 분야, 역학 | 분야 |" in first["neighbours.md"].decode("utf-8")
