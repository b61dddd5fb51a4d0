"""The per-seed value of every row of ``claims/test_heads.py``, and the calibration that gives each its noise.

One definition serves the claims (the mean over the run's seeds, 42 … 51 by default) and
``calibration/calibrate_heads.py`` (the SD over seeds 1 … N, disjoint from the run's, committed to
``calibration/heads.json``, or ``heads-<device type>.json`` with ``--device``): every row is judged with the noise
of its own quantity at its own protocol point, not with the spread of the 10 values it judges.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.calibration_files import committed_calibration
from llm_claims_lab.heads.lab import (ADD, CALIBRATION, CONCAT, CONTROL, SPECIALISATION, TRAINING_CODE, HeadsConfig,
                                      HeadsLab, initial_model, specialisation, subspace_angle)
from llm_claims_lab.core.json_files import InputFileError, read_json, rewrite_hint
from llm_claims_lab.core.stats import standard_error

K_DIRECTIONS = 4  # leading directions of each table compared by heads.subspaces (of D = 32)
# row id -> (configuration, what of it): the specialisation quantities, accuracy differences (pp), angles (°)
ROWS = {
    "heads.positional_vs_content[positional_head]": (SPECIALISATION, "positional"),
    "heads.positional_vs_content[content_head]": (SPECIALISATION, "content"),
    "heads.positional_vs_content[control_content_head]": (CONTROL, "content"),
    "heads.positional_vs_content[control_both_positional]": (CONTROL, "least_positional"),
    "heads.add_vs_concat[concat_half]": (CONCAT["concat_half"], "accuracy − add"),
    "heads.add_vs_concat[concat_full]": (CONCAT["concat_full"], "accuracy − add"),
    "heads.subspaces[trained]": (ADD, "angle"),
    "heads.subspaces[pushed_apart]": (ADD, "angle − initial"),
}


def configurations(row: str) -> list[HeadsConfig]:
    """The configurations whose trained models ``row`` (a key of :data:`ROWS`) reads: its own, and for an
    accuracy difference the add model it is paired with.

    Raises:
        KeyError: ``row`` is not a heads row.
    """
    config, what = ROWS[row]
    return [config, ADD] if what == "accuracy − add" else [config]


def configuration_name(config: HeadsConfig) -> str:
    """A configuration as the cache names its models (``lookup-learned-concat_full``) and the calibration its
    training cost."""
    return f"{config.task}-{config.pe}-{config.combine}"


def per_seed(lab: HeadsLab, row: str) -> list[float]:
    """The value of ``row`` (a key of :data:`ROWS`) for each of ``lab``'s seeds: attention mass (fraction),
    accuracy difference in percentage points (concatenated − added, same seed and batches), or smallest
    principal angle in degrees (trained, or trained minus the same seed's initial tables).

    Raises:
        KeyError: ``row`` is not a heads row.
    """
    config, what = ROWS[row]
    if what == "accuracy − add":
        return [100 * (c.accuracy["mean"] - a.accuracy["mean"])
                for a, c in zip(lab.measures(ADD), lab.measures(config))]
    if what.startswith("angle"):
        trained = [subspace_angle(m, K_DIRECTIONS) for m in lab.models(config)]
        if what == "angle":
            return trained
        return [t - subspace_angle(initial_model(config, s), K_DIRECTIONS) for t, s in zip(trained, lab.seeds)]
    return [specialisation(m)[what] for m in lab.measures(config)]


class HeadsCalibration:
    """The committed per-seed values of every heads row (``path``: the suite's is ``<rootdir>/calibration/heads.json``,
    or ``heads-<device type>.json``, :meth:`for_device`) and the noise they give a mean over the run's seeds: the SD
    over the calibration seeds / √(run's seeds)."""

    def __init__(self, path: Path, *, fallback: str = "") -> None:
        """``fallback``: why ``path`` is not the calibration of the run's device type (appended to every
        :meth:`describe`; :func:`llm_claims_lab.core.calibration_files.committed_calibration`'s note).

        Raises:
            llm_claims_lab.core.json_files.InputFileError: the file is missing (no calibration), not JSON, or lacks what
                the rows read, a heads row included (it predates the row); the message names it and
                ``python calibration/calibrate_heads.py``."""
        self.path = Path(path)
        fix = rewrite_hint("calibrate_heads.py", path)
        self.data = read_json(path, required={"per_seed": dict, "training_code": str, "seeds": list, "torch": str,
                                              "cpu_s_per_model": dict}, fix=fix)
        missing = sorted(set(ROWS) - set(self.data["per_seed"]))
        missing += sorted({configuration_name(c) for row in ROWS for c in configurations(row)}
                          - set(self.data["cpu_s_per_model"]))
        if missing:
            raise InputFileError(f"{path} has no calibration (per-seed values, or CPU-s per model) of "
                                 f"{', '.join(missing)}; {fix}")
        code = cache.code_digest(TRAINING_CODE)
        self.note = "" if code == self.data["training_code"] else (
            f"; calibrated under training code {self.data['training_code'][:12]}, today's is {code[:12]} (rerun "
            "calibration/calibrate_heads.py)")
        if fallback:
            self.note += f"; {fallback}"

    @classmethod
    def for_device(cls, device: torch.device | str, directory: Path) -> HeadsCalibration:
        """The calibration that judges a run on ``device``: ``heads-<device type>.json`` in ``directory`` (the
        calibration directory) when committed (``calibrate_heads.py --device``), else ``heads.json``, the CPU's,
        with a note saying so in every row's noise
        (:func:`llm_claims_lab.core.calibration_files.committed_calibration`).

        Raises:
            llm_claims_lab.core.json_files.InputFileError: as the constructor.
        """
        path, fallback = committed_calibration(CALIBRATION, device, directory)
        return cls(path, fallback=fallback)

    def values(self, row: str) -> list[float]:
        """The calibration seeds' values of ``row``."""
        return self.data["per_seed"][row]

    def sd(self, row: str, seeds: int = 1) -> float:
        """Noise (SD) of a mean of ``seeds`` runs' values of ``row``."""
        return standard_error(statistics.stdev(self.values(row)), seeds)

    def margin_sigmas(self, row: str, bound: float) -> float:
        """How many SDs of the calibration seeds' own mean separate it from ``bound`` (positive above): how
        firmly the calibration alone decides the row, the test a finding must pass."""
        values = self.values(row)
        return (statistics.fmean(values) - bound) / self.sd(row, len(values))

    def decision_odds(self, row: str, bound: float, seeds: int, sigmas: float) -> float:
        """The probability that a run of ``seeds`` seeds decides ``row`` against ``bound`` (its mean more than
        ``sigmas`` noise SDs from it, on either side), were the run's mean normal about the calibration seeds'
        mean with the noise :meth:`sd` gives it."""
        from scipy.stats import norm  # imported on use, as llm_claims_lab.core.stats imports scipy

        centre, noise = statistics.fmean(self.values(row)), self.sd(row, seeds)
        return float(norm.sf((bound + sigmas * noise - centre) / noise)
                     + norm.cdf((bound - sigmas * noise - centre) / noise))

    def seeds_to_decide(self, row: str, bound: float, sigmas: float, odds: float) -> int:
        """The fewest seeds from which :meth:`decision_odds` reaches ``odds`` (e.g. 0.8): ⌈((sigmas + z_odds) ·
        SD / |mean − bound|)²⌉ with the calibration seeds' mean and SD, the far side's chance left out (it only
        adds).

        Raises:
            ValueError: the calibration's mean is the bound itself (no number of seeds decides it).
        """
        from scipy.stats import norm

        values = self.values(row)
        gap = abs(statistics.fmean(values) - bound)
        if gap == 0:
            raise ValueError(f"{row}: the calibration's mean is the bound {bound}; no number of seeds decides it")
        return max(2, math.ceil(((sigmas + norm.ppf(odds)) * statistics.stdev(values) / gap) ** 2))

    def cpu_s(self, row: str, seeds: int) -> float:
        """CPU-seconds to train the models ``row`` reads for ``seeds`` seeds (the calibration's cost per model of
        each configuration, as its cache's build log recorded it on the machine that ran it)."""
        return seeds * sum(self.data["cpu_s_per_model"][configuration_name(c)] for c in configurations(row))

    def describe(self, row: str) -> str:
        """Where a row's noise comes from, for its details."""
        values, seeds = self.values(row), self.data["seeds"]
        return (f"SD {statistics.stdev(values):.3g} over {len(values)} calibration seeds ({seeds[0]}–{seeds[-1]}, "
                f"{self.path.name}: torch {self.data['torch']}){self.note}")
