"""Length extrapolation, inside the trained models: positional logits, the relative bias table, attention offsets.

Post A, exp. 3: why sinusoidal PE fails at new positions (PE(i)ᵀ Wq Wkᵀ PE(j)), the relative bias's 'fatal
flaw' (offsets never trained keep their initial 0) and its score table, and which offset the trained head
attends to; measured on the same cached runs as ``test_extrapolation.py`` (seed 42, or the mean of
``--claims-seeds N`` seeds). The probes of the trained relative bias take their noise from
``calibration/relative_bias.json`` (the calibration seeds' weights, ``calibration/calibrate_relative_bias.py``);
the others from ``calibration/extrapolation.json``.
"""

from __future__ import annotations

import dataclasses
import statistics

import torch

from claims.extrapolation_common import DEVIATION, KEEPS, POST_RUNS, SOURCE, _mean
from llm_claims_harness.declare import Case, Quote, at_least, at_most, claim, exact
from llm_claims_lab.extrapolation import (
    EVAL_SEQUENCES,
    correct_with_offsets_masked,
    initial_model,
    measure,
    positional_peak_gap,
    relative_bias_probes,
)
from llm_claims_lab.extrapolation.figures import plot_relative_bias
from llm_claims_lab.core.stats import standard_error

BIAS_FIGURE = "extrapolation_relative_bias.png"


def _bias_figure(figure, tables: torch.Tensor, train_len: int) -> list[str]:
    """The mean over seeds of the trained relative-bias tables (``tables``: [seeds, 2L − 1]) against the offset,
    the untrained offsets marked (``reports/figures/``); its link, for ``verify(..., figures=...)``."""
    return figure(BIAS_FIGURE, lambda path: plot_relative_bias(tables.mean(0).tolist(), train_len, path))


@claim(
    id="extrap.learned_rows_untrained",
    post="A", section="exp3-duel",
    source=SOURCE + ", the learned table ('21번부터 40번까지의 위치는 한 번도 훈련된 적 없는')",
    statement="After the post's 3,000-step run at length 20, rows 21–40 of the learned table (positions 20–39, "
              "counting from 0) are still their initial values: measured, the largest |pos[20:40] − init| over "
              "those rows (all seeds).",
    kind="post",
    quote=Quote("1번부터 20번까지의 위치 정보는 완벽하게 학습(loss.backward())하지만, 21번부터 40번까지의 위치는 한 번도 "
                "훈련된 적 없는 초기화 상태의 '랜덤 쓰레기 값'으로 남아있게 됩니다",
                "positions 1 to 20 are learned perfectly, but positions 21 to 40 remain in their never-trained "
                "initial state, 'random garbage values'"),
    expect_source="post A's sentence; arithmetic: a length-20 batch reads rows 0–19 only, so rows 20–39 get a "
                  "gradient of exactly 0 at every step, and Adam moves such a parameter by exactly 0",
    post_value=0.0, unit="(table entry)",
    tolerance=exact(reason="Adam moves a parameter whose gradient is always exactly 0 by 0/(√0 + ε) = 0: exact"),
    version=2,
    version_note="v2 (issue 30): the quote keeps the post's words ('학습(loss.backward())하지만'), which it had "
                 "dropped without '…'; protocol, tolerance and expectation unchanged",
    deviation=DEVIATION,
)
def test_learned_rows_untrained(verify, extrapolation_lab, seeds):
    T = extrapolation_lab.config.train_len
    moved, trained = [], []
    for run in extrapolation_lab.runs(["learned"], seeds):
        init = initial_model(run.config, run.seed)[0].pos.weight.detach()  # [max_len, D]
        delta = (run.model.pos.weight.detach().cpu() - init).abs()  # [max_len, D]
        moved.append(delta[T:].max().item())
        trained.append(delta[:T].max().item())
    verify(max(moved), details={"largest |Δ| on the trained rows 0–19": max(trained), "seeds": len(seeds)})


@claim(
    id="extrap.sin_bilinear_not_gap_only",
    post="A", section="exp3-duel",
    source="Post A, exp. 3, why sinusoidal PE fails ('PE(i)ᵀ(Wq Wkᵀ)PE(j)')",
    statement="After training, the positional part of the logits, PE(i)ᵀ Wq Wkᵀ PE(j), points at the right "
              "neighbour j = i + 1 for the trained queries but not for new ones: measured, the fraction of "
              "queries 0–18 whose largest positional logit over keys 0–39 is at i + 1, minus that fraction for "
              "the new queries 19–38.",
    kind="post",
    quote=Quote("어텐션이 실제로 쓰는 위치 점수는 PE(i)ᵀ(Wq Wkᵀ)PE(j) — 학습된 쌍선형 형식입니다. … 그 W가 새 위치에서 "
                "작동할 이유는 없습니다",
                "the position score attention actually uses is PE(i)ᵀ(Wq Wkᵀ)PE(j), a learned bilinear form … there "
                "is no reason that W works at the new positions"),
    expect_source="post A, exp. 3: 'SGD는 학습에서 본 위치 0~19만 맞으면 되는 아무 W나 찾고 멈춥니다. 그 W가 새 "
                  "위치에서 작동할 이유는 없습니다'",
    unit="(fraction of queries)",
    tolerance=at_least(0.5, reason="effect size: at least half of the queries more point at their right neighbour on "
                            "trained positions than on new ones; an untrained Wq Wkᵀ scores about 0 (details)"),
    version=2,
    version_note="restated so that an untrained matrix fails it (v1 measured the same-gap spread, which any "
                 "random W also has, and took a minimum over a gap with only 2 pairs)",
    deviation=DEVIATION,
)
def test_sin_bilinear_not_gap_only(verify, extrapolation_lab, calibration, seeds):
    runs = extrapolation_lab.runs(["sinusoidal"], seeds)
    config = dataclasses.replace(extrapolation_lab.config, scheme="sinusoidal")
    untrained = positional_peak_gap(initial_model(config, seeds[0])[0])
    T = extrapolation_lab.config.train_len
    noise = calibration.sd("sinusoidal", "positional_peak_gap", seeds=len(seeds), floor=1 / (T - 1))
    verify(statistics.fmean(measure(r, "positional_peak_gap") for r in runs), noise=noise,
           details={f"untrained model (seed {seeds[0]})": untrained,
                    "learned table, trained": _mean(extrapolation_lab, "learned", seeds, "positional_peak_gap"),
                    "noise": calibration.describe("sinusoidal", "positional_peak_gap") + f" (floor: one query, 1/{T - 1})",
                    "seeds": len(seeds)})


FLAW_QUOTE = Quote("훈련할 때 한 번도 본 적 없는 '거리'(…)가 등장하면, 그 간격에 대한 가산점(rel_bias)이 전혀 학습되어 "
                   "있지 않아서 또다시 에러가 발생합니다",
                   "when a distance never seen in training appears, its bonus (rel_bias) has not been learned at all, "
                   "so errors occur again")


@claim(
    id="extrap.relative_unseen_offsets_untrained",
    post="A", section="rel-bias",
    source="Post A, exp. 3, the relative bias's 'fatal flaw'",
    statement="Offsets never seen in training (|i − j| ≥ 20) keep their initial bias 0 after training; "
              "measured: the largest |bias| over those 40 offsets (all seeds).",
    kind="post", quote=FLAW_QUOTE,
    expect_source="post A, exp. 3: '그 간격에 대한 가산점(rel_bias)이 전혀 학습되어 있지 않아서'; arithmetic: their "
                  "gradient is always exactly 0",
    post_value=0.0, unit="(bias)",
    tolerance=exact(reason="Adam moves a parameter whose gradient is always exactly 0 by 0/(√0 + ε) = 0: exact"),
    version=1, deviation=DEVIATION,
)
def test_relative_unseen_offsets_untrained(verify, extrapolation_lab, seeds, figure):
    T, L = extrapolation_lab.config.train_len, extrapolation_lab.config.max_len
    unseen, seen, tables = [], [], []
    for run in extrapolation_lab.runs(["relative"], seeds):
        bias = run.model.pos.bias.detach().cpu()  # [2L − 1], index o + L − 1 for offset o
        offset = torch.arange(1 - L, L)
        unseen.append(bias[offset.abs() >= T].abs().max().item())
        seen.append(bias[offset.abs() < T].abs().max().item())
        tables.append(bias)
    verify(max(unseen), details={"largest |bias| on trained offsets |i − j| ≤ 19": max(seen),
                                 "seeds": len(seeds)}, figures=_bias_figure(figure, torch.stack(tables), T))


RELATIVE_FLAW = ("'만약 훈련할 때 한 번도 본 적 없는 '거리'(…)가 등장하면, 그 간격에 대한 가산점(rel_bias)이 전혀 학습되어 "
                 "있지 않아서 또다시 에러가 발생합니다'")


def _probe_noise(probes: dict, quantity: str, seeds: list[int], floor: float) -> tuple[float, dict]:
    """The SD of a mean over ``seeds`` of a relative-bias probe, and the details that say where it comes from."""
    n = probes["noise"][quantity]
    return max(standard_error(n["sd"], len(seeds)), floor), {
        "noise": f"relative {quantity} over {n['n']} calibration seeds: sd {n['sd']:.3g} ({probes['note']}, "
                 "weights of calibration/extrapolation.json)", "seeds": len(seeds)}


@claim(
    id="extrap.relative_errors_from_unseen_offsets",
    post="A", section="rel-bias",
    source=SOURCE + ", the relative bias's 'fatal flaw' ('훈련할 때 한 번도 본 적 없는 거리')",
    statement="The relative bias's errors at length 40 come from the offsets never trained (|j − i| ≥ 20, whose "
              "bias is still 0): with every key at such an offset removed from the attention (logit −∞), the model "
              "keeps at length 40 the accuracy it has at 20. Measured: accuracy at 40 with those keys masked minus "
              "accuracy at 20, on the evaluation sequences of the unmasked rows.",
    kind="post", quote=FLAW_QUOTE,
    expect_source=f"post A, exp. 3: {RELATIVE_FLAW} (the errors come from the untrained offsets), so removing "
                  "those offsets should remove the errors",
    unit="pp", tolerance=KEEPS, version=1, deviation=DEVIATION,
)
def test_relative_errors_from_unseen_offsets(verify, extrapolation_lab, relative_probes, seeds):
    T, L = extrapolation_lab.config.train_len, extrapolation_lab.config.max_len
    masked, at20 = [], []
    for run in extrapolation_lab.runs(["relative"], seeds):
        masked.append(correct_with_offsets_masked(run.model, run.seed, L, T - 1).double())  # [N, L − 1]
        at20.append(100 * correct_with_offsets_masked(run.model, run.seed, T, None).double().mean().item())
    acc40 = statistics.fmean(100 * m.mean().item() for m in masked)
    noise, where = _probe_noise(relative_probes, "masked_drop", seeds, floor=100 / EVAL_SEQUENCES)
    verify(acc40 - statistics.fmean(at20), noise=noise, details={
        "accuracy at 40, offsets ≥ 20 masked": acc40,
        "on seen positions 0–18 | new positions 19–38": [
            round(statistics.fmean(100 * m[:, : T - 1].mean().item() for m in masked), 2),
            round(statistics.fmean(100 * m[:, T - 1:].mean().item() for m in masked), 2)],
        "accuracy at 40, unmasked (extrap.relative_bias[len40])": _mean(extrapolation_lab, "relative", seeds, "acc40"),
        "accuracy at 20": statistics.fmean(at20), **where})


BIAS_TABLE_SENTENCE = "'바로 옆 칸(-1)은 점수를 높여야지', '5칸 떨어져 있으면 점수를 깎아야지'"
PLUS1_QUOTE = Quote("학습이 \"간격 +1이면 점수를 크게\"라는 규칙을 배우면, 그 규칙은 절대 위치를 아예 참조하지 않으므로",
                    "once training learns the rule 'offset +1: raise the score', the rule never refers to absolute "
                    "position")
TABLE_QUOTE = Quote("컴퓨터는 학습을 통해 \"바로 옆 칸(-1)은 점수를 높여야지\", \"5칸 떨어져 있으면 점수를 깎아야지\" 하고 "
                    "이 점수판을 스스로 업데이트합니다",
                    "through training the computer updates this score table itself: 'the cell right next to me (-1): "
                    "raise the score', '5 cells away: cut the score'")
TASK_DESIGN = ("task design, before measuring: at query i the target is token i + 1, which only the key at offset "
               "j − i = +1 carries (the post's code indexes rel_bias by j − i)")
BIAS_ROWS = {  # row id -> (probe quantity, Case)
    "peak_offset": ("argmax_offset", Case(
        statement="The trained offset (|j − i| ≤ 19) with the largest bias is +1, the right neighbour.",
        unit="(offset j − i)", post_value=None,
        tolerance=exact(reason="an offset is an integer; every calibration seed peaks at +1"), quote=PLUS1_QUOTE,
        reference="+1, the right neighbour",
        expect_source=TASK_DESIGN + "; post A's own later sentence: '간격 +1이면 점수를 크게'")),
    "plus1_raised": ("bias_plus1", Case(
        statement="Training raises the bias of the right neighbour (offset +1) above its initial 0.",
        tolerance=at_least(0.0, reason="'raise' = move above the initial value 0", strict=True), quote=TABLE_QUOTE,
        expect_source=TASK_DESIGN + "; the post's '바로 옆 칸' (the cell right next to me) read as the neighbour the task "
                      "needs, as its later '간격 +1이면 점수를 크게' (offset +1: raise the score) says")),
    "minus1_raised": ("bias_minus1", Case(
        statement="Literally: training raises the bias of offset −1, the sign the post writes once in its "
                  "illustration (the left neighbour in its code's j − i), above its initial 0. The post's own later "
                  "rule writes +1 ('간격 +1이면 점수를 크게'), which plus1_raised tests: the '(-1)' is an illustration, "
                  "so this row is never counted against the post.",
        kind="literal", quote=TABLE_QUOTE,
        tolerance=at_least(0.0, reason="'raise' = move above the initial value 0", strict=True),
        expect="refuted",
        expect_source=TASK_DESIGN + ": the key at −1 says nothing about token i + 1, so training lowers its score "
                      "like any other non-target offset; the post's '(-1)' is the left neighbour in its own code's "
                      "offsets j − i (it would be the right one only under the opposite convention i − j)")),
    "five_lowered": ("bias_five", Case(
        statement="Training lowers the bias of the offsets 5 apart (−5 and +5) below their initial 0; measured: "
                  "the larger of the two.",
        tolerance=at_most(0.0, reason="'lower' = move below the initial value 0", strict=True), quote=TABLE_QUOTE,
        expect_source=TASK_DESIGN + "; post A: '5칸 떨어져 있으면 점수를 깎아야지'")),
}


@claim(
    id="extrap.relative_bias_table",
    post="A", section="rel-bias",
    source=SOURCE + f", the relative bias's score table ({BIAS_TABLE_SENTENCE})",
    statement="Training writes the per-offset score table the post describes: it raises the neighbour and lowers "
              "offsets 5 apart. Offsets are j − i (key minus query), as the post's code indexes rel_bias; the post "
              "names the neighbour −1, while its task (predict token i + 1) needs +1: both are rows.",
    kind="post", unit="(bias)",
    cases={row: case for row, (_, case) in BIAS_ROWS.items()},
    version=2,
    version_note="v2 (issue 19, the reading rule): minus1_raised, the sign of the post's one-off illustration "
                 "'(-1)', is a literal row (the post's rule later writes +1: plus1_raised); every row quotes its "
                 "sentence",
    deviation=DEVIATION,
)
def test_relative_bias_table(verify, extrapolation_lab, relative_probes, seeds, case, figure):
    quantity = BIAS_ROWS[case][0]
    T, L = extrapolation_lab.config.train_len, extrapolation_lab.config.max_len
    tables = torch.stack([r.model.pos.bias.detach().cpu() for r in extrapolation_lab.runs(["relative"], seeds)])
    table = tables.mean(0)  # [2L − 1], index o + L − 1 for offset o; mean over seeds
    at = {o: table[o + L - 1].item() for o in range(1 - T, T)}
    others = [v for o, v in at.items() if o not in (-(T - 1), 0, 1)]
    details = {"bias by offset −19 … +19": [round(v, 3) for v in at.values()],
               "range of the other trained offsets (not −19, 0, +1)": [round(min(others), 3), round(max(others), 3)],
               "offset −19": f"{at[1 - T]:.3f}: only query 19 sees it at length 20, and query 19 has no target, so "
                             "its gradient is 0"}
    value = relative_bias_probes(table, L, T)[quantity]
    figures = _bias_figure(figure, tables, T)
    if quantity == "argmax_offset":
        verify(value, reference=1, details={**details, "seeds": len(seeds)}, figures=figures)
        return
    noise, where = _probe_noise(relative_probes, quantity, seeds, floor=1e-6)
    verify(value, noise=noise, details={**details, **where}, figures=figures)


@claim(
    id="attn.attends_right_neighbour",
    post="A", section="exp3-duel",
    source="Post A, exp. 3 (the right-neighbour task); part 5 on heads learning positional patterns",
    statement="Trained at length 20, the head puts more attention on the right neighbour (offset +1) than "
              "on any other offset; measured: the offset with the largest mean attention weight.",
    kind="beyond", expect_source="task design: the target of query i is token i + 1, which only the key at "
                                 "offset +1 reveals (post A, exp. 3: '\"오른쪽 이웃 맞히기\"(y_i = x_{i+1})'); the post "
                                 "says nothing of where the learned and sinusoidal heads look",
    post_value=None, unit="(offset j − i)",
    tolerance=exact(reason="the offset with the largest weight is an integer"), reference="+1, the right neighbour",
    cases={s: Case(statement=f"{s}: the most attended offset at length 20 is +1.") for s in POST_RUNS},
    version=3, version_note="v3 (issue 19, the reading rule): beyond the post, which states no attention pattern; "
                            "v2: attention measured on the independent evaluation batches", deviation=DEVIATION,
)
def test_attends_right_neighbour(verify, extrapolation_lab, seeds, case):
    scheme = case
    T = extrapolation_lab.config.train_len
    runs = extrapolation_lab.runs([scheme], seeds)
    profile = torch.stack([run.attention[T] for run in runs]).mean(0)  # [2T − 1], offsets −(T−1) … T−1
    weight = {o: round(profile[o + T - 1].item(), 4) for o in (-1, 0, 1)}
    verify(int(profile.argmax()) - (T - 1), reference=1,
           details={"weight on +1": weight[1], "on 0": weight[0], "on −1": weight[-1], "uniform": 1 / T,
                    "seeds (profile averaged)": len(seeds)})
