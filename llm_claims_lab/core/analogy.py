"""Vector arithmetic on a token-embedding table: analogies and direction cosines.

Post A, exp. 2 (``gpt2_arith.py``): the query of ``a − b + c`` is ``normalize(E[a] − E[b] + E[c])``,
scored by cosine against every row of the row-normalised table, the three inputs excluded; a
direction cosine is ``cos(E[a] − E[b], E[c] − E[d])``. The functions work on any table and any
:class:`Vocabulary` (GPT-2's BPE, GloVe's word list, a toy list in a test).

Letters: V - rows of the table (vocabulary size), D - embedding width, N - random pairs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

import torch

from llm_claims_lab.core.stats import proportion_interval


class NotOneToken(ValueError):
    """A word does not map to exactly one row of the table (unknown, or split into several tokens)."""


class Vocabulary(Protocol):
    """Words ↔ rows of an embedding table."""

    name: str  # shown in errors, e.g. "GPT-2's BPE"
    hint: str  # how to spell a word so that it is one token

    def ids(self, word: str) -> list[int]:
        """The rows ``word`` occupies: one for a single token, several when split, none when unknown."""

    def token(self, row: int) -> str:
        """The text of row ``row``."""


@dataclasses.dataclass(frozen=True)
class BPEVocabulary:
    """A Hugging Face tokenizer as a :class:`Vocabulary` (GPT-2's BPE: words carry their leading space)."""

    tokenizer: Any
    name: str = "GPT-2's BPE"
    hint: str = ("GPT-2 spells a word with its leading space, as in running text: ' king' is one token, "
                 "'Pyongyang' without the space is two ('Py', 'ongyang')")

    def ids(self, word: str) -> list[int]:
        return self.tokenizer.encode(word, add_special_tokens=False)

    def token(self, row: int) -> str:
        return self.tokenizer.decode([row])


class WordList:
    """A word list as a :class:`Vocabulary`: row ``i`` is ``words[i]``; a word not in the list has no row."""

    def __init__(self, words: Sequence[str], name: str, hint: str) -> None:
        self.words = list(words)
        self.rows = {w: i for i, w in enumerate(self.words)}
        self.name, self.hint = name, hint

    def ids(self, word: str) -> list[int]:
        return [self.rows[word]] if word in self.rows else []

    def token(self, row: int) -> str:
        return self.words[row]


def token_id(vocab: Vocabulary, word: str) -> int:
    """The one row of ``word``.

    Raises:
        NotOneToken: ``word`` is unknown or splits into several tokens; the message gives the split
            and the vocabulary's spelling hint (for GPT-2: the leading space).
    """
    ids = vocab.ids(word)
    if len(ids) == 1:
        return ids[0]
    found = "is not in the vocabulary" if not ids else (
        f"is {len(ids)} tokens {[vocab.token(i) for i in ids]}, not one")
    raise NotOneToken(f"{word!r} {found} of {vocab.name}: the arithmetic needs one row per word. "
                      + vocab.hint)


def cosine(x: torch.Tensor, y: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``x·y / (|x| |y|)`` along ``dim``, ``x`` and ``y`` broadcast against each other (e.g. [V, D] with
    [D] gives [V]); unit: cosine, float64. The one cosine of the suite: every claim goes through it.

    Both inputs are taken to float64 and the dot product is divided by their true norms, nothing
    clamped, so the result is right for any nonzero vectors, however small: float64 holds the squares
    of every float32 value, subnormals included. (``F.cosine_similarity`` clamps each norm at 1e-8 and
    ``F.normalize`` at 1e-12: a difference vector of norm 9.2e-9 then gets 0.8399 for a cosine of 0.9104.)

    Raises:
        ValueError: a zero vector (its cosine is undefined), naming how many there are.
    """
    x64, y64 = x.double(), y.double()
    norm_x = torch.linalg.vector_norm(x64, dim=dim)
    norm_y = torch.linalg.vector_norm(y64, dim=dim)
    for name, norm in (("first", norm_x), ("second", norm_y)):
        zeros = int((norm == 0).sum())
        if zeros:
            raise ValueError(f"cosine: the {name} argument has {zeros} zero vector(s) along dim {dim}; "
                             "the cosine of a zero vector is undefined")
    if y64.dim() == 1 and dim in (-1, x64.dim() - 1):  # [..., D] with [D]: a matrix-vector product
        dot = x64 @ y64
    else:
        dot = (x64 * y64).sum(dim)
    return dot / (norm_x * norm_y)


def analogy_cosines(table: torch.Tensor, vocab: Vocabulary, a: str, b: str, c: str) -> torch.Tensor:
    """Cosine of every row of ``table`` ([V, D]) with the query ``normalize(E[a] − E[b] + E[c])``:
    a [V] float64 tensor (unit: cosine; :func:`cosine`, the query summed in float64). Post A, exp. 2.

    Raises:
        NotOneToken: one of the words is not exactly one token.
        ValueError: the query or a row of ``table`` is a zero vector.
    """
    va, vb, vc = (table[token_id(vocab, w)].double() for w in (a, b, c))  # [D] each
    return cosine(table, va - vb + vc)  # [V]


def analogy(table: torch.Tensor, vocab: Vocabulary, a: str, b: str, c: str, *, k: int = 5,
            exclude_inputs: bool = True) -> list[tuple[str, float]]:
    """The ``k`` rows nearest to ``a − b + c`` by cosine, best first, as ``(token, cosine)`` pairs.

    ``table`` is [V, D]. With ``exclude_inputs`` (the post's choice, and gensim's ``most_similar``)
    ``a``, ``b`` and ``c`` are never candidates; without it they compete like any other row.
    Post A, exp. 2.

    Raises:
        NotOneToken: one of the words is not exactly one token.
    """
    top = _candidate_scores(table, vocab, a, b, c, exclude_inputs).topk(k)
    return [(vocab.token(i), v) for v, i in zip(top.values.tolist(), top.indices.tolist(), strict=True)]


def analogy_rank(table: torch.Tensor, vocab: Vocabulary, a: str, b: str, c: str, target: str, *,
                 exclude_inputs: bool = True) -> int:
    """Rank (1 = nearest) of ``target`` among the candidates for ``a − b + c`` in ``table`` [V, D], with
    the same query, cosine and exclusion as :func:`analogy`; an excluded ``target`` ranks last.

    Raises:
        NotOneToken: one of the words is not exactly one token.
    """
    scores = _candidate_scores(table, vocab, a, b, c, exclude_inputs)  # [V]
    return int((scores > scores[token_id(vocab, target)]).sum()) + 1


def _candidate_scores(table: torch.Tensor, vocab: Vocabulary, a: str, b: str, c: str,
                      exclude_inputs: bool) -> torch.Tensor:
    """:func:`analogy_cosines`, with the inputs at −inf when they are excluded: [V]."""
    scores = analogy_cosines(table, vocab, a, b, c)  # [V]
    if exclude_inputs:
        scores[[token_id(vocab, w) for w in (a, b, c)]] = -torch.inf
    return scores


@dataclasses.dataclass(frozen=True)
class Answer:
    """What 3CosAdd answers to one question ``a − b + c ≈ expected`` (:func:`answer`): the ``top`` candidate and its
    ``cosine`` (:func:`analogy`'s first) and the ``rank`` of ``expected`` (:func:`analogy_rank`'s), from one scoring."""

    a: str
    b: str
    c: str
    expected: str
    top: str
    cosine: float
    rank: int

    @property
    def correct(self) -> bool:
        """Answered: ``expected`` ranks first (no candidate scores above it), as accuracy counts it."""
        return self.rank == 1

    def record(self) -> dict:
        """One line of the report's per-item log: the question, the model's top-1 answer and whether it is right."""
        return {"a": self.a, "b": self.b, "c": self.c, "query": f"{self.a} − {self.b} + {self.c}",
                "expected": self.expected, "answer": self.top, "cosine": self.cosine, "rank": self.rank,
                "correct": self.correct}


def answer(table: torch.Tensor, vocab: Vocabulary, a: str, b: str, c: str, expected: str, *,
           exclude_inputs: bool = True) -> Answer:
    """:func:`analogy_rank` of ``expected`` for ``a − b + c`` in ``table`` [V, D] and :func:`analogy`'s top-1, from one
    scoring of the candidates (the same query, cosine and exclusion): a question of an accuracy, with its record.

    Raises:
        NotOneToken: one of the words is not exactly one token.
    """
    scores = _candidate_scores(table, vocab, a, b, c, exclude_inputs)  # [V]
    rank = int((scores > scores[token_id(vocab, expected)]).sum()) + 1
    top = scores.topk(1)
    return Answer(a, b, c, expected, vocab.token(top.indices.item()), top.values.item(), rank)


def neighbours_record(a: str, b: str, c: str, expected: str, neighbours: Sequence[tuple[str, float]]) -> dict:
    """:meth:`Answer.record`'s keys (no ``rank``) for a question judged by its nearest rows, ``neighbours`` as
    :func:`analogy` returns them (best first), kept as ``top-k``: nothing is scored again."""
    return {"a": a, "b": b, "c": c, "query": f"{a} − {b} + {c}", "expected": expected, "answer": neighbours[0][0],
            "cosine": neighbours[0][1], "correct": neighbours[0][0] == expected,
            f"top-{len(neighbours)}": [list(n) for n in neighbours]}


def direction_cosine(table: torch.Tensor, vocab: Vocabulary, a: str, b: str, c: str, d: str) -> float:
    """``cos(E[a] − E[b], E[c] − E[d])`` for ``table`` [V, D] (unit: cosine; differences and
    :func:`cosine` in float64). Post A, exp. 2 (``aunt − uncle`` against ``woman − man``).

    Raises:
        NotOneToken: one of the words is not exactly one token.
        ValueError: a difference is the zero vector.
    """
    va, vb, vc, vd = (table[token_id(vocab, w)].double() for w in (a, b, c, d))  # [D] each
    return cosine(va - vb, vc - vd).item()


def random_pair_cosines(table: torch.Tensor, vocab: Vocabulary, c: str, d: str, *, n: int,
                        generator: torch.Generator) -> torch.Tensor:
    """``cos(E[i] − E[j], E[c] − E[d])`` for ``n`` random row pairs ``i ≠ j`` of ``table`` [V, D]:
    a [N] float64 tensor (unit: cosine, :func:`cosine`), the chance level of :func:`direction_cosine`
    against ``c − d``.

    Raises:
        NotOneToken: ``c`` or ``d`` is not exactly one token.
        ValueError: two drawn rows are equal (a zero difference), or ``c − d`` is zero.
    """
    rows = table.shape[0]
    i = torch.randint(rows, (n,), generator=generator)  # [N]
    j = (i + torch.randint(1, rows, (n,), generator=generator)) % rows  # [N], never equal to i
    reference = table[token_id(vocab, c)].double() - table[token_id(vocab, d)].double()  # [D]
    return cosine(table[i].double() - table[j].double(), reference)  # [N]


def gap_in_chance_sds(gap: float, table: torch.Tensor, vocab: Vocabulary, c: str, d: str, *, n: int,
                      generator: torch.Generator, seed: int) -> tuple[float, float, dict]:
    """``(z, se, details)``: ``gap`` (a difference of two cosines) in standard deviations of the cosines of ``c − d``
    with ``n`` random word-pair differences of ``table`` [V, D] (:func:`random_pair_cosines`), the bootstrap standard
    error of that ratio over the N draws (``seed`` seeds the resampling; :func:`~llm_claims_lab.core.stats.bootstrap`),
    and the figures a report shows (gap, the chance cosines' mean and SD, the SE). Unit: SDs of the chance cosines.
    Post A, exp. 2 ('대조군보다 뚜렷이 높아야': clearly above the control).

    Raises:
        NotOneToken: ``c`` or ``d`` is not exactly one token.
    """
    from llm_claims_lab.core.stats import bootstrap

    chance = random_pair_cosines(table, vocab, c, d, n=n, generator=generator)  # [N]
    values = chance.numpy()
    boot = bootstrap((values,), lambda x: gap / x.std(ddof=1), seed=seed, method="percentile")
    se = float(boot.standard_error)
    return gap / float(values.std(ddof=1)), se, {
        "gap (cosine)": round(gap, 4), f"random-pair cosines with {c!r} − {d!r}: mean": round(float(values.mean()), 4),
        "SD": round(float(values.std(ddof=1)), 4), "bootstrap SE": round(se, 4)}


def share_at_least(chance: torch.Tensor, value: float, *, level: float) -> tuple[float, tuple[float, float]]:
    """``(share, (low, high))``: the share of the ``N`` chance cosines ``chance`` ([N], from
    :func:`random_pair_cosines`) that are ≥ ``value``, and its exact interval at ``level``
    (:func:`~llm_claims_lab.core.stats.proportion_interval`). Unit: fraction of random pairs.
    """
    n = chance.numel()
    hits = int((chance >= value).sum())
    return hits / n, proportion_interval(hits, n, level=level)


def listing(neighbours: Sequence[tuple[str, float]]) -> str:
    """``(token, cosine)`` pairs as the post prints them: ``' queen' 0.709, ' princess' 0.605``."""
    return ", ".join(f"{token!r} {cosine:.3f}" for token, cosine in neighbours)


# Post A, exp. 2, as printed (cosines to 3 decimals), shared by the GPT-2 claims and their GloVe
# analogues: a − b + c → the five nearest tokens with their cosines (inputs excluded), and the
# direction cosines cos(a − b, c − d).
POST_A_ANALOGIES = {
    "king_man_woman": ((" king", " man", " woman"),
                       [(" queen", 0.709), (" princess", 0.605), (" Queen", 0.596), (" kings", 0.593),
                        ("Queen", 0.572)]),
    "paris_france_korea": ((" Paris", " France", " Korea"),
                           [(" Korean", 0.652), (" Seoul", 0.604), (" Koreans", 0.574), (" Pyongyang", 0.530),
                            (" Shanghai", 0.479)]),
    "bigger_big_small": ((" bigger", " big", " small"),
                         [(" smaller", 0.797), (" larger", 0.762), ("small", 0.608), (" tiny", 0.598),
                          ("Small", 0.592)]),
}
POST_A_DIRECTIONS = {
    "aunt_uncle": ((" aunt", " uncle", " woman", " man"), 0.293),
    "queen_king": ((" queen", " king", " woman", " man"), 0.417),
    "control": ((" aunt", " uncle", " Paris", " France"), 0.067),  # an unrelated direction
}
