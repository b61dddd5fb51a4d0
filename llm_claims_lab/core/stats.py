"""The noise of measured values: standard errors, t-intervals, noise components over seeds, the exact interval of a share,
and the bootstrap. One place for each formula, so that every claim and calibration script computes it alike.

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
