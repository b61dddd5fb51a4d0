"""Length extrapolation: post A's learned, sinusoidal and relative schemes, trained at length 20, tested at 40.

Post A, exp. 3 ``pe_probe.py --exp extrapolate``: a learned table, sinusoidal PE and a per-offset relative bias,
trained on the right-neighbour task at length 20; the accuracies of the post's table, its 'hits the floor'
diagnosis and the raw-integer preamble (post B's sentences read on the same runs:
``test_extrapolation_post_b.py``). Each model is trained once and cached (``llm_claims_lab/core/cache.py``); values
are for seed 42, or the mean of ``--claims-seeds N`` seeds. Tolerances are effect sizes declared with their
reasons; each stochastic row's noise (its SD) comes from ``calibration/extrapolation.json`` (seeds 1–20,
evaluation sets independent of training), divided by √N. Shared fixtures: ``fixtures/extrapolation.py``; shared helpers:
``extrapolation_common.py``.
"""

from __future__ import annotations

import statistics

import pytest
from claims.extrapolation_common import CHANCE, DEVIATION, LEARNS, POST_RUNS, REPRODUCE, SOURCE, _mean, _noise

from llm_claims_harness.declare import Case, Quote, at_most, claim, close
from llm_claims_lab.extrapolation import CURVE_STEPS

# Requested through `request` by the shared checks; named here so session setup sees every user of the lab
# (fixtures/trained.py splits the builds between xdist workers).
pytestmark = pytest.mark.usefixtures("extrapolation_lab")

POST_TABLE = "post A's exp. 3 table ('학습형 PE 100 % 52.4 %', '사인파 PE 100 % 50.8 %', 'rel 100 % 76.6 % 77 %')"
TABLE_QUOTES = {  # scheme -> the line of post A's exp. 3 table its rows reproduce
    "learned": Quote("학습형 PE 100 % 52.4 %", "learned PE: 100 % at length 20 (training), 52.4 % at 40 (extrapolation)"),
    "sinusoidal": Quote("사인파 PE 100 % 50.8 % (문제 발생!)", "sinusoidal PE: 100 % at 20, 50.8 % at 40 (a problem!)"),
    "relative": Quote("상대 바이어스 (rel) 100 % 76.6 % 77 %",
                      "relative bias: 100 % at 20, 76.6 % at 40, 77 % on the new positions (19~) only"),
}
VERSION_2 = ("evaluation on 16,384 sequences independent of training; tolerance an effect size (±5 pp) "
             "instead of a t·s band; noise from a 20-seed calibration (was 10 seeds, evaluation from the training "
             "stream)")


def _post_cases(scheme: str) -> dict[str, Case]:
    at20, at40 = POST_RUNS[scheme]
    cases = {"len20": Case(statement=f"Accuracy at the training length 20: the post's {at20:g} %.", post_value=at20,
                           params={"quantity": "acc20"}),
             "len40": Case(statement=f"Accuracy at length 40 (positions 0–38): the post's {at40:g} %.",
                           post_value=at40, params={"quantity": "acc40"})}
    if scheme == "relative":
        cases["new40"] = Case(statement="Accuracy at 40 on the new positions 19–38: the post's 77 %.", post_value=77.0,
                              params={"quantity": "new40"})
    return cases


def _check_post_row(verify, request, scheme: str, quantity: str) -> None:
    lab, seeds = request.getfixturevalue("extrapolation_lab"), request.getfixturevalue("seeds")
    extra, figures = {}, []
    if quantity == "acc40":
        extra = {"seen positions 0–18": _mean(lab, scheme, seeds, "seen40"),
                 "new positions 19–38": _mean(lab, scheme, seeds, "new40")}
        figures = request.getfixturevalue("position_figure")
    noise, where = _noise(request.getfixturevalue("calibration"), scheme, quantity, seeds)
    verify(_mean(lab, scheme, seeds, quantity), noise=noise, details={**extra, **where}, figures=figures)


def _post_claim(claim_id: str, scheme: str, what: str, statement: str):
    section = "rel-bias" if scheme == "relative" else "exp3-duel"  # the relative bias has its own part of exp. 3
    return claim(id=claim_id, source=f"{SOURCE}, {what}", post="A", section=section, statement=statement, kind="post",
                 quote=TABLE_QUOTES[scheme],
                 expect_source=POST_TABLE + "; our protocol is the post's", unit="%", tolerance=REPRODUCE,
                 cases=_post_cases(scheme), version=2, version_note=VERSION_2, deviation=DEVIATION)


@_post_claim("extrap.learned", "learned", "learned table (`--pe learned`)",
             "A learned absolute table (40 rows, 20 trained) is perfect at length 20 and fails at 40.")
def test_learned(verify, request, quantity):
    _check_post_row(verify, request, "learned", quantity)


@_post_claim("extrap.sinusoidal", "sinusoidal", "sinusoidal PE (`--pe sin`)",
             "Sinusoidal PE, though defined at every position, fails at length 40 the same way.")
def test_sinusoidal(verify, request, quantity):
    _check_post_row(verify, request, "sinusoidal", quantity)


@_post_claim("extrap.relative_bias", "relative", "relative bias (`--pe rel`)",
             "One learned scalar per offset, added to the attention logits, extrapolates far better.")
def test_relative_bias(verify, request, quantity):
    _check_post_row(verify, request, "relative", quantity)


FLOOR = CHANCE + 10  # % : our reading of "hits the floor"
POST_IMPLIED_NEW = {s: (at40 * 39 - 100 * 19) / 20 for s, (_, at40) in POST_RUNS.items()}  # if 0–18 at 100 %
FLOOR_SENTENCE = "'길이가 40인 시험 문제에서는 정답률이 바닥을 칠 것입니다'"
FLOOR_VALUE = "바닥을 칠 것 (hits the floor)"  # the post's words for the learned table at length 40
FLOOR_QUOTE = Quote("21번부터 40번까지의 위치는 … '랜덤 쓰레기 값'으로 남아있게 됩니다. 당연히 길이가 40인 시험 문제에서는 "
                    "정답률이 바닥을 칠 것입니다",
                    "positions 21 to 40 remain random garbage values … Naturally, on the length-40 test the accuracy "
                    "will hit the floor")
W_QUOTE = Quote("SGD는 학습에서 본 위치 0~19만 맞으면 되는 아무 W나 찾고 멈춥니다. 그 W가 새 위치에서 작동할 이유는 없습니다",
                "SGD finds any W that fits the positions 0–19 seen in training and stops; there is no reason that W "
                "works at the new positions")
FLOOR_CASES = {  # row id -> (scheme, quantity)
    "learned": ("learned", "new40"), "sinusoidal": ("sinusoidal", "new40"), "learned-overall": ("learned", "acc40")}


@claim(
    id="extrap.new_positions_near_chance",
    post="A", section="exp3-duel",
    source=SOURCE + ", the diagnosis of the learned table ('바닥을 칠 것') and of sinusoidal PE ('그 W가 새 위치에서 "
                    "작동할 이유는 없습니다')",
    statement="Post A predicts that the learned table's accuracy at length 40 'hits the floor' (near chance, "
              f"{CHANCE:g} %). Two readings, each its own row: literally, the accuracy at length 40 over all "
              "positions (what the post's table prints as 전체); per position, the accuracy on the new positions "
              "19–38, whose table rows (21–40 in the post's count) are never trained.",
    kind="post", quote=FLOOR_QUOTE, unit="%",
    tolerance=at_most(FLOOR, reason=f"our reading of 'hits the floor': within 10 pp of chance ({CHANCE:g} %), i.e. "
                             f"≤ {FLOOR:g} %; the relative bias keeps about 77 % there"),
    cases={
        "learned": Case(
            post_value=FLOOR_VALUE,
            statement=f"learned, per position: accuracy on the new positions 19–38 at length 40 is at most "
                      f"{FLOOR:g} % (the post's table implies {POST_IMPLIED_NEW['learned']:.1f} % if positions "
                      "0–18 stay at 100 %).",
            expect_source=f"post A, exp. 3, said of the learned table: {FLOOR_SENTENCE}, read for the positions "
                          "whose rows '21번부터 40번까지의 위치는 … 랜덤 쓰레기 값' are never trained; arithmetic on "
                          f"the post's table: 52.4 % over 39 positions with 0–18 at 100 % leaves "
                          f"{POST_IMPLIED_NEW['learned']:.1f} % on 19–38"),
        "sinusoidal": Case(
            quote=W_QUOTE, post_value="작동할 이유는 없습니다 (no reason it works)",
            tolerance=at_most(FLOOR, reason=f"our reading of '그 W가 새 위치에서 작동할 이유는 없습니다' (W does not work at "
                                     f"the new positions): within 10 pp of chance ({CHANCE:g} %), i.e. ≤ {FLOOR:g} %, "
                                     "as the post's table implies; the relative bias keeps about 77 % there"),
            statement=f"sinusoidal, per position: accuracy on the new positions 19–38 at length 40 is at most "
                      f"{FLOOR:g} % (the post's table implies {POST_IMPLIED_NEW['sinusoidal']:.1f} % if positions "
                      "0–18 stay at 100 %).",
            expect_source="post A, exp. 3, said of sinusoidal PE: 'SGD는 학습에서 본 위치 0~19만 맞으면 되는 아무 W나 "
                          "찾고 멈춥니다. 그 W가 새 위치에서 작동할 이유는 없습니다' (nothing makes W work at the new "
                          "positions; the floor sentence itself is about the learned table); arithmetic on the post's "
                          f"table: 50.8 % with 0–18 at 100 % leaves {POST_IMPLIED_NEW['sinusoidal']:.1f} % on 19–38"),
        "learned-overall": Case(
            kind="literal", post_value=FLOOR_VALUE,
            statement=f"learned, literally: accuracy at length 40 over all positions 0–38 is at most {FLOOR:g} %. "
                      "A literal reading, never counted against the post: the sentence follows the one about the "
                      "never-trained rows 21–40, and [learned] is its reading for those positions.",
            expect="refuted",
            expect_source=f"arithmetic on the post's own table: its learned run scores 52.4 % at length 40, far "
                          f"above {FLOOR:g} %, so {FLOOR_SENTENCE} read literally is contradicted by the post's own "
                          "number (positions 0–18 keep 100 %; only the new ones fall)"),
    },
    version=4,
    version_note="v4 (issue 30): learned-overall is kind literal, as its statement says (the literal reading is "
                 "never counted against the post; [learned] is the post's reading); the sinusoidal row's post value "
                 "and tolerance reason are its own sentence's ('작동할 이유는 없습니다'), not 'hits the floor', which "
                 "is said of the learned table; the quote keeps the post's quotation marks. Protocol, bound and "
                 "expectations unchanged. v3 (issue 10): the post's sentence read literally (accuracy at length 40 "
                 "over all positions, the post's 전체) is its own row, learned-overall, expected refuted from the "
                 "post's own 52.4 %; the per-position rows are kept and say which sentence they judge (the "
                 "sinusoidal row cites the post's sentence about sinusoidal PE, not the floor sentence about the "
                 "learned table). v2: "
                 + VERSION_2.replace("tolerance an effect size (±5 pp) instead of a t·s band; ", ""),
    deviation=DEVIATION,
)
def test_new_positions_near_chance(verify, extrapolation_lab, calibration, seeds, case):
    scheme, quantity = FLOOR_CASES[case]
    noise, where = _noise(calibration, scheme, quantity, seeds)
    other = "acc40" if quantity == "new40" else "new40"
    verify(_mean(extrapolation_lab, scheme, seeds, quantity), noise=noise,
           details={"chance": CHANCE, {"acc40": "all positions 0–38", "new40": "new positions 19–38"}[other]:
                    _mean(extrapolation_lab, scheme, seeds, other), **where})


@claim(
    id="extrap.learned_equals_sin_in_range",
    post="A", section="exp3-duel",
    source="Post A, exp. 3 table (the 2017 paper's finding: learned and sinusoidal perform alike)",
    statement="Control — both absolute schemes solve the task at the training length, the ceiling the length-40 "
              "comparison starts from: accuracy at 20 of the learned table minus that of sinusoidal PE is 0 within "
              "1 pp. Not a test of the 2017 paper's finding (learned ≈ sinusoidal): two scores at the 100 % "
              "ceiling cannot differ, so this row could not refute it; the details show both schemes at the steps "
              "sweep's earlier checkpoints (750 and 1,500 steps of the same runs), without a verdict.",
    kind="control",
    expect_source="control's design: the right-neighbour task at length 20 is solved by both schemes (the post's "
                  "table: 100 % both), so their difference at the ceiling is 0 whenever training works",
    post_value="100 % both", unit="pp", reference="0 pp: no difference at the ceiling",
    tolerance=close(reason="effect size: 'alike' = within 1 pp at the training length", atol=1.0),
    version=3,
    version_note="v3 (issue 10): a control, no longer the post's claim: it compares two 100 % ceilings, which "
                 "cannot tell 'alike' from 'different', so it cannot test Vaswani et al.'s finding; the steps "
                 "sweep's earlier checkpoints are shown in the details. v2: an effect size (1 pp) instead of a "
                 "t·s band around 0; noise from the calibration",
    deviation=DEVIATION,
)
def test_learned_equals_sin_in_range(verify, extrapolation_lab, calibration, seeds):
    learned = _mean(extrapolation_lab, "learned", seeds, "acc20")
    sin = _mean(extrapolation_lab, "sinusoidal", seeds, "acc20")
    noise = calibration.diff_sd(("learned", "acc20"), ("sinusoidal", "acc20"), seeds=len(seeds))
    early = {f"accuracy at 20 after {steps:,} steps (learned | sinusoidal)": [
        round(statistics.fmean(c[steps].total(20) for c in extrapolation_lab.curves([s], seeds)), 2)
        for s in ("learned", "sinusoidal")] for steps in CURVE_STEPS if steps < extrapolation_lab.config.steps}
    verify(learned - sin, reference=0.0, noise=noise,
           details={"learned": learned, "sinusoidal": sin, **early,
                    "earlier checkpoints": "the steps sweep's runs, no calibrated noise: shown, not judged",
                    "seeds": len(seeds)})


BREAKS = at_most(50.0, reason="effect size: 'training breaks' = the task is not learned even at the training length, "
                       "at most half the 100 % that the learned table and sinusoidal PE reach there with the same "
                       f"protocol, and far from it on either side (chance is {CHANCE:g} %)")


@claim(
    id="extrap.raw_integer_breaks_training",
    post="A", section="exp3",
    source="Post A, exp. 3 preamble ('단순히 1, 2, 3, 4라는 숫자를 더해주면 … 학습이 망가집니다')",
    statement="Adding the raw position numbers 1, 2, 3, … (the same number on every channel) to the token "
              "embeddings breaks training: with post A's extrapolation protocol otherwise unchanged, accuracy at "
              f"the training length 20 stays at most {BREAKS.bound:g} %.",
    kind="post",
    quote=Quote("단순히 1, 2, 3, 4라는 숫자를 더해주면, 문장이 길어질수록 숫자가 무한히 커져서 학습이 망가집니다",
                "simply adding the numbers 1, 2, 3, 4, as sentences grow longer the numbers grow without bound and "
                "training breaks"),
    expect_source="post A's sentence: '문장이 길어질수록 숫자가 무한히 커져서 학습이 망가집니다' (training breaks)",
    post_value="breaks", unit="%", tolerance=BREAKS,
    deviation=DEVIATION + " The post names no length for 'breaks'; we train at its length 20 (positions 1–20), "
                          "where the numbers are bounded by 20, so a failure here is not from unbounded growth "
                          "(pe.raw_integer_unbounded measures that part). Positive control: the row errors unless "
                          "sinusoidal PE, the post's answer, trained by the same code learns the task (at least "
                          f"{LEARNS.bound:g} % at 20), so a training loop that learns nothing cannot confirm it; a "
                          "run with non-finite weights errors too (llm_claims_lab.extrapolation.check_run).",
)
def test_raw_integer_breaks_training(verify, extrapolation_lab, calibration, seeds):
    control = _mean(extrapolation_lab, "sinusoidal", seeds, "acc20")
    if not control >= LEARNS.bound:
        pytest.fail(f"positive control failed: sinusoidal PE, trained by the same code, reaches {control:.1f} % at "
                    f"20 (< {LEARNS.bound:g} %): the training itself does not learn the task, so a low raw-integer "
                    "accuracy cannot show that the raw numbers break it")
    noise, where = _noise(calibration, "raw_integer", "acc20", seeds)
    verify(_mean(extrapolation_lab, "raw_integer", seeds, "acc20"), noise=noise,
           details={"accuracy at 40": _mean(extrapolation_lab, "raw_integer", seeds, "acc40"),
                    "chance": CHANCE,
                    "learned | sinusoidal at 20": [_mean(extrapolation_lab, s, seeds, "acc20")
                                                   for s in ("learned", "sinusoidal")], **where})
