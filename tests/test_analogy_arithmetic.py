"""The embedding arithmetic of llm_claims_lab/core/analogy.py (analogies, direction cosines, random-pair baselines,
vocabulary errors), on tables small enough to reason about."""

from __future__ import annotations

import math
import re

import pytest
import torch

from llm_claims_lab.core.analogy import (
    BPEVocabulary,
    NotOneToken,
    WordList,
    analogy,
    direction_cosine,
    listing,
    random_pair_cosines,
    share_at_least,
    token_id,
)

# A 4-word toy table (dims: royalty, male, female): king − man + woman = (4, 0, 1), whose nearest row
# is 'king' itself (cos 16/17) unless the inputs are excluded, when it is 'queen' (cos 5/√34).
TOY_WORDS = ["king", "man", "woman", "queen"]
TOY_TABLE = torch.tensor([[4.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]])  # [V, D]


@pytest.fixture
def toy() -> WordList:
    return WordList(TOY_WORDS, name="the toy table", hint="toy words are lower-case")


# --- arithmetic ------------------------------------------------------------------------------------

def test_excluding_the_inputs_changes_the_answer(toy: WordList) -> None:
    kept = analogy(TOY_TABLE, toy, "king", "man", "woman", k=4, exclude_inputs=False)
    excluded = analogy(TOY_TABLE, toy, "king", "man", "woman", k=1)
    assert [w for w, _ in kept] == ["king", "queen", "woman", "man"]
    assert kept[0][1] == pytest.approx(16 / 17) and kept[1][1] == pytest.approx(5 / math.sqrt(34))
    assert excluded == [("queen", pytest.approx(5 / math.sqrt(34)))]


def test_direction_cosine(toy: WordList) -> None:
    # queen − king = (−3, −1, 1), woman − man = (0, −1, 1): cos = 2 / (√11 · √2)
    cosine = direction_cosine(TOY_TABLE, toy, "queen", "king", "woman", "man")
    assert cosine == pytest.approx(2 / math.sqrt(22))


def test_random_pairs_are_distinct_rows_and_seeded() -> None:
    table = torch.eye(3)  # every difference of two distinct rows has a nonzero cosine with e0 − e1
    vocab = WordList(["a", "b", "c"], name="three words", hint="")

    def draw() -> torch.Tensor:  # [N]
        return random_pair_cosines(table, vocab, "a", "b", n=500, generator=torch.Generator().manual_seed(1))

    first = draw()
    assert first.shape == (500,) and (first != 0).all()
    assert torch.equal(first, draw())


def test_share_of_random_pairs_and_its_exact_interval() -> None:
    chance = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)  # [N]
    level = 0.9973
    tail = (1 - level) / 2
    share, (low, high) = share_at_least(chance, 0.2, level=level)  # 0.2 itself counts: 3 of 4
    assert share == 0.75 and low < share < high < 1
    none, interval = share_at_least(chance, 0.5, level=level)  # no draw as aligned
    # Clopper–Pearson at 0 of n: [0, 1 − tail^(1/n)], centred on nothing but the share's own side (the Agresti–Coull
    # SD it replaces was centred at (0 + 1.92)/(4 + 3.84) = 0.245)
    assert none == 0.0 and interval == pytest.approx((0.0, 1 - tail ** (1 / 4)))
    every, interval = share_at_least(chance, 0.0, level=level)
    assert every == 1.0 and interval == pytest.approx((tail ** (1 / 4), 1.0))


def test_unknown_word_is_a_clear_error(toy: WordList) -> None:
    with pytest.raises(NotOneToken, match=r"'King' is not in the vocabulary of the toy table.*lower-case"):
        analogy(TOY_TABLE, toy, "King", "man", "woman")


@pytest.mark.parametrize(("word", "split"), [("Pyongyang", "['Py', 'ongyang']"), ("Seoul", "['Se', 'oul']")])
def test_gpt2_word_without_its_leading_space_is_a_clear_error(gpt2_tokenizer, word: str, split: str) -> None:
    vocab = BPEVocabulary(gpt2_tokenizer)
    with pytest.raises(NotOneToken, match=rf"'{word}' is 2 tokens {re.escape(split)}, not one.*leading"):
        token_id(vocab, word)
    assert len(vocab.ids(" " + word)) == 1


def test_listing_prints_like_the_post() -> None:
    assert listing([(" queen", 0.70949), ("Queen", 0.5721)]) == "' queen' 0.709, 'Queen' 0.572"
