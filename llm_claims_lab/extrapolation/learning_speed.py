"""How fast post A's toy learns its relative rule: post B's 'coordinates in which relative-position rules are easy to
learn' ('상대 위치 규칙을 배우기 쉬운 좌표계', section 'why sin and cos'), read as learning speed.

A run's early learning curve is its accuracy at the training length after each of
:data:`~llm_claims_lab.extrapolation.runs.EARLY_STEPS` (every 50 steps of the protocol's first 750); its *area* is the
curve's mean (%), the accuracy averaged over that stretch of training: a curve that rises sooner has the larger area.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from llm_claims_lab.extrapolation.evaluation import Run
from llm_claims_lab.extrapolation.runs import EARLY_STEPS


def early_accuracies(curve: Mapping[int, Run], L: int) -> list[float]:
    """Accuracy (%) at length ``L`` after each of :data:`EARLY_STEPS` steps, from ``curve`` (``{step: Run}``,
    :meth:`~llm_claims_lab.extrapolation.runs.ExtrapolationLab.early_curves`).

    Raises:
        KeyError: ``curve`` lacks one of the steps.
    """
    return [curve[step].total(L) for step in EARLY_STEPS]


def early_area(accuracies: Sequence[float]) -> float:
    """The area of an early learning curve: the mean of its accuracies (%), one per step of :data:`EARLY_STEPS`.

    Raises:
        ValueError: ``accuracies`` does not have one value per step.
    """
    if len(accuracies) != len(EARLY_STEPS):
        raise ValueError(f"an early learning curve has {len(EARLY_STEPS)} accuracies (steps {EARLY_STEPS[0]} … "
                         f"{EARLY_STEPS[-1]}), not {len(accuracies)}")
    return statistics.fmean(accuracies)


def steps_to(accuracies: Sequence[float], level: float) -> int | None:
    """The first step of :data:`EARLY_STEPS` whose accuracy reaches ``level`` (%), or ``None`` when none does."""
    return next((step for step, acc in zip(EARLY_STEPS, accuracies) if acc >= level), None)
