"""Reduced precision and tiny vectors: the positional angles and the one cosine of the suite.

A float16 or bfloat16 positional table must be the float64 table rounded once: its angles are computed in
float32 or wider, never in the output dtype (float16 holds integers exactly only up to 2048, so an angle of
2047·ω was off by up to ~1 rad, and the table by up to 1.15). RoPE outputs likewise. The cosine must be right
for vectors of any nonzero norm: ``F.cosine_similarity`` clamps norms at 1e-8, which turned a cosine of
0.9104 into 0.8399 for a difference vector of norm 9.2e-9.
"""

from __future__ import annotations

import math

import pytest
import torch

from llm_claims_lab.core.analogy import (WordList, analogy_cosines, cosine, direction_cosine,
                                         random_pair_cosines)
from llm_claims_lab.positional import apply_rope, frequencies, shift_matrix, sinusoidal_table

HALF = [  # dtype, bound on |value − float64 value| for values in [−1, 1]: its rounding, with room
    pytest.param(torch.float16, 1e-3, id="float16"),  # half an ulp below 1 is 2^-12 = 2.4e-4
    pytest.param(torch.bfloat16, 8e-3, id="bfloat16"),  # half an ulp below 1 is 2^-9 = 2.0e-3
]
T, D = 2048, 128  # a context length where float16 positions are still exact integers, its angles not


def _angles_in_output_dtype(seq_len: int, d_model: int, dtype: torch.dtype) -> torch.Tensor:
    """The table as it was computed before issue 8, in the output dtype throughout: [T, D]."""
    two_i = torch.arange(0, d_model, 2, dtype=dtype)  # [D/2]
    angle = torch.arange(seq_len, dtype=dtype)[:, None] / 10000.0 ** (two_i / d_model)  # [T, D/2]
    pe = torch.empty(seq_len, d_model, dtype=dtype)  # [T, D]
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe


@pytest.mark.parametrize(("dtype", "bound"), HALF)
def test_reduced_precision_table_is_the_float64_table_rounded(dtype: torch.dtype, bound: float) -> None:
    reference = sinusoidal_table(T, D, dtype=torch.float64)  # [T, D]
    table = sinusoidal_table(T, D, dtype=dtype)  # [T, D]
    assert table.dtype == dtype
    error = (table.double() - reference).abs().max().item()  # measured: float16 2.44e-4, bfloat16 1.95e-3
    assert error <= bound
    assert torch.equal(table, reference.to(dtype))  # rounded exactly once
    # the bound has power: angles in the output dtype miss it by three orders of magnitude
    assert (_angles_in_output_dtype(T, D, dtype).double() - reference).abs().max().item() > 100 * bound


def test_float32_table_keeps_the_posts_float32_arithmetic() -> None:
    """float32 angles, as both posts' code computes them: the pe.sin claims compare with their numbers."""
    assert torch.equal(sinusoidal_table(64, 128), _angles_in_output_dtype(64, 128, torch.float32))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_reduced_precision_frequencies_and_shift_matrix(dtype: torch.dtype) -> None:
    assert torch.equal(frequencies(D, dtype=dtype), frequencies(D, dtype=torch.float64).to(dtype))
    assert torch.equal(shift_matrix(30, D, dtype=dtype), shift_matrix(30, D).to(dtype))


@pytest.mark.parametrize(("dtype", "bound"), HALF)
def test_reduced_precision_rope_matches_float64(dtype: torch.dtype, bound: float) -> None:
    """Queries whose (2i, 2i+1) pairs have norm ≤ 1, so every rotated value lies in [−1, 1]."""
    x = torch.randn(2, T, D, generator=torch.Generator().manual_seed(0))  # [B, T, D]
    pair_norm = x.view(2, T, D // 2, 2).norm(dim=-1).max()
    x = (x / pair_norm).to(dtype)  # [B, T, D], exactly representable in dtype
    positions = torch.arange(T)
    reference = apply_rope(x.double(), positions)  # the same inputs, rotated in float64
    rotated = apply_rope(x, positions)
    assert rotated.dtype == dtype
    error = (rotated.double() - reference).abs().max().item()  # measured: float16 2.44e-4, bfloat16 1.95e-3
    assert error <= bound
    # the bound has power: the same rotation with angles in the output dtype
    omega = frequencies(D, dtype=dtype)  # [D/2], rounded like the old code's
    angle = positions.to(dtype)[:, None] * omega  # [T, D/2]
    cos, sin = angle.cos(), angle.sin()
    old = torch.stack([x[..., 0::2] * cos - x[..., 1::2] * sin, x[..., 0::2] * sin + x[..., 1::2] * cos], -1)
    assert (old.flatten(-2).double() - reference).abs().max().item() > 100 * bound


def test_non_float_dtype_is_refused() -> None:
    with pytest.raises(ValueError, match="floating-point dtype"):
        sinusoidal_table(8, 6, dtype=torch.int64)


# --- the cosine ------------------------------------------------------------------------------------

def _float32(values: list[float]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


# Two float32 rows a tiny step apart (one float32 ulp in two coordinates: a difference of norm 8.3e-9, below
# F.cosine_similarity's clamp at 1e-8), and a direction c − d of ordinary size.
A = _float32([0.05, 0.1, 0.3])
B = torch.nextafter(A, _float32([1.0, -1.0, 0.3]))  # [0.05 + ulp, 0.1 − ulp, 0.3]
C, DIR_D = _float32([1.0, -2.0, 0.5]), _float32([0.0, 0.5, 0.5])


def _by_hand(u: list[float], v: list[float]) -> float:
    """cos(u, v) in float64 from Python floats (float32 values and their differences are exact there)."""
    return math.fsum(a * b for a, b in zip(u, v)) / (math.hypot(*u) * math.hypot(*v))


def test_cosine_of_a_tiny_difference_vector_is_right() -> None:
    u = [a - b for a, b in zip(A.tolist(), B.tolist())]
    v = [c - d for c, d in zip(C.tolist(), DIR_D.tolist())]
    assert 0 < math.hypot(*u) < 1e-8  # measured: 8.33e-9
    expected = _by_hand(u, v)  # −0.99655 (F.cosine_similarity, clamping the norm at 1e-8: −0.8301)
    assert cosine(A - B, C - DIR_D).item() == pytest.approx(expected, rel=1e-12)
    table = torch.stack([A, B, C, DIR_D])  # [V=4, D=3]
    vocab = WordList(["a", "b", "c", "d"], name="four rows", hint="")
    assert direction_cosine(table, vocab, "a", "b", "c", "d") == pytest.approx(expected, rel=1e-12)
    # the chance-level draws go through the same cosine: every drawn (a, b) pair gives the same value
    drawn = random_pair_cosines(table, vocab, "c", "d", n=400, generator=torch.Generator().manual_seed(3))
    replay = torch.Generator().manual_seed(3)  # the same draws: rows i, then offsets to j
    i = torch.randint(4, (400,), generator=replay)
    j = (i + torch.randint(1, 4, (400,), generator=replay)) % 4
    pair_ab = (i == 0) & (j == 1)
    assert pair_ab.any() and torch.allclose(drawn[pair_ab], torch.tensor(expected, dtype=torch.float64),
                                            rtol=1e-12, atol=0)


def test_cosine_broadcasts_rows_against_one_vector() -> None:
    table = torch.randn(50, 8, generator=torch.Generator().manual_seed(1))  # [V, D]
    query = torch.randn(8, generator=torch.Generator().manual_seed(2))  # [D]
    scores = cosine(table, query)  # [V]
    assert scores.shape == (50,) and scores.dtype == torch.float64
    for row, score in zip(table.tolist(), scores.tolist()):
        assert score == pytest.approx(_by_hand(row, query.tolist()), rel=1e-12)
    vocab = WordList([f"w{k}" for k in range(50)], name="fifty rows", hint="")
    query = table[0].double() - table[1].double() + table[2].double()
    assert torch.equal(analogy_cosines(table, vocab, "w0", "w1", "w2"), cosine(table, query))


def test_cosine_of_a_zero_vector_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"first argument has 1 zero vector.*undefined"):
        cosine(torch.zeros(3), torch.ones(3))
    with pytest.raises(ValueError, match=r"second argument has 2 zero vector"):
        cosine(torch.ones(3, 4), torch.tensor([[1.0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]))
