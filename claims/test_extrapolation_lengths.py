"""Post B's sentences on training length, read on post A's exp. 3 toy with sinusoidal PE: long-context ability comes
from training long ('긴 문맥을 제대로 이해하는 능력은 모델 전체가 긴 문맥에서 훈련되고 정렬되어야 생긴다'), and the training
data's length distribution affects it ('학습 데이터의 길이 분포 … 같이 영향을 준다'). Two runs beyond the protocol's:
trained on sequences of 40 (:data:`~llm_claims_lab.extrapolation.LONG_CONTEXT`) and trained on mixed lengths 2–40
(``sinusoidal_mixed``), each against the protocol's run trained at 20.
"""

from __future__ import annotations

import math

import pytest
from claims.extrapolation_common import DEVIATION, KEEPS, LEARNS, NOT_AUTOMATIC, _drop_noise, _mean

from llm_claims_harness.declare import Case, Quote, at_least, claim
from llm_claims_lab.extrapolation import LONG_CONTEXT, MIXED_SCHEMES

TRAINED_LONG = at_least(10.0, reason="effect size: 'the ability comes from training long' = training at 40 instead of 20 "
                              "raises accuracy at 40 by at least 10 pp, a fifth of the ~50 pp that post A's sinusoidal "
                              "PE loses from 20 to 40")
LONG = LONG_CONTEXT.train_len


@claim(
    id="extrap.long_context_from_long_training",
    post="B", section="learned",
    source="Post B, '학습되는 position embedding과의 차이' ('긴 문맥을 제대로 이해하는 능력은 모델 전체가 긴 문맥에서 훈련되고 "
           "정렬되어야 생긴다'); measured on post A's exp. 3 toy",
    statement=f"Long-context ability comes from training the model at long context: post A's toy with sinusoidal PE "
              f"(the scheme post B's paragraph is about) trained on sequences of {LONG} (everything else the "
              "protocol's) against the protocol's run trained at 20. Not every scheme needs it on this toy: ALiBi and "
              "RoPE trained at 20 keep their accuracy at 40 (extrap.alibi[len40], extrap.rope[len40]).",
    kind="post",
    quote=Quote("긴 문맥을 제대로 이해하는 능력은 모델 전체가 긴 문맥에서 훈련되고 정렬되어야 생긴다",
                "the ability to really understand long contexts arises only when the whole model is trained and "
                "aligned on long contexts"),
    expect_source="post B's sentence: '모델 전체가 긴 문맥에서 훈련되고 정렬되어야 생긴다'",
    post_value="훈련되어야 생긴다 (arises from training long)", unit="pp",
    cases={
        "at_40": Case(statement=f"trained at {LONG}, the model works at {LONG}: accuracy at {LONG} of the run trained "
                                f"at {LONG} minus that of the run trained at 20 ≥ {TRAINED_LONG.bound:g} pp.",
                      tolerance=TRAINED_LONG),
        "at_80": Case(statement=f"and only there: the run trained at {LONG} loses more than {-KEEPS.bound:g} pp from "
                                f"{LONG} to {2 * LONG} (accuracy at {2 * LONG} minus at {LONG} ≤ {KEEPS.bound:g} pp), "
                                "as the run trained at 20 does from 20 to 40.",
                      tolerance=NOT_AUTOMATIC),
    },
    deviation=DEVIATION + f" Post B trains no model. The run trained at {LONG} has positions to {2 * LONG}, batches of "
                          f"256 sequences of {LONG} (twice the protocol's tokens per step), 3,000 steps; it costs about "
                          "70 CPU-s. Noise: not calibrated at that length (20 seeds would cost about 1,400 CPU-s); "
                          "stand-ins from the protocol's calibration at the same roles: at_40 the SD of accuracy at "
                          "40 of runs trained at 20, combined with that at the training length; at_80 the SD of the "
                          "drop from the training length to twice it.",
)
def test_long_context_from_long_training(verify, extrapolation_lab, long_context_lab, calibration, seeds, case):
    trained = _mean(long_context_lab, "sinusoidal", seeds, f"acc{LONG}")
    if trained < LEARNS.bound and case == "at_80":
        pytest.skip(f"the run trained at {LONG} does not learn the task there ({trained:.1f} % < {LEARNS.bound:g} %): "
                    f"a drop to {2 * LONG} would not say whether it generalises")
    if case == "at_40":
        short = _mean(extrapolation_lab, "sinusoidal", seeds, f"acc{LONG}")
        noise = math.hypot(calibration.sd("sinusoidal", "acc40", seeds=len(seeds)),
                           calibration.sd("sinusoidal", "acc20", seeds=len(seeds)))
        verify(trained - short, noise=noise, details={
            f"trained at {LONG}, at {LONG}": trained, f"trained at 20, at {LONG}": short,
            "noise": f"stand-in: sinusoidal acc40 ⊕ acc20 SD over the protocol's calibration seeds{calibration.note}",
            "seeds": len(seeds)})
        return
    noise, where = _drop_noise(calibration, "sinusoidal", 40, seeds)
    verify(_mean(long_context_lab, "sinusoidal", seeds, f"acc{2 * LONG}") - trained, noise=noise, details={
        f"trained at {LONG}, at {LONG}": trained,
        f"at {2 * LONG} on the new positions {LONG - 1}–{2 * LONG - 2}": _mean(long_context_lab, "sinusoidal", seeds,
                                                                          f"new{2 * LONG}"),
        **where, "noise": "stand-in: " + where["noise"]})


MIXED_RUN = MIXED_SCHEMES[0]  # sinusoidal PE trained on mixed lengths 2–40
AFFECTS = at_least(10.0, reason="effect size: 'affects' = changing only the length distribution moves accuracy at 40 "
                         "by at least 10 pp either way (the value is the size of the move; its sign is in the "
                         "details), a fifth of the ~50 pp that post A's sinusoidal PE loses from 20 to 40")


@claim(
    id="extrap.length_distribution_matters",
    post="B", section="learned",
    source="Post B, '학습되는 position embedding과의 차이' ('attention layer, 학습 데이터의 길이 분포, normalization, 후처리 "
           "학습까지 같이 영향을 준다'); measured on post A's exp. 3 toy",
    statement="The training data's length distribution affects long-context generalisation: post A's toy with "
              "sinusoidal PE trained on mixed lengths (each step's 256 sequences of one length drawn uniformly from "
              "2–40: 21 tokens a sequence on average, about the protocol's 20) against the protocol's run (every "
              "sequence 20 long), both tested at 40; only the length distribution differs (same seed, initial "
              f"weights, steps and optimiser). |accuracy at 40, mixed − fixed| ≥ {AFFECTS.bound:g} pp. The mixed "
              "lengths reach 40, so positions 20–39 are trained: what moves accuracy at 40 is the distribution's "
              "reach, as in extrap.long_context_from_long_training[at_40] (every sequence 40 long); a mix within "
              "2–20 (the same reach) is not measured. The other causes the sentence lists (attention layer, "
              "normalisation, later training) are not measured.",
    kind="post",
    quote=Quote("attention layer, 학습 데이터의 길이 분포, normalization, 후처리 학습까지 같이 영향을 준다",
                "the attention layer, the training data's length distribution, normalisation and post-training all "
                "affect it"),
    expect_source="post B's sentence: '학습 데이터의 길이 분포 … 같이 영향을 준다' (the length distribution affects it)",
    post_value="영향을 준다 (affects it)", unit="pp", tolerance=AFFECTS,
    deviation=DEVIATION + " Post B trains no model. The mixed-length run costs about 25 CPU-s. Noise: the SD of the "
                          "paired difference (mixed − fixed, same seed) over the calibration seeds 1–10.",
)
def test_length_distribution_matters(verify, extrapolation_lab, calibration, seeds):
    mixed = _mean(extrapolation_lab, MIXED_RUN, seeds, "acc40")
    fixed = _mean(extrapolation_lab, "sinusoidal", seeds, "acc40")
    noise = calibration.diff_sd((MIXED_RUN, "acc40"), ("sinusoidal", "acc40"), seeds=len(seeds))
    verify(abs(mixed - fixed), noise=noise, details={
        "accuracy at 40, mixed lengths | fixed 20": [mixed, fixed], "mixed − fixed": mixed - fixed,
        "mixed lengths at 20": _mean(extrapolation_lab, MIXED_RUN, seeds, "acc20"),
        "noise": f"SD of {MIXED_RUN} − sinusoidal acc40 over the calibration seeds{calibration.note}",
        "seeds": len(seeds)})
