"""Word2vec's controls on WS-353: what a table that learned nothing gives, and the trained table against it.

A control must be decidable: each row declares a bound its true value can clear. An untrained table's Spearman ρ
with people's scores is 0 by symmetry (a table drawn at random), so a row expecting an untrained ρ "not above 0"
could only come out refuted by a draw 3 SD below 0 (its v1 form, in ``w2v.ws353``). Here the untrained tables are
many (their spread is the null distribution), the trained table is compared with them and with the shuffled-corpus
model on the same pairs, and the untrained mean is tested for equivalence with 0.
"""

import math
import statistics

import pytest

from llm_claims_harness.declare import Case, at_least, claim, close
from llm_claims_lab.relatedness import spearman
from llm_claims_lab.stats import bootstrap
from word2vec_common import KERNELS_DEVIATION, vocabulary, ws353_score

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
    vocab = vocabulary(word2vec)
    return [spearman(*ws353_score(table, vocab, ws353)[:2]) for table in word2vec.untrained_tables(NULL_TABLES)]


@claim(
    id="w2v.ws353_controls",
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
                      "over pairs and the untrained mean's SE, combined.",
            tolerance=ABOVE,
            expect_source="post A, exp. 1: training puts related words close (the trained table against the "
                          "null distribution of tables that learned nothing)"),
        "trained_minus_shuffled": Case(
            statement="ρ(trained) − ρ(shuffled corpus) > 0 on the same pairs; noise: the paired bootstrap SE over "
                      "pairs (the shuffled corpus keeps every word's frequency and loses word order).",
            tolerance=ABOVE,
            expect_source="control's design and the distributional hypothesis (Harris 1954; Mikolov et al. 2013): "
                          "relatedness comes from contexts, which shuffling destroys while keeping frequencies"),
    },
    deviation=KERNELS_DEVIATION + " Beyond the post, which compares its table with nothing. With --claims-seeds N the "
              "trained and shuffled models are the run's first seed's.",
)
def test_ws353_controls(verify, word2vec, ws353, ws353_null, case, seed):
    vocab = vocabulary(word2vec)
    trained_cos, human, _ = ws353_score(word2vec.model("trained").w_in, vocab, ws353)
    null_mean, null_sd = statistics.fmean(ws353_null), statistics.stdev(ws353_null)
    null_se = null_sd / math.sqrt(len(ws353_null))
    details = {"pairs": len(human), f"untrained ρ over {NULL_TABLES} tables: mean, SD, min, max":
               [round(v, 4) for v in (null_mean, null_sd, min(ws353_null), max(ws353_null))]}
    if case == "untrained_null":
        verify(null_mean, reference=0.0, noise=null_se, details=details)
        return
    trained = spearman(trained_cos, human)
    if case == "trained_minus_untrained":
        boot = bootstrap((trained_cos, human), spearman, seed=seed)
        details |= {"ρ trained": round(trained, 4), "bootstrap SE of ρ trained": round(boot.standard_error, 4)}
        verify(trained - null_mean, noise=math.hypot(boot.standard_error, null_se), details=details)
        return
    shuffled_cos = ws353_score(word2vec.model("shuffled").w_in, vocab, ws353)[0]
    boot = bootstrap((trained_cos, shuffled_cos, human), lambda t, s, h: spearman(t, h) - spearman(s, h), seed=seed)
    details |= {"ρ trained, ρ shuffled": [round(trained, 4), round(spearman(shuffled_cos, human), 4)],
                "95 % interval (paired bootstrap BCa)": [round(v, 3) for v in boot.confidence_interval]}
    verify(trained - spearman(shuffled_cos, human), noise=boot.standard_error, details=details)
