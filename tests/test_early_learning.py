"""The early learning curves of ``extrap.sin_relative_rule_learned_faster`` (post B's 'easy to learn'): a checkpoint's
weights do not depend on how long the run goes on (so the calibration's 750-step runs and the suite's steps-sweep
runs give the same curve), and the curve's area and steps-to-level by hand."""

from __future__ import annotations

import pytest
import torch

from llm_claims_lab.core import cache
from llm_claims_lab.extrapolation import (EARLY_SCHEMES, EARLY_STEPS, SWEPT_SCHEMES, ExtrapolationConfig,
                                          ExtrapolationLab, early_area, steps_to, train)


@pytest.mark.parametrize("scheme", EARLY_SCHEMES)
def test_a_checkpoint_does_not_depend_on_later_steps(scheme: str) -> None:
    short = train(ExtrapolationConfig(scheme=scheme, steps=60), 7, torch.device("cpu"), checkpoints=(20, 40))
    long = train(ExtrapolationConfig(scheme=scheme, steps=100), 7, torch.device("cpu"), checkpoints=(20, 40, 60, 80))
    assert set(short) < set(long)
    for name, weights in short.items():
        assert torch.equal(weights, long[name]), name


def test_the_early_checkpoints_are_saved_in_the_sweep_runs(tmp_path) -> None:
    lab = ExtrapolationLab(cache.WeightCache(tmp_path, run_id="test"), torch.device("cpu"), sweep=SWEPT_SCHEMES)
    assert set(EARLY_SCHEMES) <= set(SWEPT_SCHEMES)  # so the suite trains nothing for the row
    for scheme in EARLY_SCHEMES:
        assert set(EARLY_STEPS) <= set(lab.entry_of(scheme, 42).fingerprint["config"]["checkpoints"])
    assert not set(EARLY_STEPS[:-1]) & set(lab.entry_of("relative", 42).fingerprint["config"]["checkpoints"])


def test_the_area_is_the_curves_mean_and_steps_to_its_first_crossing() -> None:
    curve = [10.0] * 4 + [50.0, 96.0] + [100.0] * (len(EARLY_STEPS) - 6)
    assert early_area(curve) == pytest.approx((40 + 146 + 100 * (len(EARLY_STEPS) - 6)) / len(EARLY_STEPS))
    assert steps_to(curve, 95.0) == EARLY_STEPS[5] == 300
    assert steps_to([10.0] * len(EARLY_STEPS), 95.0) is None
    with pytest.raises(ValueError, match="15 accuracies"):
        early_area(curve[:-1])
