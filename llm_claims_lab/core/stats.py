"""The noise of measured values: standard errors, t-intervals, noise components over seeds, the exact interval of a share
and the draws that decide one (items for a share, seeds for a failure rate), permutation tests and the bootstrap. One place for each formula, so that every claim and calibration script computes it alike.

The order of the arithmetic in each function is part of its contract: results committed in ``reports/`` and
``calibration/`` were computed in this order, and a reordering could move their last bit.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Any, TypeVar


class NotMeasurable(ValueError):
    """The input covers too few items for the statistic (a rank correlation over 3 pairs); the message gives
    the counts, what the statistic needs and how to get more. The claims skip such a row, or error it when
    the user named the input that is too small (``fixtures/datasets.py``)."""


BOOTSTRAP_RESAMPLES = 4000  # resamples of pairs (or step times): the SE estimate itself varies by ~1 %

SD = TypeVar("SD")  # a float, or a tensor of SDs (elementwise)


def standard_error(sd: SD, n: int) -> SD:
    """The SD of a mean of ``n`` independent values whose SD is ``sd``: ``sd / √n``, in ``sd``'s unit.
    ``sd``: a float, or a tensor (elementwise, in its dtype)."""
    return sd / math.sqrt(n)


def t_half_width(sd: SD, n: int, quantile: float) -> SD:
    """Half-width of the two-sided t-interval of a mean of ``n`` values whose sample SD is ``sd``:
    ``sd/√n · t_quantile(n − 1)``; ``quantile`` 0.975 for the 95 % interval. ``sd``: a float, or a tensor
    (elementwise)."""
    from scipy import stats as scipy_stats  # imported on use: it costs a second at every process start

    return standard_error(sd, n) * float(scipy_stats.t.ppf(quantile, n - 1))


def summary(values: Sequence[float]) -> dict[str, float]:
    """``n``, ``mean`` and ``sd`` (the sample SD) of ``values``, in their unit."""
    return {"n": len(values), "mean": statistics.fmean(values), "sd": statistics.stdev(values)}


def noise_components(values: Sequence[float], eval_se: Sequence[float] | None) -> dict[str, float]:
    """:func:`summary` of per-seed ``values`` — ``sd``, the sample SD over seeds, is one run's total noise —
    and, given each seed's evaluation standard error ``eval_se``, ``eval_sd`` (their RMS) and ``seed_sd``
    (``√max(sd² − eval_sd², 0)``, what the spread over seeds has beyond evaluation), all in the values'
    unit."""
    out = summary(values)
    if eval_se is not None:
        sd, ev = out["sd"], math.sqrt(sum(e * e for e in eval_se) / len(eval_se))
        out |= {"eval_sd": ev, "seed_sd": math.sqrt(max(sd * sd - ev * ev, 0.0))}
    return out


def proportion_interval(hits: int, n: int, *, level: float) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a share of ``hits`` in ``n`` draws at confidence ``level``
    (``scipy.stats.binomtest``): it contains ``hits / n`` and never leaves [0, 1], where a symmetric SD about the
    share (or the Agresti–Coull SD, centred elsewhere) misstates it near 0 and 1. Unit: fraction.

    Raises:
        ValueError: ``n < 1`` or ``hits`` outside ``[0, n]``.
    """
    from scipy import stats as scipy_stats  # imported on use: it costs a second at every process start

    if n < 1 or not 0 <= hits <= n:
        raise ValueError(f"a share needs 0 ≤ hits ≤ n and n ≥ 1, got {hits} of {n}")
    ci = scipy_stats.binomtest(hits, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def items_to_exclude(share: float, bound: float, *, level: float, start: int = 1, limit: int = 1_000_000) -> int | None:
    """The fewest draws ``n ≥ start`` at which the exact interval (:func:`proportion_interval` at ``level``) of a share
    ``share`` (``round(share · n)`` hits in ``n``) lies wholly on one side of ``bound``, as an ``at_most`` bound judges
    it (``high ≤ bound`` or ``low > bound``): e.g. the covered analogy items a section needs before 0 % correct can
    confirm a ≤ 10 % bound. Searched by doubling and bisection, exact where the interval's ends move monotonically
    with ``n`` (a share of 0 or 1). None when not even ``limit`` draws do. Units: fractions.

    Raises:
        ValueError: ``share`` outside [0, 1] or ``start < 1``.
    """
    if not 0.0 <= share <= 1.0 or start < 1:
        raise ValueError(f"a share in [0, 1] and start ≥ 1 are needed, got share {share}, start {start}")

    def excludes(n: int) -> bool:
        low, high = proportion_interval(round(share * n), n, level=level)
        return high <= bound or low > bound

    high = start
    while not excludes(high):
        if high >= limit:
            return None
        high = min(2 * high, limit)
    low = max(start, high // 2)
    if excludes(low):
        return low
    while high - low > 1:  # excludes(high), not excludes(low)
        mid = (low + high) // 2
        low, high = (low, mid) if excludes(mid) else (mid, high)
    return high


def failure_rate_power(seeds: int, rate: float, decides: Callable[[float, float], bool], *, level: float) -> float:
    """The probability that a failure rate over ``seeds`` training runs is decided when each run fails on its own
    with probability ``rate`` (a calibration's collapse rate): the binomial weight of every count of failures whose
    exact interval at ``level`` (:func:`proportion_interval`) ``decides(low, high)``
    accepts (the row's bound lies outside it). Unit: probability, in [0, 1].

    Raises:
        ValueError: ``seeds < 1`` or ``rate`` outside [0, 1].
    """
    from scipy import stats as scipy_stats  # imported on use: it costs a second at every process start

    if seeds < 1 or not 0 <= rate <= 1:
        raise ValueError(f"a failure rate needs seeds ≥ 1 and a rate in [0, 1], got {seeds} seeds at {rate}")
    return float(sum(scipy_stats.binom.pmf(k, seeds, rate) for k in range(seeds + 1)
                     if decides(*proportion_interval(k, seeds, level=level))))


def seeds_to_decide(rate: float, decides: Callable[[float, float], bool], *, level: float, power: float,
                    most: int = 100) -> tuple[int, float] | None:
    """The fewest seeds, at most ``most``, whose failure rate is decided with probability at least ``power`` at the
    collapse rate ``rate`` (:func:`failure_rate_power`), and that probability; ``None`` when no such number is
    that small.

    Raises:
        ValueError: as :func:`failure_rate_power`, or ``power`` outside (0, 1].
    """
    if not 0 < power <= 1:
        raise ValueError(f"power must be in (0, 1], got {power}")
    for seeds in range(1, most + 1):
        if (p := failure_rate_power(seeds, rate, decides, level=level)) >= power:
            return seeds, p
    return None


def items_to_decide(items: int, item_sd: float, distance: float, *, sigmas: float,
                    seed_se: float = 0.0) -> int | None:
    """The evaluation items a measurement now made on ``items`` of them needs for ``distance`` (its value's distance
    to its bound) to be ``sigmas`` of its noise, when the items' part of that noise (``item_sd`` now, e.g. a
    bootstrap SE over word pairs) shrinks as 1/√items and the seeds' part (``seed_se``, at the run's seeds) does
    not: ``⌈items · item_sd² / ((distance / sigmas)² − seed_se²)⌉``. None when no number of items can (the seeds'
    part alone is ``distance / sigmas`` or more). Units: ``item_sd``, ``distance`` and ``seed_se`` share one.

    Raises:
        ValueError: ``items < 1``, or a negative SD or distance.
    """
    if items < 1 or min(item_sd, distance, seed_se, sigmas) < 0:
        raise ValueError(f"items ≥ 1 and non-negative SDs and distance are needed, got {items}, {item_sd}, "
                         f"{distance}, {seed_se}")
    room = (distance / sigmas) ** 2 - seed_se ** 2
    return math.ceil(items * item_sd ** 2 / room - 1e-9) if room > 0 else None  # 1e-9: no count from float fuzz


PERMUTATIONS = 100_000  # random relabellings of a permutation test: its p-value's Monte Carlo SE is ≤ 0.16 %


def paired_permutation_test(x: Sequence[float], y: Sequence[float], *, seed: int,
                            resamples: int = PERMUTATIONS) -> tuple[float, int, int]:
    """One-sided permutation test that the paired values ``x`` [n] exceed ``y`` [n] on average: the mean of
    ``x − y`` against its distribution when the two values of each pair are swapped at random (exchangeable under
    the null; ``scipy.stats.permutation_test``, ``permutation_type='samples'``, ``alternative='greater'``), every
    one of the 2ⁿ relabellings when there are at most ``resamples``, else ``resamples`` random ones seeded by
    ``seed``. Returns ``(mean difference, hits, draws)``: the p-value is ``hits / draws``, exact when ``draws`` is
    2ⁿ, else scipy's Monte Carlo estimate ``(k + 1) / (resamples + 1)`` (the observed labelling counted), whose own
    error is a binomial's (:func:`proportion_interval` of ``hits`` in ``draws``). Units: those of ``x``.

    Raises:
        ValueError: ``x`` and ``y`` differ in length or hold fewer than 2 values.
    """
    import numpy as np
    from scipy import stats as scipy_stats  # imported on use: it costs a second at every process start

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"two [n] samples of one length n ≥ 2 are needed, got shapes {x.shape} and {y.shape}")
    result = scipy_stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis),
                                          permutation_type="samples", alternative="greater", vectorized=True,
                                          n_resamples=resamples, random_state=seed)
    draws = 2 ** len(x) if 2 ** len(x) <= resamples else resamples + 1
    return float(result.statistic), round(float(result.pvalue) * draws), draws


def bootstrap(samples: Sequence[Any], statistic: Callable[..., float], *, seed: int, paired: bool = True,
              method: str = "BCa", resamples: int = BOOTSTRAP_RESAMPLES) -> Any:
    """``scipy.stats.bootstrap`` of a scalar ``statistic`` of ``samples`` (a sequence of ``[n]`` arrays,
    resampled together when ``paired``), ``resamples`` draws seeded by ``seed``: its ``standard_error`` and its
    95 % ``confidence_interval`` by ``method`` (``BCa``, ``percentile``, ``basic``)."""
    from scipy import stats as scipy_stats  # imported on use: it costs a second at every process start

    return scipy_stats.bootstrap(samples, statistic, paired=paired, vectorized=False, method=method,
                                 n_resamples=resamples, random_state=seed)


def mean_over_seeds(values: Sequence[float], eval_sd: float, seed_sd: float | None = None) -> tuple[float, float]:
    """Mean of one measurement's per-seed ``values`` (every seed measured on the same evaluation set) and its
    noise: ``eval_sd``, the evaluation set's part (shared by the seeds, so not divided by their number),
    combined with the seeds' standard error: ``seed_sd`` / √n when a calibration over other training seeds gives
    it, else the values' own sample SD / √n when there are two or more. One seed without ``seed_sd`` gives
    ``(values[0], eval_sd)`` unchanged. Units: those of ``values``.

    Raises:
        ValueError: no value.
    """
    if not values:
        raise ValueError("mean_over_seeds needs at least one value")
    if seed_sd is not None:
        return statistics.fmean(values), math.hypot(eval_sd, standard_error(seed_sd, len(values)))
    if len(values) == 1:
        return values[0], eval_sd
    return statistics.fmean(values), math.hypot(eval_sd, standard_error(statistics.stdev(values), len(values)))
