"""Word2vec's controls: on WS-353, what a table that learned nothing gives, and the trained table against it; on
the analogy set, a table with planted analogies (the measure must see them) and an untrained one.

A control must be decidable: each row declares a bound its true value can clear. An untrained table's Spearman ρ
with people's scores is 0 by symmetry (a table drawn at random), so a row expecting an untrained ρ "not above 0"
could only come out refuted by a draw 3 SD below 0 (its v1 form, in ``w2v.ws353``). Here the untrained tables are
many (their spread is the null distribution), the trained table is compared with them and with the shuffled-corpus
model on the same pairs, and the untrained mean is tested for equivalence with 0.
"""

import math
import statistics

import pytest

from llm_claims_harness.declare import Case, at_least, at_most, claim, close
from llm_claims_harness.measure import DECISION_LEVEL
from llm_claims_lab.word2vec import ko_eval
from llm_claims_lab.core.analogy import analogy_rank, answer
from llm_claims_lab.word2vec.relatedness import spearman, ws353_items, ws353_score
from llm_claims_lab.core.stats import bootstrap, proportion_interval
from fixtures import CALIBRATION_DIR
from llm_claims_lab.word2vec.lab import CALIBRATION, seed_noise
from word2vec_common import (KERNELS_DEVIATION, analogy_hits, analogy_items, covered, plant_analogies,
                             vocabulary, ws353_vocabulary)

NULL_TABLES = 40  # untrained tables of the null distribution (seeds --claims-seed … +39): each costs a random draw
EQUIVALENCE = 0.1  # |ρ| below Cohen's (1988) 'small' correlation, 0.1: no association worth the name
SOURCE = ("Post A, exp. 1 (the neighbour table and its remark); evaluation set: Park, Byun, Baek, Cho, Oh 2018, "
          "Korean WS-353")
ABOVE = at_least(0.0, "training puts related words closer than a table that learned nothing: any positive "
                      "difference of ρ on the same pairs (the post states no strength)", strict=True)


@pytest.fixture(scope="module")
def ws353_null(word2vec, ws353) -> list[float]:
    """Spearman ρ of each of the NULL_TABLES untrained tables over the covered WS-353 pairs: drawn once for the
    module's three rows."""
    vocab = ws353_vocabulary(word2vec, ws353)  # enough pairs covered, checked before drawing or training
    return [spearman(*ws353_score(table, vocab, ws353)[:2]) for table in word2vec.untrained_tables(NULL_TABLES)]


@claim(
    id="w2v.ws353_controls",
    post="A", section="exp1",
    source=SOURCE,
    statement="Controls of w2v.ws353 (Spearman ρ between a table's cosines and people's relatedness scores, over "
              "the WS-353 pairs the vocabulary covers as written).",
    kind="control",
    unit="Spearman ρ",
    cases={
        "untrained_null": Case(
            statement=f"The mean ρ of {NULL_TABLES} untrained tables (the initial tables of seeds --claims-seed … "
                      f"+{NULL_TABLES - 1}) lies within ±{EQUIVALENCE} of 0 (an equivalence bound, TOST-style); "
                      f"noise: their SD / √{NULL_TABLES}.",
            tolerance=close(f"equivalence with no association: |ρ| < {EQUIVALENCE}, Cohen's 'small' correlation",
                            atol=EQUIVALENCE),
            expect_source="control's design: a table drawn at random carries no relatedness, E[ρ] = 0 by symmetry"),
        "trained_minus_untrained": Case(
            statement="ρ(trained) − mean ρ(untrained) > 0 on the same pairs; noise: the trained ρ's bootstrap SE "
                      "over pairs, its SD over training seeds (calibration/word2vec.json) and the untrained mean's "
                      "SE, combined.",
            tolerance=ABOVE,
            expect_source="post A, exp. 1: training puts related words close (the trained table against the "
                          "null distribution of tables that learned nothing)"),
        "trained_minus_shuffled": Case(
            statement="ρ(trained) − ρ(shuffled corpus) > 0 on the same pairs; noise: the paired bootstrap SE over "
                      "pairs and the difference's SD over training seeds (calibration/word2vec.json), combined (the "
                      "shuffled corpus keeps every word's frequency and loses word order).",
            tolerance=ABOVE,
            expect_source="control's design and the distributional hypothesis (Harris 1954; Mikolov et al. 2013): "
                          "relatedness comes from contexts, which shuffling destroys while keeping frequencies"),
    },
    deviation=KERNELS_DEVIATION + " Beyond the post, which compares its table with nothing. With --claims-seeds N the "
              "trained and shuffled models are the run's first seed's.",
    version=2,
    version_note="the trained − untrained and trained − shuffled rows add the training seeds' part of the noise "
                 "(5 training seeds disjoint from the run's, calibration/word2vec.json) to the bootstrap SE over pairs",
)
def test_ws353_controls(verify, word2vec, ws353, ws353_null, case, seed):
    vocab = vocabulary(word2vec)
    (trained_cos, human, _), log = ws353_items(word2vec.model("trained").w_in, vocab, ws353)  # one record per pair
    null_mean, null_sd = statistics.fmean(ws353_null), statistics.stdev(ws353_null)
    null_se = null_sd / math.sqrt(len(ws353_null))
    details = {"pairs": len(human), f"untrained ρ over {NULL_TABLES} tables: mean, SD, min, max":
               [round(v, 4) for v in (null_mean, null_sd, min(ws353_null), max(ws353_null))]}
    if case == "untrained_null":
        verify(null_mean, reference=0.0, noise=null_se, details=details,  # the items: the untrained tables
               samples=[{"table": i, "seed": word2vec.seeds[0] + i, "rho": r} for i, r in enumerate(ws353_null)])
        return
    trained = spearman(trained_cos, human)
    kernels = word2vec.config.kernels
    if case == "trained_minus_untrained":
        boot = bootstrap((trained_cos, human), spearman, seed=seed)
        seed_sd, details["seed noise"] = seed_noise("trained", kernels, CALIBRATION_DIR / CALIBRATION)
        details |= {"ρ trained": round(trained, 4), "bootstrap SE of ρ trained": round(boot.standard_error, 4)}
        verify(trained - null_mean, noise=math.hypot(boot.standard_error, null_se, seed_sd), details=details,
               samples=log)
        return
    (shuffled_cos, _, _), shuffled_log = ws353_items(word2vec.model("shuffled").w_in, vocab, ws353)
    boot = bootstrap((trained_cos, shuffled_cos, human), lambda t, s, h: spearman(t, h) - spearman(s, h), seed=seed)
    details |= {"ρ trained, ρ shuffled": [round(trained, 4), round(spearman(shuffled_cos, human), 4)],
                "95 % interval (paired bootstrap BCa)": [round(v, 3) for v in boot.confidence_interval]}
    seed_sd, details["seed noise"] = seed_noise("trained − shuffled", kernels,
                                                CALIBRATION_DIR / CALIBRATION)
    log = [t | {"cosine": {"trained": t["cosine"], "shuffled": s["cosine"]}} for t, s in zip(log, shuffled_log)]
    verify(trained - spearman(shuffled_cos, human), noise=math.hypot(boot.standard_error, seed_sd), details=details,
           samples=log)


@claim(
    id="w2v.analogy_controls",
    post="A", section="exp1",
    source="Post A, end of exp. 1 ('왕−남자+여자 같은 산술까지 기대하기엔 데이터가 부족'); evaluation set: Park, Byun, Baek, "
           "Cho, Oh 2018, Korean analogy set",
    statement="Controls of w2v.analogy_ko's measure (3CosAdd accuracy over analogy items the vocabulary covers, "
              "every section pooled), judged with that claim's bound (≤ 10 %): it must see analogies where a table "
              "has them, and none in a table that learned nothing.",
    kind="control",
    unit="% of covered items",
    tolerance=at_most(10.0, "w2v.analogy_ko's bound: at or below it, a table 'does not do analogies'"),
    cases={
        "planted": Case(
            statement="the trained table with analogies planted (row d := b − a + c for the items, among every other "
                      "covered one, whose answer is no other planted item's word): accuracy on the planted items "
                      "≤ 10 %.",
            expect="refuted",
            expect_source="control's design: a planted item's answer is the query itself (cosine 1), so every planted "
                          "item is answered; a measure that cannot see analogies (a wrong sign, a wrong exclusion) "
                          "would pass"),
        "untrained": Case(
            statement="an untrained table (the initial table of --claims-seed): accuracy ≤ 10 %.",
            expect_source="control's design: a random table answers an item by chance, 1 in ~10,000 rows"),
        "planted_queen": Case(
            statement="w2v.small_corpus_no_analogy's measure on the trained table with 여왕's row := 왕 − 남자 + 여자: "
                      "the rank of 여왕 is at least 2.",
            unit="rank", expect="refuted",
            tolerance=at_least(2, "w2v.small_corpus_no_analogy's bound: the analogy works only if 여왕 ranks first"),
            expect_source="control's design: the planted row is the query itself (cosine 1), so it ranks first"),
    },
    deviation=KERNELS_DEVIATION + " Beyond the post. Noise: the exact (Clopper–Pearson) 99.73 % interval over the "
              "covered items.",
)
def test_analogy_controls(verify, word2vec, ko_analogies, case):
    vocab = vocabulary(word2vec)
    if case == "planted_queen":
        queen = ko_eval.Analogy(a="남자", b="왕", c="여자", d="여왕")
        table, _ = plant_analogies(word2vec.model("trained").w_in, vocab, [queen])
        planted_answer = answer(table, vocab, "왕", "남자", "여자", "여왕")
        verify(planted_answer.rank,
               details={"rank on the trained table": analogy_rank(word2vec.model("trained").w_in, vocab, "왕", "남자",
                                                                  "여자", "여왕")}, samples=[planted_answer.record()])
        return
    items = covered(vocab, [it for section in ko_analogies.values() for it in section])
    details = {"covered items": len(items)}
    if case == "planted":
        table, planted = plant_analogies(word2vec.model("trained").w_in, vocab, items[::2])
        details["accuracy on every covered item (%)"] = round(100 * analogy_hits(table, vocab, items) / len(items), 2)
        items = planted
    else:
        table = word2vec.untrained_tables(1)[0]
    hits, log = analogy_items(table, vocab, items)  # log: one record per judged item
    low, high = proportion_interval(hits, len(items), level=DECISION_LEVEL)
    verify(100 * hits / len(items), interval=(100 * low, 100 * high),
           details={**details, "judged items": len(items), "correct": hits}, samples=log)
