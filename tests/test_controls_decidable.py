"""Every control can reach its expected verdict: no control is inconclusive by construction.

A control is built to behave one way, so its design says where its true value lies (``DESIGN``, written from
the design, or, where the design fixes only a direction, the committed calibration's mean over training seeds
disjoint from the run's; never from a run of the suite). Its expected verdict is reachable only when that value
lies strictly on the expected side of every bound and at least 3 of the row's noise SDs beyond it (the harness
decides a row only when its bound is 3 SDs away), at the seeds the row declares (``SEEDS``; else the committed
report's own). A control whose design value sits on its bound — ``w2v.ws353[untrained]`` as once built: expected
"refuted" of ρ > 0 with ρ = 0 by design — would be "refuted" in 0.13 % of runs and is caught here, before any run;
so is one whose noise no seed count narrows enough (the WS-353 comparisons while they carried the pairs' bootstrap).
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pytest

from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.results import read

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "reports" / "results.json"
WORD2VEC = json.loads((ROOT / "calibration" / "word2vec.json").read_text(encoding="utf-8"))


def _calibrated(quantity: str) -> float:
    """The mean over calibration/word2vec.json's training seeds of a WS-353 ρ (or difference of ρ)."""
    return statistics.fmean(WORD2VEC["rho"][quantity])


# control row -> (its true value by design, why)
DESIGN = {
    "extrap.learned_equals_sin_in_range": (0.0, "both schemes learn positions 0–19 perfectly (the post's 100 %)"),
    "extrap.alibi_symmetric[len20]": (50.0, "−m·|j − i| cannot tell the left neighbour from the right: at best a "
                                            "coin flip between them"),
    "gpt2.positional_heads[first_token-untrained]": (0.25, "an untrained head attends nearly uniformly: on average "
                                                           "far below half its mass on one key"),
    "gpt2.positional_heads[previous_token-untrained]": (0.25, "as above"),
    "heads.positional_vs_content[control_both_positional]": (1.0, "two positional lookups, one per head, solved"),
    "heads.positional_vs_content[control_content_head]": (1 / 16, "no target needs content: uniform over 16 keys"),
    "w2v.ws353_controls[untrained_null]": (0.0, "an untrained table carries no relatedness: ρ = 0"),
    "w2v.ws353_controls[trained_minus_untrained]": (
        _calibrated("trained") - 0.0, "training adds relatedness an untrained table (ρ = 0) lacks: how much, the "
                                      "calibration's mean ρ over training seeds 1–5"),
    "w2v.ws353_controls[trained_minus_shuffled]": (
        _calibrated("trained − shuffled"), "shuffling the corpus removes co-occurrence: how much ρ it costs, the "
                                           "calibration's mean difference over training seeds 1–5"),
    "w2v.analogy_controls[planted]": (100.0, "a planted item's answer is its query: every one is answered"),
    "w2v.analogy_controls[untrained]": (0.01, "a random table answers 1 item in ~10,000 rows"),
    "w2v.semantic_neighbours[untrained_vs_untrained]": (0.5, "two untrained tables are exchangeable: the p-value is "
                                                             "uniform on [0, 1], its median 0.5"),
    "glove.gender_direction[control-above_chance]": (0.5, "paris − france is unrelated to aunt − uncle: its cosine "
                                                          "ranks at the median of random pairs"),
}
# control row -> the seeds (--claims-seeds) at which its statement says it is decidable, where its noise has a
# seeds' part ("noise parts" in its details: seed SD / √seeds combined with the part the seeds share)
SEEDS = {
    "w2v.ws353_controls[trained_minus_untrained]": 1,
    "w2v.ws353_controls[trained_minus_shuffled]": 1,
}


def _bounds(row: dict) -> tuple[str, float]:
    """``(side, bound)`` of a one-number tolerance text: ``≥ 0.5`` → ``('≥', 0.5)``, ``|Δ| ≤ 1`` → ``('|Δ|', 1)``."""
    text = row["tolerance"]
    if text.startswith("|Δ| ≤ "):
        return "|Δ|", float(text.split("≤ ")[1])
    side, number = text.split(" ", 1)
    return side, float(number)


def noise_at(row: dict, seeds: int | None) -> float:
    """The row's noise SD at ``seeds`` seeds (its recorded one when None): ``hypot(shared, seed SD / √seeds)`` from
    its details' "noise parts".

    Raises:
        KeyError: ``seeds`` given for a row without "noise parts".
    """
    if seeds is None:
        return row.get("noise_sd") or 0.0
    parts = row["details"]["noise parts"]
    return math.hypot(parts["shared by the seeds"], parts["seed SD"] / math.sqrt(seeds))


def reachable(row: dict, design: float, seeds: int | None = None) -> str:
    """Why ``row``'s expected verdict cannot be reached with its design value at ``seeds`` seeds (the row's own
    when None), or ``""`` when it can."""
    side, bound = _bounds(row)
    reference = row["reference"] if side == "|Δ|" else None
    holds_side = {"≥": 1, ">": 1, "≤": -1, "<": -1}.get(side)
    want = 1 if row["expected_verdict"] == "holds" else -1
    if side == "|Δ|":
        margin = bound - abs(design - (reference or 0.0))
    else:
        margin = holds_side * (design - bound)
    distance = margin * want
    sd = noise_at(row, seeds)
    if distance <= 0 or (sd and distance < DECISION_SIGMAS * sd):
        return (f"design value {design:g} is {distance:+.3g} from {side} {bound:g} on the side of "
                f"'{row['expected_verdict']}', noise SD {sd:.3g}" + (f" at {seeds} seed(s)" if seeds else "")
                + f": not {DECISION_SIGMAS:g} SDs")
    return ""


def _noisy_controls() -> list[dict]:
    """The committed report's controls judged with noise, as dicts with the tolerance in its display form."""
    rows = [{**r.to_dict(), "tolerance": r.tolerance.describe()} for r in read(RESULTS).rows]
    return [r for r in rows if r["kind"] == "control" and (r.get("noise_sd") is not None or r.get("interval"))]


def test_every_noisy_control_has_a_design_value() -> None:
    missing = sorted(r["id"] for r in _noisy_controls() if r["id"] not in DESIGN)
    assert not missing, f"controls judged with noise but no design value in DESIGN: {missing}"


@pytest.mark.parametrize("row", _noisy_controls(), ids=lambda r: r["id"])
def test_control_can_reach_its_expected_verdict(row: dict) -> None:
    if row["id"] in SEEDS and "noise parts" not in row["details"]:
        pytest.fail(f"{row['id']} declares its seeds but its row in {RESULTS.name} has no 'noise parts' in its details "
                    "(measured by an older version of the claim: rerun it to rewrite the report)")
    why = reachable(row, DESIGN[row["id"]][0], SEEDS.get(row["id"]))
    assert not why, why


@pytest.mark.parametrize("row", [r for r in _noisy_controls() if "noise parts" in r["details"]], ids=lambda r: r["id"])
def test_noise_parts_add_up_to_the_row_noise(row: dict) -> None:
    """The parts a row reports are the noise it was judged with, at its own seeds (so ``SEEDS`` reads them right)."""
    assert noise_at(row, row["details"]["noise parts"]["seeds"]) == pytest.approx(row["noise_sd"], rel=2e-3)


@pytest.mark.parametrize("tolerance, expected, design, seeds, ok", [
    ("> 0", "refuted", 0.0, None, False),  # the old w2v.ws353[untrained]: true ρ = 0 sits on the bound
    ("> 0", "holds", 0.05, None, True),
    ("> 0", "refuted", 0.05, None, False),
    ("≥ 95", "refuted", 50.0, None, True),
    ("≥ 0.5", "holds", 0.52, None, False),  # on the right side, but within 3 SDs of the bound
    ("|Δ| ≤ 0.1", "holds", 0.0, None, True),
    ("> 0", "holds", 0.17, 1, False),  # a seeds' part and a shared part: 0.17 / hypot(0.08, 0.05) = 1.8 SDs
    ("> 0", "holds", 0.17, 100, False),  # the shared part alone, 0.08, keeps it under 3 SDs at any seed count
    ("> 0", "holds", 0.3, 4, True),  # 0.3 / hypot(0.08, 0.025) = 3.6 SDs
])
def test_the_check_catches_an_unreachable_control(tolerance, expected, design, seeds, ok) -> None:
    row = {"tolerance": tolerance, "expected_verdict": expected, "reference": 0.0, "noise_sd": 0.01,
           "details": {"noise parts": {"seeds": 1, "seed SD": 0.05, "shared by the seeds": 0.08}}}
    assert (reachable(row, design, seeds) == "") is ok
