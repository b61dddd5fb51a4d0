"""Skip-gram's nearest neighbours: are post A's query words' lists topical, and how do they compare with the post's?

Post A prints, for five queries, the six nearest rows of its trained centre table, and says of them: "아무도 분류 라벨을
주지 않았는데, "주변 단어 맞히기"라는 과제만으로 학문·왕조·예술의 클러스터가 … 보이게 됩니다" (clusters of fields, dynasties
and the arts are visible). ``w2v.semantic_neighbours`` judges that sentence by what it is about, the topic of each
query's list: how much each listed word shares the corpus's paragraphs with its query (NPMI,
``llm_claims_lab/word2vec/topical.py``: a signal from the text, not from the table), in the trained table against a
table that learned nothing and against the protocol trained on a shuffled corpus (every word's frequency kept, its
contexts gone), by a permutation test. Our corpus is a stand-in for the post's (the same kind of text, not the same
file), so the lists cannot be expected to match word for word; ``w2v.neighbours_overlap`` shows whether our run
finds the post's neighbours far more often than chance would, and the shuffled corpus is the control that must not.
"""

from __future__ import annotations

import numpy as np

from llm_claims_harness.declare import Case, at_least, at_most, claim
from llm_claims_lab.core.analogy import token_id
from llm_claims_lab.core.stats import PERMUTATIONS
from claims.word2vec_common import ALPHA, CLUSTERS, KERNELS_DEVIATION, POST_NEIGHBOURS, compare_lists, neighbours, vocabulary

LISTED = sum(map(len, POST_NEIGHBOURS.values()))  # 30 = 5 queries × 6 neighbours
SHARED = 2  # chance puts ≥ 2 of the 30 among our lists with probability < 0.03 % (see the tolerance)


@claim(
    id="w2v.neighbours_overlap",
    post="A", section="exp1",
    source="Post A, exp. 1, the neighbour table ('질의어 최근접 이웃 (실측)')",
    statement=f"A stand-in comparison, not a verdict on the post: of the {LISTED} neighbours post A prints for its "
              f"five queries, at least {SHARED} are among our six nearest rows of the same query (the post's "
              "listing: cosine on the centre table, the query dropped).",
    unit="shared neighbours",
    tolerance=at_least(SHARED, reason=f"above chance at the suite's level: a random table puts each printed word among "
                               f"six of ~10,000 rows with probability 6/10,000, so ≥ {SHARED} of {LISTED} happen by "
                               "chance with probability ≈ C(30, 2)·(6·10⁻⁴)² < 3·10⁻⁴ (the 3-SD level is 2.7·10⁻³)"),
    quote=CLUSTERS,
    cases={
        "trained": Case(
            kind="beyond",
            expect_source="Mikolov et al. 2013 (skip-gram with negative sampling puts topically related words "
                          "close); a stand-in corpus of the same kind, trained with the post's protocol, should "
                          "find some of the post's neighbours, far above chance"),
        "shuffled": Case(
            kind="control", expect="refuted",
            expect_source="design: the shuffled corpus keeps word frequencies but no context, so its table puts "
                          "no topical neighbour near its query beyond chance"),
    },
    deviation="Our corpus is a stand-in for the post's (see w2v.corpus_stats); the verdict is on the run's seed. "
              + KERNELS_DEVIATION,
)
def test_neighbours_overlap(verify, word2vec, case):
    model, vocab = word2vec.models(case)[0], vocabulary(word2vec)
    ours = {query: neighbours(model.w_in, vocab, query) for query in POST_NEIGHBOURS}
    shared = {query: sorted(set(ours[query]) & set(post)) for query, post in POST_NEIGHBOURS.items()}
    verify(sum(map(len, shared.values())), details={"shared, per query": shared,
                                                   "ours": {q: ", ".join(w) for q, w in ours.items()}})


PAIRS = LISTED  # query–neighbour pairs scored per table: 5 queries × 6 neighbours
NEXT_SEED = "untrained, next seed"  # the untrained table of the run's seed + 1
TABLES = {  # case -> (the table whose lists are judged, the baseline's): lab kinds at the run's seed, or NEXT_SEED
    "trained_vs_untrained": ("trained", "untrained"),
    "trained_vs_shuffled": ("trained", "shuffled"),
    "untrained_vs_untrained": ("untrained", NEXT_SEED),
}


@claim(
    id="w2v.semantic_neighbours",
    post="A", section="exp1",
    source="Post A, exp. 1, the neighbour table ('질의어 최근접 이웃 (실측)') and its remark",
    statement=f"The six nearest rows (post A's listing: cosine on the centre table, the query dropped) of each of post "
              f"A's five queries (물리학, 서울특별시, 음악, 조선, 전쟁) are on the query's topic beyond a baseline table's: "
              f"each listed word is scored by its NPMI with the query over the corpus's paragraphs (Bouma 2009: "
              f"−1 never together … 0 independent … 1 always together), and a one-sided paired permutation test "
              f"(the j-th neighbour of a query in each table paired; {PERMUTATIONS:,} random swaps of the {PAIRS} "
              f"pairs' labels) asks whether the table's {PAIRS} scores exceed the baseline's on average. Measured: "
              "its p-value, judged with the exact interval of its Monte Carlo count.",
    unit="one-sided p",
    post_value="학문·왕조·예술의 클러스터가 보이게 됩니다 (clusters visible)",
    tolerance=at_most(ALPHA, reason=f"the suite's decision level, one-sided: p ≤ {ALPHA:.5f} is a difference 3 SDs out, the "
                             "level every row is decided at. 'Visible' clusters pass it: with 30 pairs, lists in which "
                             "10 neighbours share their query's paragraphs more than the baseline's and none less "
                             "give p ≤ 2⁻¹⁰ ≈ 0.001 already; lists a permutation of the pairs cannot tell from the "
                             "baseline's at that level show no cluster a reader could see"),
    quote=CLUSTERS,
    cases={
        "trained_vs_untrained": Case(
            statement="the trained table's lists against those of the untrained table (its initial table, the same "
                      "seed): p ≤ 0.00135.",
            kind="post",
            expect_source="post A, exp. 1: 'the task of guessing the surrounding words alone makes the clusters "
                          "visible' (a table that learned nothing lists words at random); Mikolov et al. 2013: "
                          "skip-gram puts words of similar contexts close"),
        "trained_vs_shuffled": Case(
            statement="the trained table's lists against those of the protocol trained on a shuffled corpus (every "
                      "word's frequency kept, its contexts gone; the same seed): p ≤ 0.00135, so the clusters come "
                      "from the contexts the task learns, not from word frequency.",
            kind="post",
            expect_source="post A, exp. 1: the clusters come from the task of guessing the surrounding words; the "
                          "distributional hypothesis (Harris 1954; Mikolov et al. 2013), which shuffling the corpus "
                          "removes while keeping frequencies"),
        "untrained_vs_untrained": Case(
            statement="the untrained table's lists against another untrained table's (the run's seed + 1): "
                      "p ≤ 0.00135. A control of the test: two tables that learned nothing are exchangeable.",
            kind="control", expect="refuted",
            expect_source="control's design: the lists of two random tables are random words, exchangeable pair by "
                          "pair, so the p-value is uniform on [0, 1] (below 0.00135 in 0.135 % of runs)"),
    },
    deviation="Beyond the post's protocol, which prints the lists and judges them by eye: the judge is the corpus's "
              "paragraph co-occurrence, fixed before measuring. The verdict is on the run's first seed (--claims-seed; "
              "the post's run is seed 42). " + KERNELS_DEVIATION,
)
def test_semantic_neighbours(verify, word2vec, case, seed):
    vocab, paragraphs = vocabulary(word2vec), word2vec.paragraphs
    judged, baseline = TABLES[case]
    tables = {name: word2vec.untrained_tables(2)[1] if name == NEXT_SEED else word2vec.model(name).w_in
              for name in (judged, baseline)}  # [V, D] each
    judgement = compare_lists(word2vec, {name: {q: neighbours(table, vocab, q) for q in POST_NEIGHBOURS}
                                         for name, table in tables.items()}, seed)
    post = {q: [w for w in words if vocab.ids(w)] for q, words in POST_NEIGHBOURS.items()}
    post_npmi = np.concatenate([paragraphs.npmi(token_id(vocab, q), [token_id(vocab, w) for w in post[q]])
                                for q in POST_NEIGHBOURS])
    judgement["details"]["post's lists on our corpus"] = (f"mean NPMI {post_npmi.mean():+.3f} over the "
                                                          f"{len(post_npmi)} of {LISTED} printed words in our vocabulary")
    verify(judgement.pop("measured"), **judgement)
