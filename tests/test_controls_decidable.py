"""Every control can reach its expected verdict: no control is inconclusive by construction.

A control is built to behave one way, so its design says where its true value lies (``DESIGN``, written from
the design, never from a run). Its expected verdict is reachable only when that value lies strictly on the
expected side of every bound, and, where the design gives a number, at least 3 of the row's committed noise SDs
beyond it (the harness decides a row only when its bound is 3 SDs away). A control whose design value sits on
its bound — ``w2v.ws353[untrained]`` as once built: expected "refuted" of ρ > 0 with ρ = 0 by design — would be
"refuted" in 0.13 % of runs and is caught here, before any run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.results import read

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "reports" / "results.json"

# control row -> (its true value by design, why). ``+`` or ``-``: the design fixes only the sign.
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
    "w2v.ws353_controls[trained_minus_untrained]": ("+", "training adds relatedness an untrained table lacks"),
    "w2v.ws353_controls[trained_minus_shuffled]": ("+", "shuffling the corpus removes co-occurrence"),
    "w2v.analogy_controls[planted]": (100.0, "a planted item's answer is its query: every one is answered"),
    "w2v.analogy_controls[untrained]": (0.01, "a random table answers 1 item in ~10,000 rows"),
    "glove.gender_direction[control-above_chance]": (0.5, "paris − france is unrelated to aunt − uncle: its cosine "
                                                          "ranks at the median of random pairs"),
}


def _bounds(row: dict) -> tuple[str, float]:
    """``(side, bound)`` of a one-number tolerance text: ``≥ 0.5`` → ``('≥', 0.5)``, ``|Δ| ≤ 1`` → ``('|Δ|', 1)``."""
    text = row["tolerance"]
    if text.startswith("|Δ| ≤ "):
        return "|Δ|", float(text.split("≤ ")[1])
    side, number = text.split(" ", 1)
    return side, float(number)


def reachable(row: dict, design: float | str) -> str:
    """Why ``row``'s expected verdict cannot be reached with its design value, or ``""`` when it can."""
    side, bound = _bounds(row)
    reference = row["reference"] if side == "|Δ|" else None
    holds_side = {"≥": 1, ">": 1, "≤": -1, "<": -1}.get(side)
    want = 1 if row["expected_verdict"] == "holds" else -1
    if isinstance(design, str):  # the design fixes a sign only: the bound must be 0, crossed by that sign
        gap = (1 if design == "+" else -1) * holds_side * want if bound == 0 else 0
        return "" if gap > 0 else f"design sign {design} does not reach {row['expected_verdict']} of {side} {bound:g}"
    if side == "|Δ|":
        margin = bound - abs(design - (reference or 0.0))
    else:
        margin = holds_side * (design - bound)
    distance = margin * want
    sd = row.get("noise_sd") or 0.0
    if distance <= 0 or (sd and distance < DECISION_SIGMAS * sd):
        return (f"design value {design:g} is {distance:+.3g} from {side} {bound:g} on the side of "
                f"'{row['expected_verdict']}', noise SD {sd:.3g}: not {DECISION_SIGMAS:g} SDs")
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
    assert not reachable(row, DESIGN[row["id"]][0]), reachable(row, DESIGN[row["id"]][0])


@pytest.mark.parametrize("tolerance, expected, design, ok", [
    ("> 0", "refuted", 0.0, False),  # the old w2v.ws353[untrained]: true ρ = 0 sits on the bound
    ("> 0", "holds", "+", True),
    ("> 0", "refuted", "+", False),
    ("≥ 95", "refuted", 50.0, True),
    ("≥ 0.5", "holds", 0.52, False),  # on the right side, but within 3 SDs of the bound
    ("|Δ| ≤ 0.1", "holds", 0.0, True),
])
def test_the_check_catches_an_unreachable_control(tolerance, expected, design, ok) -> None:
    row = {"tolerance": tolerance, "expected_verdict": expected, "reference": 0.0, "noise_sd": 0.01}
    assert (reachable(row, design) == "") is ok
