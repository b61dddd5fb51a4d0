"""Length extrapolation beyond the post: ALiBi, RoPE, T5 buckets and clipped offsets, and a longer training budget.

Post A, exp. 3 closes by naming the schemes that fix the failure (ALiBi, RoPE, T5 buckets, clipped offsets):
each is built as its paper defines it, trained with the post's budget at length 20 and tested at 40 and 80; a
steps sweep judges every scheme's length-40 verdict again after twice the budget. Runs, caching, seeds and
calibrated noise as in ``test_extrapolation.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import statistics

import pytest

from claims.extrapolation_common import (DEVIATION, KEEPS, LEARNS, POST_RUNS, REPRODUCE, SOURCE, SWEEP_STEPS, _drop_noise,
                                  _mean, _noise)
from llm_claims_harness.declare import Case, Revision, at_most, claim
from llm_claims_harness.measure import DECISION_LEVEL
from fixtures import CALIBRATION_DIR
from llm_claims_lab.extrapolation import (CALIBRATION, CLIP_DISTANCE, CURVE_STEPS, SWEPT_SCHEMES,
                                          load_calibration, measure)
from llm_claims_lab.core.stats import failure_rate_power, proportion_interval, seeds_to_decide

# Requested through `request` by the shared checks; named here so session setup sees every user of the lab
# (fixtures/trained.py splits the builds between xdist workers).
pytestmark = pytest.mark.usefixtures("extrapolation_lab")


BEYOND_SOURCE = "Post A, exp. 3 closing ('ALiBi, RoPE … 이 문제를 완전히 끝내기 위해'); beyond the post"
_CAL = load_calibration(CALIBRATION_DIR / CALIBRATION)


def _findings(scheme: str) -> tuple[str, str]:
    """The committed evidence of a revised row of ``scheme`` and the training code it was measured under: its
    calibration seeds, and the code the scheme was calibrated under (a scheme added later records its own)."""
    seeds = _CAL["seeds"][scheme]
    code = _CAL.get("added_schemes", {}).get(scheme, {}).get("code", _CAL["training_code"])
    return f"calibration/extrapolation.json, {scheme} seeds {seeds[0]}–{seeds[-1]} (the run's are 42 …)", code
# A row whose calibration seeds are bimodal — some collapse below the KEEPS bound while most keep their
# accuracy — is judged as a failure rate over the run's seeds, not as a mean with a Gaussian band that such a
# sample does not have (rope at 80: 2 of 20 calibration seeds lose 12.6 and 21.5 pp, 18 lose at most 0.9).
FAILURE_RATE = at_most(0.5, reason="'keeps its accuracy' read per training run: fewer than half of the runs lose more than "
                            "5 pp (a collapse in a minority of seeds is the scheme's risk, not its rule)")


DECIDING_POWER = 0.8  # 'decides it in most runs': the conventional power of a design (Cohen 1988)
# CPU-s to train one seed (its 6,000-step sweep run holds the 3,000-step checkpoint): events.jsonl of a 2-core run
SEED_CPU_S = {"rope": 50}


def _collapses(scheme: str, length: int) -> tuple[int, int]:
    """How many of the calibration seeds of ``scheme`` lose more than the KEEPS bound at ``length``, of how many."""
    runs = _CAL["runs"][scheme]
    drops = [b - a for a, b in zip(runs["acc20"], runs.get(f"acc{length}", []))]
    return sum(d < KEEPS.bound for d in drops), len(drops)


def bimodal(scheme: str, length: int) -> bool:
    """Whether the calibration seeds of ``scheme`` at ``length`` collapse in a minority (not none, not most)."""
    below, n = _collapses(scheme, length)
    return 0 < below < n / 2
BEYOND = {  # scheme -> claim id, kind, how it is built, where the expectation comes from, expectation per row
    "alibi": ("extrap.alibi", "beyond",
              "ALiBi as Press et al. 2022 define it: 8 heads (D/H = 16) with the reference slopes 2^−1 … 2^−8, "
              "direction from the mask, here mirrored to the task (query i sees keys j ≥ i, bias −m·(j − i)); "
              "one head would get the formula's single slope 2^−8, a bias of at most 0.074 over 19 tokens",
              "Press, Smith, Lewis 2022: the linear bias only penalises distance, the mask supplies direction; "
              "ALiBi extrapolates to longer inputs than trained", {}),
    "rope": ("extrap.rope", "beyond", "RoPE on queries and keys (Su et al. 2021), one head",
             "Su et al. 2021: q_m·k_n depends on m − n only, and the task needs offset +1 only; post B's RoPE "
             "section", {}),
    "t5": ("extrap.t5_buckets", "beyond",
           "T5's bucketed relative bias (Raffel et al. 2020): 32 buckets, max_distance scaled to the training "
           "length (T5: 128 for 512; here 20), so offsets past 19 share the last trained bucket; init 0",
           "Raffel et al. 2020; Press et al. 2022, Fig. 1: the T5 bias extrapolates past its training length, "
           "unlike sinusoidal and rotary",
           {"len80": "at 4× the training length every calibration seed loses more than 5 pp (at 2× it keeps its "
                     "accuracy, as pre-registered)"}),
    "relative_clipped": ("extrap.relative_clipped", "beyond",
                         f"a clipped scalar bias: post A's per-offset scalar with offsets clipped to ±{CLIP_DISTANCE} "
                         f"(Shaw et al. 2018 §4.1's k), inside the trained offsets ±19, so every offset from "
                         f"{CLIP_DISTANCE} to 19 trains the shared far scalar (Shaw et al. clip learned key and value "
                         "vectors, not a scalar logit bias; the vector form is not built here)",
                         "Shaw, Uszkoreit, Vaswani 2018, §4.3 and Table 2: with the distance clipped, BLEU is flat for "
                         "every k ≥ 2; a clipped offset past the training length reuses a trained entry",
                         {"len80": "every calibration seed loses more than 5 pp at 80 (11.7–12.5 pp; at 40 at most "
                                   "1 pp): at 4× the training length it does not keep its accuracy"}),
    "alibi_symmetric": ("extrap.alibi_symmetric", "control",
                        "ALiBi's 8 slopes without the mask: the symmetric bias −m·|j − i|",
                        "design: −m·|j − i| is the same for a left and a right neighbour, and token content "
                        "cannot tell them apart, so the right-neighbour task cannot be learned",
                        {"len20": "refuted"}),
}


REBUILT = {"relative_clipped": f"clipped at ±{CLIP_DISTANCE}, inside the trained offsets, calibrated anew (seeds 1–5); "
                               "v2 clipped at ±19, where only the two corner pairs trained the far scalar, and every "
                               "calibration seed lost more than 5 pp at 40 and 80"}


def _expectation(scheme: str, row: str) -> dict:
    """``expect``, ``expect_source`` and ``revised`` of ``scheme``'s row ``row`` (``len20``, ``len40``, ``len80``):
    a claim beyond the post expects what its paper predicts, unless the calibration seeds revised it."""
    _, kind, _, source, changed = BEYOND[scheme]
    if row not in changed:
        return {"expect": "holds", "expect_source": source}
    if kind == "control":
        return {"expect": changed[row], "expect_source": source}
    return {"expect": "refuted", "expect_source": f"finding of the calibration seeds: {changed[row]}",
            "revised": Revision("holds", source, changed[row], *_findings(scheme))}


def _beyond_claim(scheme: str, lengths: tuple[int, ...] = (20, 40, 80)):
    claim_id, kind, what, _, changed = BEYOND[scheme]
    cases = {"len20": Case(statement=f"It learns the task at the training length: accuracy at 20 ≥ {LEARNS.bound:g} %.",
                           unit="%", tolerance=LEARNS, params={"length": 20})}
    for L in lengths[1:]:
        cases[f"len{L}"] = Case(statement=f"It keeps at length {L} the accuracy it has at 20: accuracy at {L} minus "
                                          f"accuracy at 20 ≥ {KEEPS.bound:g} pp.", unit="pp", tolerance=KEEPS,
                                params={"length": L})
        if bimodal(scheme, L):
            below, n = _collapses(scheme, L)
            cases[f"len{L}"] = dataclasses.replace(
                cases[f"len{L}"], unit="share of seeds", tolerance=FAILURE_RATE,
                statement=f"It keeps at length {L} the accuracy it has at 20 in most training runs: the share of the "
                          f"run's seeds that lose more than {-KEEPS.bound:g} pp is at most 50 % (judged as a rate: "
                          f"{below} of {n} calibration seeds collapse, the rest keep their accuracy).")
    cases = {row: dataclasses.replace(case, **_expectation(scheme, row)) for row, case in cases.items()}
    findings = [row for row in changed if kind != "control"]
    rates = [f"len{L}" for L in lengths[1:] if bimodal(scheme, L)]
    return claim(id=claim_id, source=BEYOND_SOURCE, post="A", section="exp3-end", kind=kind,
                 statement=f"{what}: trained at 20 with the post's budget (3000 Adam steps, lr 1e-3, batch 256), it "
                           "learns the task and keeps its accuracy at 40 and 80.",
                 cases=cases, version=4 if rates else 3 if scheme in REBUILT else 2,
                 version_note=(f"v4 (issue 30): {', '.join(rates)} names the seeds that decide it in most runs at the "
                               "calibration's collapse rate, with their cost, and draws no figure (the figure reads "
                               "every scheme's runs, which a run of that many seeds would train); v3: "
                               f"{', '.join(rates)} judged as a failure rate over seeds (its calibration seeds are "
                               "bimodal); v2: " if rates else f"v3: {REBUILT[scheme]}; v2: " if scheme in REBUILT else "")
                              + "each scheme as its paper defines it (ALiBi: 8 heads, reference slopes, mirrored "
                              "mask; T5: max_distance scaled to the training length); effect-size tolerances; "
                              "noise from a 20-seed calibration"
                              + (f"; expectation of {', '.join(findings)} changed from the pre-registered 'holds' "
                                 "to the calibration's finding" if findings else ""),
                 deviation="Evaluated at 20, 40 and 80. " + DEVIATION)


def _check_beyond(verify, request, scheme: str, length: int) -> None:
    lab, seeds = request.getfixturevalue("extrapolation_lab"), request.getfixturevalue("seeds")
    acc20 = _mean(lab, scheme, seeds, "acc20")
    if length == 20:
        noise, where = _noise(request.getfixturevalue("calibration"), scheme, "acc20", seeds)
        model = lab.run(scheme, seeds[0]).model
        if model.pos.kind == "bias":  # what the scheme adds to the logits next to query 1, mean over heads
            bias = model.pos(3, 3)[:, 1].mean(0).tolist()  # [3]: offsets −1, 0, +1
            where[f"bias at offsets −1, 0, +1 (seed {seeds[0]})"] = [round(b, 4) for b in bias]
        verify(acc20, noise=noise, details=where)
        return
    if bimodal(scheme, length):  # no figure: it reads every scheme's runs, which a run of more seeds would train
        _check_failure_rate(verify, lab, scheme, length, seeds)
        return
    figures = request.getfixturevalue("position_figure") if length == 80 else []
    acc = _mean(lab, scheme, seeds, f"acc{length}")
    noise, where = _drop_noise(request.getfixturevalue("calibration"), scheme, length, seeds)
    verify(acc - acc20, noise=noise, details={f"accuracy at {length}": acc, "at 20": acc20,
                                              "on new positions": _mean(lab, scheme, seeds, f"new{length}"),
                                              **where}, figures=figures)


def _seeds_needed(verify, scheme: str, length: int, seeds: int) -> tuple[str, dict]:
    """How many seeds decide ``scheme``'s failure rate at ``length`` in most runs, at its calibration's collapse
    rate: a sentence for a skip reason (the fewest that decide it with :data:`DECIDING_POWER`, the fewest that can
    decide it at all, what they cost, the command) and the same as row details, with the chance that the run's
    ``seeds`` decide it."""
    below, n = _collapses(scheme, length)
    power = functools.partial(failure_rate_power, rate=below / n, decides=verify.decides, level=DECISION_LEVEL)
    found = seeds_to_decide(below / n, verify.decides, level=DECISION_LEVEL, power=DECIDING_POWER)
    rate = f"at the calibration's collapse rate ({below} of {n} seeds)"
    if found is None:
        return f"{rate} no number of seeds up to 100 decides it in {100 * DECIDING_POWER:.0f} % of runs", {}
    need, chance = found
    fewest = next(k for k in range(1, need + 1) if power(k) > 0)
    command = f"pytest claims -k '{BEYOND[scheme][0]}' --claims-seeds {need}"
    each = f" of about {SEED_CPU_S[scheme]} CPU-s each" if scheme in SEED_CPU_S else ""
    cost = f"{need} {scheme} runs{each} ({command})"
    sentence = (f"{rate} --claims-seeds {need} decides it in {100 * chance:.0f} % of runs, the fewest seeds that "
                f"decide it in at least {100 * DECIDING_POWER:.0f} %; the fewest that can decide it at all, {fewest}, "
                f"do so in {100 * power(fewest):.0f} %; cost: {cost}")
    return sentence, {f"chance that {seeds} seeds decide it ({rate})": round(power(seeds), 3),
                      f"seeds that decide it in ≥ {100 * DECIDING_POWER:.0f} % of runs":
                          f"{need} ({100 * chance:.0f} %); {cost}"}


def _check_failure_rate(verify, lab, scheme: str, length: int, seeds: list[int]) -> None:
    """Judge the share of the run's seeds that lose more than the KEEPS bound by its exact interval; skipped when
    the run has too few seeds to decide even with none or all failing, with the seeds that would decide it."""
    extremes = [proportion_interval(k, len(seeds), level=DECISION_LEVEL) for k in (0, len(seeds))]
    needed, needed_details = _seeds_needed(verify, scheme, length, len(seeds))
    if not any(verify.decides(*interval) for interval in extremes):
        pytest.skip(f"a failure rate over {len(seeds)} seed{'s' if len(seeds) > 1 else ''} cannot decide the 50 % "
                    f"bound even at 0 or {len(seeds)} failures; {needed}")
    drops = [measure(run, f"acc{length}") - measure(run, "acc20") for run in lab.runs([scheme], seeds)]
    failures = sum(d < KEEPS.bound for d in drops)
    kept = [d for d in drops if d >= KEEPS.bound]
    below, n = _collapses(scheme, length)
    verify(failures / len(drops), interval=proportion_interval(failures, len(drops), level=DECISION_LEVEL),
           details={"failures": f"{failures} of {len(drops)} seeds", "drop per seed (pp)": [round(d, 2) for d in drops],
                    "mean drop of the seeds that keep (pp)": statistics.fmean(kept) if kept else None,
                    "calibration seeds that collapse": f"{below} of {n}", **needed_details, "seeds": len(seeds)})


@_beyond_claim("alibi")
def test_alibi(verify, request, length):
    _check_beyond(verify, request, "alibi", length)


@_beyond_claim("alibi_symmetric", lengths=(20,))
def test_alibi_symmetric(verify, request, length):
    _check_beyond(verify, request, "alibi_symmetric", length)


@_beyond_claim("rope")
def test_rope(verify, request, length):
    _check_beyond(verify, request, "rope", length)


@_beyond_claim("t5")
def test_t5_buckets(verify, request, length):
    _check_beyond(verify, request, "t5", length)


@_beyond_claim("relative_clipped")
def test_relative_clipped(verify, request, length):
    _check_beyond(verify, request, "relative_clipped", length)


SWEEP_EXPECT = {
    "learned": {"expect": "holds", "expect_source": "post A, exp. 3: rows 21–40 of the table are never trained "
                                                    "('한 번도 훈련된 적 없는'), which no budget changes"},
    "sinusoidal": {"expect": "holds", "expect_source": "post A, exp. 3: SGD stops at any W that fits positions "
                                                       "0–19, whatever the budget"},
    "relative": {"expect": "refuted",
                 "expect_source": "finding of the v1 calibration seeds: accuracy at 40 keeps rising with the budget",
                 "revised": Revision(
                     "holds", "post A, exp. 3: the relative bias reaches 76.6 % at 40 (the failure the post reports "
                              "is its own, not the budget's)",
                     "accuracy at 40 rose from 76.5 % at 3000 steps to 85.4 % at 6000 and 93 % at 12,000 (mean of "
                     "10 seeds, SD 0.3 pp at 6000)",
                     "calibration/extrapolation.json at commit e3fb669, 'curve': seeds 1–10",
                     "9972d723e82d470fb25761cb5191194241e64524b260ee13ea3649f90b1d1aa5")},
}


def _sweep_case(scheme: str) -> Case:
    if scheme in POST_RUNS:
        return Case(statement=f"{scheme}: after {SWEEP_STEPS:,} steps, accuracy at 40 is still within 5 pp of the "
                              f"post's {POST_RUNS[scheme][1]:g} %.", post_value=POST_RUNS[scheme][1], unit="%",
                    tolerance=REPRODUCE, kind="beyond", **SWEEP_EXPECT[scheme])
    expectation = _expectation(scheme, "len40")
    return Case(statement=f"{scheme}: after {SWEEP_STEPS:,} steps, accuracy at 40 minus at 20 is judged as after 3000 "
                          f"(≥ {KEEPS.bound:g} pp).", unit="pp", tolerance=KEEPS, kind="beyond",
                **{**expectation, "expect_source": f"the same verdict as its 3000-step row at 40 "
                                                   f"({expectation['expect_source']})"})


@claim(
    id="extrap.steps_sweep",
    post="A", section="exp3-duel",
    source=SOURCE + "; 3000 steps for every scheme; beyond the post",
    statement=f"A scheme's length-40 verdict does not depend on the training budget: judged again after "
              f"{SWEEP_STEPS:,} steps (2× the post's), with the same tolerance as its length-40 row.",
    cases={s: _sweep_case(s) for s in SWEPT_SCHEMES},
    deviation=f"One training run per scheme with checkpoints at {', '.join(map(str, CURVE_STEPS))} steps, each "
              f"evaluated like a run of that many steps; the 3000-step checkpoint is the protocol's run. Noise: the "
              f"calibration of the {SWEEP_STEPS:,}-step checkpoint (calibration seeds 1–5). " + DEVIATION,
    version=2,
    version_note=f"v2: noise from a calibration at {SWEEP_STEPS:,} steps (v1 took the 3000-step SD); the clipped bias "
                 f"at k = {CLIP_DISTANCE}",
)
def test_steps_sweep(verify, extrapolation_lab, calibration, seeds, case):
    scheme, calibration = case, calibration.at_steps(SWEEP_STEPS)
    curves = extrapolation_lab.curves([scheme], seeds)
    curve = {f"acc40 @ {s} steps": statistics.fmean(c[s].total(40) for c in curves) for s in CURVE_STEPS}
    acc40 = _mean(extrapolation_lab, scheme, seeds, "acc40", sweep=True)
    if scheme in POST_RUNS:
        noise, where = _noise(calibration, scheme, "acc40", seeds)
        verify(acc40, noise=noise, details={**curve, **where})
        return
    noise, where = _drop_noise(calibration, scheme, 40, seeds)
    verify(acc40 - _mean(extrapolation_lab, scheme, seeds, "acc20", sweep=True), noise=noise,
           details={**curve, **where})
