"""Shared by the word2vec claims (``test_word2vec*.py``): how their skip-gram models are computed, the vocabulary
they look words up in, and 3CosAdd accuracy on the analogy items (the WS-353 scoring:
:func:`llm_claims_lab.word2vec.relatedness.ws353_score`); also post A's negative-sampling sentence, which the two ``ns.*``
claims quote.

Not a test module (no ``test_`` prefix): the claim modules import it as ``claims.word2vec_common``, a name that resolves
from the repository root (``pythonpath = ["."]``) under every pytest import mode, ``importlib`` included.
"""

import statistics

import numpy as np
import pytest
import torch
from scipy import stats

from llm_claims_harness.declare import Quote
from llm_claims_harness.samples import Sample
from llm_claims_harness.measure import DECISION_LEVEL
from llm_claims_lab.core.analogy import WordList, analogy_rank, answer, cosine, token_id
from llm_claims_lab.core.stats import items_to_exclude, paired_permutation_test, proportion_interval
from llm_claims_lab.word2vec import ko_eval
from llm_claims_lab.word2vec.relatedness import covered_pairs
from llm_claims_lab.word2vec.skipgram import KERNELS

KERNELS_DEVIATION = (f"Skip-gram's step is computed as --claims-w2v-kernels names (w2v.ws353[trained] records it): "
                     f"by default fast, {KERNELS['fast']}, fewer CPU-seconds per step; post is post A's code as "
                     f"written ({KERNELS['post']}). The algorithm, draws and seed are the post's either way; the tables "
                     "differ by float rounding (benchmarks/bench_word2vec.py prints the drift).")
# Post A's negative-sampling sentence, tested by ns.flop_ratio (its reading), ns.several_thousand_times and
# ns.wallclock_speedup (literal ones).
NS_QUOTE = Quote("10,000개를 다 비교하지 말고, 진짜 정답(주변 단어) 1개와 아무렇게나 뽑은 오답(무작위 단어) 8개만 "
                 "가져와서, 이 9개 중에서만 진짜와 가짜를 구별하게 만드는 겁니다. 이렇게 하면 계산 속도가 수천 배 "
                 "빨라집니다.",
                 "Instead of comparing all 10,000, take only the 1 true answer (the context word) and 8 randomly drawn "
                 "wrong answers (random words), and tell real from fake among these 9 alone. This makes the "
                 "computation several thousand times faster.")


# Post A's queries and the neighbours it printed (shown beside ours in w2v.ws353[trained], judged by w2v.neighbours_overlap).
POST_NEIGHBOURS = {
    "물리학": ["분야", "물리", "분과", "응집", "역학", "물질"],
    "서울특별시": ["대한민국", "노원구", "중구", "==", "마포구", "종로구"],
    "음악": ["판소리", "소프라노", "빠르기", "악기", "인문학", "크고"],
    "조선": ["후기", "조정", "고려", "국왕", "장악", "국가"],
    "전쟁": ["명나라", "산업", "있던", "일본", "전투", "대첩"],
}

# Post A's remark under its neighbour table.
CLUSTERS = Quote("아무도 분류 라벨을 주지 않았는데, \"주변 단어 맞히기\"라는 과제만으로 학문·왕조·예술의 클러스터가 단지 "
                 "2M의 Corpus 상에서도 보이게 됩니다.",
                 "Though nobody gave any class labels, the task of 'guessing the surrounding words' alone makes "
                 "clusters of academic fields, dynasties and the arts visible, even on a corpus of only 2M.")


ALPHA = (1 - DECISION_LEVEL) / 2  # 0.00135: the suite's 3-SD level, one-sided (the neighbour judges' p-value bound)
ANALOGY_BOUND = 10.0  # % of covered items: w2v.analogy_ko's bound (its reason is that claim's tolerance's)


def analogy_items_needed() -> int:
    """The fewest covered items with which an analogy section can reach both verdicts of :data:`ANALOGY_BOUND` at the
    suite's level: confirmed at 0 % correct (the exact interval's upper end at most the bound) and refuted at 100 %
    (its lower end above it). A section with fewer is skipped (w2v.analogy_ko); w2v.analogy_controls[items_needed]
    checks the count against Clopper and Pearson's closed form."""
    return max(items_to_exclude(share, ANALOGY_BOUND / 100, level=DECISION_LEVEL) for share in (0.0, 1.0))


def neighbours(table: torch.Tensor, vocab: WordList, query: str) -> list[str]:
    """Post A's listing (``topk(7)`` on the centre table, the query dropped): the 6 rows nearest to
    ``query`` by cosine (shown beside the post's six)."""
    row = token_id(vocab, query)
    scores = cosine(table, table[row])  # [V]
    scores[row] = -torch.inf
    return [vocab.token(i) for i in scores.topk(6).indices.tolist()]


def compare_lists(word2vec, lists: dict[str, dict[str, list[str]]], seed: int) -> dict:
    """The neighbour judge of w2v.semantic_neighbours and w2v.bpe_neighbours: ``lists`` holds two tables' lists
    (``{table: {query: six words of the stems' vocabulary}}``, the judged table first, for post A's queries); each
    listed word is scored by its NPMI with its query over the corpus's paragraphs, and a one-sided paired permutation
    test (the j-th neighbour of a query in each table paired) asks whether the first table's 30 scores exceed the
    second's. Returns ``verify``'s arguments: the p-value as ``measured``, its Monte Carlo count's exact
    ``interval``, ``details`` (means, wins, the count, the lists with their scores) and ``samples`` (one per listed
    word)."""
    vocab, paragraphs = vocabulary(word2vec), word2vec.paragraphs
    judged, baseline = lists
    scores = {name: {q: paragraphs.npmi(token_id(vocab, q), [token_id(vocab, w) for w in words])
                     for q, words in by_query.items()} for name, by_query in lists.items()}  # [6] per query
    x, y = (np.concatenate([scores[name][q] for q in POST_NEIGHBOURS]) for name in (judged, baseline))  # [30] each
    difference, hits, draws = paired_permutation_test(x, y, seed=seed)
    low, high = proportion_interval(hits, draws, level=DECISION_LEVEL) if draws < 2 ** len(x) else (hits / draws,) * 2
    details = {
        "mean NPMI with the query": {judged: round(float(x.mean()), 4),
                                     baseline: round(float(y.mean()), 4), "difference": round(difference, 4)},
        "pairs the judged table wins, ties, loses": [int((x > y).sum()), int((x == y).sum()), int((x < y).sum())],
        "permutation count": f"{hits:,} of {draws:,} labellings at least as far (p = hits / draws)",
        "neighbours (NPMI with the query)": {
            q: {name: ", ".join(f"{w} {v:+.2f}" for w, v in zip(lists[name][q], scores[name][q]))
                for name in lists} for q in POST_NEIGHBOURS}}
    samples = [Sample(item_id=f"{name}/{q}/{w}", input=[q, w], target=None, prediction=float(v), score=None,
                      extra={"table": name})  # a listed neighbour and its NPMI with the query
               for name in lists for q in POST_NEIGHBOURS for w, v in zip(lists[name][q], scores[name][q])]
    return {"measured": hits / draws, "interval": (low, high), "details": details, "samples": samples}


def vocabulary(word2vec) -> WordList:
    """The skip-gram vocabulary of the ``word2vec`` lab, words looked up as written."""
    return WordList(word2vec.corpus.vocab, name="the skip-gram vocabulary",
                    hint="words are particle-stripped stems of the corpus")


def ws353_vocabulary(word2vec, ws353: list[ko_eval.ScoredPair]) -> WordList:
    """:func:`vocabulary`, once it is known to cover enough WS-353 pairs for a Spearman ρ
    (:func:`llm_claims_lab.word2vec.relatedness.covered_pairs`): checked before anything is trained.

    Raises:
        llm_claims_lab.core.stats.NotMeasurable: too few pairs covered (the row skips with the counts).
    """
    vocab = vocabulary(word2vec)
    covered_pairs(vocab, ws353)
    return vocab


def covered(vocab: WordList, items: list[ko_eval.Analogy]) -> list[ko_eval.Analogy]:
    """The analogy items whose 4 words are rows of ``vocab`` as written."""
    return [it for it in items if all(vocab.ids(w) for w in (it.a, it.b, it.c, it.d))]


def analogy_hits(table: torch.Tensor, vocab: WordList, items: list[ko_eval.Analogy]) -> int:
    """How many covered ``items`` (a : b = c : d) 3CosAdd answers: ``d`` is the row nearest to b − a + c by cosine
    in ``table`` [V, D], the three inputs excluded (post A, exp. 2's arithmetic; Mikolov et al. 2013)."""
    return sum(analogy_rank(table, vocab, it.b, it.a, it.c, it.d) == 1 for it in items)


def analogy_items(table: torch.Tensor, vocab: WordList, items: list[ko_eval.Analogy]) -> tuple[int, list[dict]]:
    """:func:`analogy_hits` and one record per item for the report's per-item log, from the same scoring: the item
    as written (a : b = c : ``expected``), 3CosAdd's query b − a + c, its top-1 ``answer`` and cosine, the rank of
    ``expected`` and whether it is ``correct`` (ranks first)."""
    answers = [answer(table, vocab, it.b, it.a, it.c, it.d) for it in items]
    return sum(a.correct for a in answers), [a.record() | {"a": it.a, "b": it.b} for it, a in zip(items, answers)]


def require_learned_ranks(trained_ranks: list[int], untrained: torch.Tensor, vocab: WordList,
                          items: list[ko_eval.Analogy], details: dict) -> None:
    """Positive control of the rows that say the corpus is too small for analogies: an untrained table answers no
    analogy either, so a low accuracy alone cannot tell 'too little data' from 'nothing learned'. The trained table
    must rank the expected answers of ``items`` (a : b = c : d, 3CosAdd, inputs excluded; ``trained_ranks`` in
    item order) better than the seed's untrained table ``untrained`` [V, D] does: a one-sided Wilcoxon signed-rank
    test of the items' paired ranks (scipy.stats.wilcoxon) at p < 1 − DECISION_LEVEL. Records both medians and p
    in ``details``; fails the row otherwise."""
    base = [answer(untrained, vocab, it.b, it.a, it.c, it.d).rank for it in items]
    differs = any(b != t for b, t in zip(base, trained_ranks))
    p = stats.wilcoxon(base, trained_ranks, alternative="greater").pvalue if differs else 1.0
    details["positive control: median rank of the answer, trained | untrained table"] = [
        statistics.median(trained_ranks), statistics.median(base)]
    details["positive control: one-sided Wilcoxon p"] = float(f"{p:.3g}")
    if not p < 1 - DECISION_LEVEL:
        pytest.fail(f"positive control failed: over {len(items)} analogy items the trained table ranks the answers no "
                    f"better than an untrained table (one-sided Wilcoxon p = {p:.3g}, needs < {1 - DECISION_LEVEL:.4f}): "
                    "a table that learned nothing cannot show that the data are too few")


def plant_analogies(table: torch.Tensor, vocab: WordList,
                    items: list[ko_eval.Analogy]) -> tuple[torch.Tensor, list[ko_eval.Analogy]]:
    """A copy of ``table`` [V, D] with analogy structure planted (a positive control): for each covered item, in
    order, whose ``d`` is neither a planted answer nor a planted item's input and whose a, b, c are no planted
    answer, row ``d`` becomes b − a + c (inputs are never rewritten, so every planted item stays answered exactly
    by 3CosAdd). Returns the table and the planted items."""
    planted, inputs, answers = table.clone(), set(), set()
    chosen = []
    for it in items:
        if it.d in answers | inputs or {it.a, it.b, it.c} & (answers | {it.d}):
            continue
        rows = [token_id(vocab, w) for w in (it.a, it.b, it.c, it.d)]
        planted[rows[3]] = planted[rows[1]] - planted[rows[0]] + planted[rows[2]]  # [D]
        inputs |= {it.a, it.b, it.c}
        answers.add(it.d)
        chosen.append(it)
    return planted, chosen


# Post A's closing caveat on analogies (its remark under the neighbour table: CLUSTERS).
TOO_LITTLE = Quote("물론, 아직은 그 양이 작아서, 왕−남자+여자 같은 산술까지 기대하기엔 데이터가 부족한데, …",
                   "Of course, the amount is still small, so there is too little data to expect arithmetic such as "
                   "king − man + woman, …")
