"""The records the library hands the claims beside each score (WS-353 pairs, 3CosAdd questions), on a handmade
five-word table, each giving the score its existing function gives; and the suite's samples made from them
(:mod:`claims.scored_items`), valid lines of ``samples.jsonl`` (the harness's end-to-end tests:
``llm_claims_harness/tests/test_samples.py``)."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
import torch

import llm_claims_lab.core.analogy as A
from claims.scored_items import analogy_samples, pair_samples, per_seed
from llm_claims_harness.samples import LINE_SCHEMA
from llm_claims_lab.core.analogy import WordList, analogy, analogy_rank, answer, cosine, neighbours_record
from llm_claims_lab.word2vec.ko_eval import Analogy, ScoredPair
from llm_claims_lab.word2vec.relatedness import (rho_difference, rho_difference_items, spearman, word_vectors,
                                                 ws353_items, ws353_score)

# A handmade table: five words on 3 dimensions, queen planted at king − man + woman; 'pear' is no row of it.
WORDS = ["king", "man", "woman", "queen", "apple"]
TABLE = torch.tensor([[0.9, 0.8, 0.1], [0.1, 0.9, 0.0], [0.1, 0.1, 0.9], [0.9, 0.0, 1.0], [-0.5, 0.2, -0.3]])
VOCAB = WordList(WORDS, name="the toy list", hint="lower case")
HUMAN = [8.5, 3.0, 7.0, 1.0, 6.5, 7.5, 0.5, 4.0, 2.0, 1.5]  # the ten pairs of the five words, in order
PAIRS = ([ScoredPair(a, b, s) for (a, b), s in zip([(a, b) for i, a in enumerate(WORDS) for b in WORDS[i + 1:]], HUMAN)]
         + [ScoredPair("king", "pear", 5.0), ScoredPair("queen", "queen", 10.0)])


def test_ws353_items_carry_the_score_of_ws353_score() -> None:
    (cos, human, same_row), records = ws353_items(TABLE, VOCAB, PAIRS)
    old_cos, old_human, old_same = ws353_score(TABLE, VOCAB, PAIRS)
    assert np.array_equal(cos, old_cos) and np.array_equal(human, old_human) and same_row == old_same == 1
    assert spearman(cos, human) == spearman(old_cos, old_human)
    assert [(r["first"], r["second"], r["human"]) for r in records] == [(p.first, p.second, p.score) for p in PAIRS]
    assert [r["cosine"] for r in records if r["covered"]] == old_cos.tolist()
    assert records[0]["cosine"] == cosine(TABLE[0], TABLE[1]).item()
    assert records[-2] == {"first": "king", "second": "pear", "human": 5.0, "covered": False, "cosine": None,
                           "skipped": "not in vocabulary: pear"}
    assert records[-1]["skipped"] == "same row" and records[-1]["cosine"] is None
    json.dumps(records)  # plain JSON as they are


def test_ws353_items_with_a_lookup() -> None:
    pairs = [ScoredPair(p.first + "s", p.second, p.score) for p in PAIRS[:10]]
    strip = lambda word: word.removesuffix("s")  # noqa: E731
    (cos, _, _), records = ws353_items(TABLE, VOCAB, pairs, lookup=strip)
    assert np.array_equal(cos, ws353_score(TABLE, VOCAB, pairs, lookup=strip)[0])
    assert records[0]["first"] == "kings" and records[0]["looked up"] == ["king", "man"]


def test_rho_difference_items_carry_the_score_of_rho_difference() -> None:
    other = torch.randn(5, 3, generator=torch.Generator().manual_seed(1))  # + a word the first vocabulary lacks
    tables = {"toy": (TABLE, VOCAB),
              "other": (torch.cat([other, torch.ones(1, 3)]), WordList(WORDS + ["pear"], name="o", hint="-"))}
    result, records = rho_difference_items(tables, PAIRS, "toy", "other", seed=0, resamples=200)
    assert result == rho_difference(tables, PAIRS, "toy", "other", seed=0, resamples=200)
    scored = PAIRS[:10]  # the pairs both cover
    human = np.array([p.score for p in scored])
    cos = {k: cosine(word_vectors(*tables[k], [p.first for p in scored]),
                     word_vectors(*tables[k], [p.second for p in scored])).numpy() for k in tables}
    assert result["delta"] == spearman(cos["toy"], human) - spearman(cos["other"], human) and result["n"] == 10
    assert [r["cosine"]["other"] for r in records[:10]] == cos["other"].tolist()
    assert records[10]["covered"] == {"toy": False, "other": True}
    assert records[10]["cosine"] == records[11]["cosine"] == {"toy": None, "other": None}


def test_answer_is_analogy_rank_and_analogy_from_one_scoring() -> None:
    for a, b, c, expected in [("king", "man", "woman", "queen"), ("king", "man", "woman", "apple"),
                              ("queen", "woman", "man", "king"), ("apple", "king", "man", "woman")]:
        got = answer(TABLE, VOCAB, a, b, c, expected)
        top = analogy(TABLE, VOCAB, a, b, c, k=1)[0]
        assert got.rank == analogy_rank(TABLE, VOCAB, a, b, c, expected)
        assert (got.top, got.cosine) == top and got.correct == (got.rank == 1)
    record = answer(TABLE, VOCAB, "king", "man", "woman", "queen").record()
    assert record | {"cosine": 0} == {"a": "king", "b": "man", "c": "woman", "query": "king − man + woman",
                                      "expected": "queen", "answer": "queen", "cosine": 0, "rank": 1, "correct": True}
    assert neighbours_record("king", "man", "woman", "queen", [("apple", 0.5), ("queen", 0.4)])["correct"] is False


def test_answer_goes_through_the_scoring_the_mutation_tests_patch(monkeypatch: pytest.MonkeyPatch) -> None:
    scores = A._candidate_scores
    monkeypatch.setattr(A, "_candidate_scores", lambda table, vocab, a, b, c, exclude: scores(table, vocab, b, a, c,
                                                                                               exclude))
    assert not answer(TABLE, VOCAB, "king", "man", "woman", "queen").correct


def test_analogy_items_count_what_analogy_hits_counts() -> None:
    from claims.word2vec_common import analogy_hits, analogy_items

    items = [Analogy("man", "king", "woman", "queen"), Analogy("woman", "queen", "man", "king"),
             Analogy("king", "man", "queen", "apple")]  # a : b = c : d, asked as b − a + c
    hits, records = analogy_items(TABLE, VOCAB, items)
    assert hits == analogy_hits(TABLE, VOCAB, items)
    assert [r["correct"] for r in records] == [analogy_rank(TABLE, VOCAB, it.b, it.a, it.c, it.d) == 1 for it in items]
    assert {k: records[0][k] for k in ("a", "b", "c", "expected", "query")} == {
        "a": "man", "b": "king", "c": "woman", "expected": "queen", "query": "king − man + woman"}
    samples = per_seed(analogy_samples, [1, 2], [records[:1], records[1:]])
    assert [s.item_id for s in samples] == ["seed1/0", "seed2/0", "seed2/1"]
    assert (samples[2].input, samples[2].target, samples[2].prediction, samples[2].score) == (
        ["king", "man", "queen"], "apple", records[2]["answer"], records[2]["correct"])
    assert samples[2].extra == {"seed": 2, "query": records[2]["query"], "cosine": records[2]["cosine"],
                                "rank": records[2]["rank"]}


def _valid(samples: list) -> None:
    """Each sample, as a line of samples.jsonl, valid against the harness's JSON Schema (SCHEMA.md prints it)."""
    for sample in samples:
        jsonschema.validate({"id": "row"} | sample.fields(), LINE_SCHEMA,
                            cls=jsonschema.Draft202012Validator)


def test_the_suites_samples_are_valid_lines() -> None:
    """Every kind of record the claims log: WS-353 pairs (one table, two tables, per seed), 3CosAdd questions and
    nearest-row questions (neighbours_record), made into samples and validated as lines of samples.jsonl."""
    _, pairs = ws353_items(TABLE, VOCAB, PAIRS)
    other = {"toy": (TABLE, VOCAB), "other": (TABLE.flip(0), VOCAB)}
    _, two = rho_difference_items(other, PAIRS, "toy", "other", seed=0, resamples=50)
    questions = [answer(TABLE, VOCAB, "king", "man", "woman", "queen").record(),
                 neighbours_record("king", "man", "woman", "queen", [("apple", 0.5), ("queen", 0.4)])]
    made = pair_samples(pairs) + pair_samples(two) + per_seed(pair_samples, [7, 8], [pairs, pairs])
    made += analogy_samples(questions)
    _valid(made)
    first = pair_samples(pairs)[0]
    assert (first.item_id, first.input, first.target, first.prediction, first.score) == (
        "0", ["king", "man"], 8.5, pairs[0]["cosine"], None)
    assert pair_samples(pairs)[-2].extra == {"covered": False, "skipped": "not in vocabulary: pear"}
    assert pair_samples(two)[0].prediction == two[0]["cosine"]  # both tables' cosines
    assert analogy_samples(questions)[1].score is False
    assert pair_samples(pairs)[0].fields()["input_hash"] == per_seed(pair_samples, [7], [pairs])[0].fields()[
        "input_hash"]  # the same pair hashes the same whichever table scored it
