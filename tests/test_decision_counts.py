"""The counts and tests the word2vec rows decide by (llm_claims_lab/core/stats.py): how many items a decision
needs, and the paired permutation test of w2v.semantic_neighbours."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from llm_claims_lab.core.stats import items_to_decide, items_to_exclude, paired_permutation_test, proportion_interval

LEVEL = math.erf(3 / math.sqrt(2))  # the suite's 99.73 %


@pytest.mark.parametrize("bound", [0.1, 0.05, 0.3])
def test_items_to_exclude_at_zero_is_clopper_pearsons_closed_form(bound: float) -> None:
    closed = math.ceil(math.log((1 - LEVEL) / 2) / math.log(1 - bound))  # upper end 1 − (α/2)^(1/n) at 0 hits
    assert items_to_exclude(0.0, bound, level=LEVEL) == closed
    assert proportion_interval(0, closed - 1, level=LEVEL)[1] > bound  # one fewer does not


def test_items_to_exclude_at_a_share_is_the_first_count_that_clears() -> None:
    n = items_to_exclude(0.3, 0.1, level=LEVEL, start=5)
    assert proportion_interval(round(0.3 * n), n, level=LEVEL)[0] > 0.1
    assert proportion_interval(round(0.3 * (n - 1)), n - 1, level=LEVEL)[0] <= 0.1


def test_items_to_exclude_gives_up_at_its_limit_and_refuses_a_bad_share() -> None:
    assert items_to_exclude(0.1, 0.1, level=LEVEL, limit=1000) is None  # the share sits on the bound
    with pytest.raises(ValueError):
        items_to_exclude(1.5, 0.1, level=LEVEL)


def test_items_to_decide() -> None:
    # 100 items, SD 0.1 from them: a distance of 0.15 needs SD 0.05, i.e. 4× the items
    assert items_to_decide(100, 0.1, 0.15, sigmas=3) == 400
    # a seeds' part of 0.04 leaves room for an items' part of 0.03: (0.1 / 0.03)² × 100 items
    assert items_to_decide(100, 0.1, 0.15, sigmas=3, seed_se=0.04) == math.ceil(100 * 0.01 / (0.05 ** 2 - 0.04 ** 2))
    assert items_to_decide(100, 0.1, 0.15, sigmas=3, seed_se=0.05) is None  # the seeds' part alone fills the room
    with pytest.raises(ValueError):
        items_to_decide(0, 0.1, 0.15, sigmas=3)


def test_paired_permutation_test_is_exact_when_it_can_enumerate() -> None:
    x, y = np.array([0.9, 0.1, 0.5, 0.7, 0.2]), np.array([0.1, 0.3, 0.2, 0.1, 0.4])
    d = x - y
    flips = [np.mean(np.array(signs) * d) for signs in itertools.product((1, -1), repeat=len(d))]
    difference, hits, draws = paired_permutation_test(x, y, seed=0)
    assert difference == pytest.approx(d.mean()) and draws == 32
    assert hits == sum(f >= d.mean() - 1e-12 for f in flips)


def test_paired_permutation_test_samples_when_it_cannot() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=30), rng.normal(size=30)  # exchangeable: the p-value is far from small
    _, hits, draws = paired_permutation_test(x, y, seed=0, resamples=2000)
    assert draws == 2001 and 0.05 < hits / draws < 0.95
    _, hits, draws = paired_permutation_test(x + 3, y, seed=0, resamples=2000)
    assert hits == 1  # no relabelling reaches the observed one: scipy's (0 + 1) / (resamples + 1)


def test_paired_permutation_test_refuses_unpaired_samples() -> None:
    with pytest.raises(ValueError):
        paired_permutation_test([1.0, 2.0], [1.0], seed=0)
