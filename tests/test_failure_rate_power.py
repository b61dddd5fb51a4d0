"""How many seeds decide a row judged as a failure rate over seeds (``extrap.rope[len80]``): the chance that its
exact interval clears the bound, at a calibration's collapse rate (``llm_claims_lab.extrapolation.calibration``).

The expected values come from the Clopper–Pearson definition written out here with ``scipy.stats.beta`` (the
upper end for ``k`` failures of ``n`` is the ``1 − α/2`` quantile of Beta(k + 1, n − k); for ``k = 0`` it is
``1 − (α/2)^(1/n)``), not from the function under test. Issue 30: README said 10 seeds decide RoPE at 4×; at the
calibration's 2-in-20 collapse rate they do so only when no seed fails, 0.9¹⁰ ≈ 35 % of runs.
"""

from __future__ import annotations

import functools

import pytest
from scipy import stats

from llm_claims_harness.declare import at_most
from llm_claims_harness.measure import DECISION_LEVEL, decides
from llm_claims_lab.core.stats import failure_rate_power, seeds_to_decide

RATE_BOUND = at_most(0.5, reason="the failure-rate rows' bound: fewer than half of the runs collapse")
DECIDES = functools.partial(decides, RATE_BOUND)
ALPHA = 1 - DECISION_LEVEL


def upper(k: int, n: int) -> float:
    """The exact interval's upper end for ``k`` failures of ``n`` at the decision level (Clopper–Pearson)."""
    return 1.0 if k == n else float(stats.beta.ppf(1 - ALPHA / 2, k + 1, n - k))


def test_ten_seeds_decide_only_when_none_fails() -> None:
    assert 1 - (ALPHA / 2) ** (1 / 10) < 0.5 < 1 - (ALPHA / 2) ** (1 / 9)  # 0 of 10 clears 50 %, 0 of 9 does not
    assert failure_rate_power(10, 0.1, DECIDES, level=DECISION_LEVEL) == pytest.approx(0.9 ** 10, rel=1e-9)
    assert failure_rate_power(9, 0.1, DECIDES, level=DECISION_LEVEL) == 0.0


def test_power_sums_the_counts_whose_interval_clears_the_bound() -> None:
    for n in (15, 20, 26):
        cleared = max(k for k in range(n + 1) if upper(k, n) < 0.5)  # no count decides 'refuted' at rate 0.1 here
        assert failure_rate_power(n, 0.1, DECIDES, level=DECISION_LEVEL) == pytest.approx(
            stats.binom.cdf(cleared, n, 0.1), rel=1e-9)


def test_seeds_to_decide_is_the_fewest_with_that_power() -> None:
    need, chance = seeds_to_decide(0.1, DECIDES, level=DECISION_LEVEL, power=0.8)
    powers = {n: failure_rate_power(n, 0.1, DECIDES, level=DECISION_LEVEL) for n in range(1, need + 1)}
    assert chance == powers[need] >= 0.8 > max(powers[n] for n in range(1, need))
    assert need == 20 and chance == pytest.approx(stats.binom.cdf(3, 20, 0.1), rel=1e-9)  # 0–3 of 20 clear 50 %


def test_a_rate_at_the_bound_is_never_decided_in_most_runs() -> None:
    assert seeds_to_decide(0.5, DECIDES, level=DECISION_LEVEL, power=0.8, most=40) is None


@pytest.mark.parametrize("seeds, rate", [(0, 0.1), (10, -0.1), (10, 1.5)])
def test_bad_inputs_are_refused(seeds: int, rate: float) -> None:
    with pytest.raises(ValueError):
        failure_rate_power(seeds, rate, DECIDES, level=DECISION_LEVEL)
    with pytest.raises(ValueError):
        seeds_to_decide(0.1, DECIDES, level=DECISION_LEVEL, power=0.0)
