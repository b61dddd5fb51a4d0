"""Skip-gram's nearest neighbours beside post A's printed table: a stand-in corpus compared with the post's.

Post A prints, for five queries, the six nearest rows of its trained centre table. Our corpus is a stand-in for the
post's (the same kind of text, not the same file), so the lists cannot be expected to match word for word; what
the comparison can show is whether our run finds the post's neighbours far more often than chance would, and a
model trained on a shuffled corpus (no context to learn from) is the control that must not.
"""

from __future__ import annotations

from llm_claims_harness.declare import Case, at_least, claim
from word2vec_common import CLUSTERS, KERNELS_DEVIATION, POST_NEIGHBOURS, neighbours, vocabulary

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
    tolerance=at_least(SHARED, f"above chance at the suite's level: a random table puts each printed word among "
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
