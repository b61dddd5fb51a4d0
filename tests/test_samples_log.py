"""The per-item log of rows that score items (``verify(..., samples=[...])`` -> ``samples.jsonl``): the harness end to
end through ``pytester``, and the library functions that hand the claims their records alongside the score (WS-353
pairs, 3CosAdd questions) on a handmade five-word table, each giving the score its existing function gives."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from toy_suite import CONFTEST

import llm_claims_lab.core.analogy as A
from llm_claims_lab.core.analogy import WordList, analogy, analogy_rank, answer, cosine, neighbours_record
from llm_claims_lab.word2vec.ko_eval import Analogy, ScoredPair
from llm_claims_lab.word2vec.relatedness import (rho_difference, rho_difference_items, spearman, word_vectors,
                                                 ws353_items, ws353_score)

CLAIMS = '''
from llm_claims_harness.declare import claim, exact

@claim(id="toy.scored", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=exact(reason="x"), reference="r")
def test_scored(verify):
    verify(2, reference=2, samples=[{"q": "1 + 1", "answer": 2, "correct": True},
                                    {"q": "일 + 일", "answer": 2.0, "nested": {"cosines": [0.5, None]}}])

@claim(id="toy.other", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=exact(reason="x"), reference="r")
def test_other(verify):
    verify(1, reference=1, samples=[{"q": "other"}])

@claim(id="toy.unscored", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=exact(reason="x"), reference="r")
def test_unscored(verify):
    verify(1, reference=1)
'''


def _lines(pytester: pytest.Pytester) -> list[dict]:
    text = (pytester.path / "reports" / "samples.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _runs(pytester: pytest.Pytester) -> dict[str, str]:
    doc = json.loads((pytester.path / "reports" / "results.json").read_text(encoding="utf-8"))
    return {r["id"]: r["run"] for r in doc["claims"]}


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=CLAIMS)
    return pytester


def test_samples_are_written_one_line_per_item(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    run = _runs(suite)["toy.scored"]
    assert _lines(suite) == [
        {"id": "toy.scored", "run": run, "item": {"q": "1 + 1", "answer": 2, "correct": True}},
        {"id": "toy.scored", "run": run, "item": {"q": "일 + 일", "answer": 2.0, "nested": {"cosines": [0.5, None]}}},
        {"id": "toy.other", "run": run, "item": {"q": "other"}}]
    assert "일 + 일" in (suite.path / "reports" / "samples.jsonl").read_text(encoding="utf-8")  # not \\u-escaped
    assert "[samples.jsonl](samples.jsonl)" in (suite.path / "reports" / "CLAIMS.md").read_text(encoding="utf-8")


def test_an_empty_log_is_not_linked(suite: pytest.Pytester) -> None:
    """A report none of whose rows logs items says so instead of linking an empty ``samples.jsonl`` (issue 33)."""
    suite.runpytest("-k", "unscored").assert_outcomes(passed=1)
    index = (suite.path / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    assert (suite.path / "reports" / "samples.jsonl").read_text(encoding="utf-8") == ""
    assert "samples.jsonl" not in index and "no row of this report logs scored items" in index


def test_partial_run_keeps_the_lines_of_rows_it_did_not_measure(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    first = _runs(suite)["toy.scored"]
    suite.runpytest("-k", "other").assert_outcomes(passed=1)
    second = _runs(suite)["toy.other"]
    assert second != first and _runs(suite)["toy.scored"] == first
    lines = _lines(suite)
    assert [(x["id"], x["run"]) for x in lines if x["id"] == "toy.scored"] == [("toy.scored", first)] * 2
    assert [(x["id"], x["run"]) for x in lines if x["id"] == "toy.other"] == [("toy.other", second)]
    # a re-measured row that logs nothing any more leaves no line behind
    suite.makepyfile(test_toy=CLAIMS.replace('samples=[{"q": "other"}]', "samples=None"))
    suite.runpytest("-k", "other").assert_outcomes(passed=1)
    assert {x["id"] for x in _lines(suite)} == {"toy.scored"}


def test_a_damaged_line_loses_that_line_only_and_says_so(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    path = suite.path / "reports" / "samples.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], lines[1][:25], lines[2]]) + "\n", encoding="utf-8")  # the second cut short
    suite.runpytest("-k", "unscored").assert_outcomes(passed=1)
    assert [x["item"] for x in _lines(suite)] == [{"q": "1 + 1", "answer": 2, "correct": True}, {"q": "other"}]
    warning = json.loads((suite.path / "reports" / "results.json").read_text(encoding="utf-8"))["warning"]
    assert warning.startswith("1 lines of the previous samples.jsonl did not parse and were dropped")


@pytest.mark.parametrize("samples", ['"bad"', "[1, 2]", '[{"q": 1}, "x"]'])
def test_samples_not_a_list_of_objects_is_an_error_row(pytester: pytest.Pytester, samples: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_bad=f'''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.bad", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=exact(reason="x"), reference="r")
def test_bad(verify):
    verify(1, reference=1, samples={samples})
''')
    pytester.runpytest().assert_outcomes(failed=1)
    row = json.loads((pytester.path / "reports" / "results.json").read_text(encoding="utf-8"))["claims"][0]
    assert row["verdict"] == "error" and "samples must be a list of dicts" in row["reason"]
    assert _lines(pytester) == []


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
    from claims.word2vec_common import analogy_hits, analogy_items, per_seed

    items = [Analogy("man", "king", "woman", "queen"), Analogy("woman", "queen", "man", "king"),
             Analogy("king", "man", "queen", "apple")]  # a : b = c : d, asked as b − a + c
    hits, records = analogy_items(TABLE, VOCAB, items)
    assert hits == analogy_hits(TABLE, VOCAB, items)
    assert [r["correct"] for r in records] == [analogy_rank(TABLE, VOCAB, it.b, it.a, it.c, it.d) == 1 for it in items]
    assert {k: records[0][k] for k in ("a", "b", "c", "expected", "query")} == {
        "a": "man", "b": "king", "c": "woman", "expected": "queen", "query": "king − man + woman"}
    assert per_seed([1, 2], [records[:1], records[1:]])[2] == {"seed": 2, **records[2]}
