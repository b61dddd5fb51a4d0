"""Paragraph NPMI (llm_claims_lab/word2vec/topical.py), the judge of w2v.semantic_neighbours: its values at the
measure's fixed points, on corpora small enough to count by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llm_claims_lab.word2vec.topical import ParagraphIncidence


def test_npmi_at_its_fixed_points() -> None:
    # words 0 and 1 always together, 2 independent of 0, 3 never with 0; 4 in every paragraph
    paragraphs = [[0, 1, 2, 4], [0, 1, 4], [2, 3, 4], [3, 4]]
    npmi = ParagraphIncidence(paragraphs, 5).npmi(0, [1, 2, 3])
    assert npmi[0] == pytest.approx(1.0) and npmi[1] == pytest.approx(0.0, abs=1e-12) and npmi[2] == -1.0
    assert ParagraphIncidence(paragraphs, 5).npmi(4, [4]).tolist() == [1.0]  # P(a, b) = 1: the limit, not 0/0


def test_npmi_is_bouma_formula_and_counts_presence() -> None:
    paragraphs = [[0, 0, 0, 1], [0], [1, 2], [2], [0, 2]]  # 0 three times in one paragraph: present once
    p_a, p_b, p_ab = 3 / 5, 2 / 5, 1 / 5
    expected = math.log(p_ab / (p_a * p_b)) / -math.log(p_ab)
    assert ParagraphIncidence(paragraphs, 3).npmi(0, [1])[0] == pytest.approx(expected)


def test_a_word_in_no_paragraph_scores_minus_one() -> None:
    assert ParagraphIncidence([[0, 1]], 3).npmi(0, [2]).tolist() == [-1.0]


@pytest.mark.parametrize("paragraphs, vocab_size", [([[0, 3]], 3), ([], 3)])
def test_bad_input_is_refused(paragraphs, vocab_size) -> None:
    with pytest.raises(ValueError):
        ParagraphIncidence(paragraphs, vocab_size)


def test_scores_are_symmetric() -> None:
    rng = np.random.default_rng(0)
    paragraphs = [rng.integers(0, 20, size=8).tolist() for _ in range(50)]
    incidence = ParagraphIncidence(paragraphs, 20)
    pairs = [(a, b) for a in range(20) for b in range(20) if a != b]
    assert all(incidence.npmi(a, [b])[0] == pytest.approx(incidence.npmi(b, [a])[0]) for a, b in pairs)
