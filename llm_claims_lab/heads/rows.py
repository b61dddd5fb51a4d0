"""The per-seed value of every row of ``claims/test_heads.py``, and the calibration that gives each its noise.

One definition serves the claims (the mean over the run's seeds, 42 … 51 by default) and
``calibration/calibrate_heads.py`` (the SD over seeds 1 … N, disjoint from the run's, committed to
``calibration/heads.json``): every row is judged with the noise of its own quantity at its own protocol point,
not with the spread of the 10 values it judges.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from llm_claims_lab.core import cache
from llm_claims_lab.heads.lab import (ADD, CONCAT, CONTROL, SPECIALISATION, TRAINING_CODE, HeadsLab,
                                      initial_model, specialisation, subspace_angle)
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
    """The committed per-seed values of every heads row (``path``: the suite's is ``<rootdir>/calibration/heads.json``)
    and the noise they give a mean over the run's seeds: the SD over the calibration seeds / √(run's seeds)."""

    def __init__(self, path: Path) -> None:
        """Raises:
            llm_claims_lab.core.json_files.InputFileError: the file is missing (no calibration), not JSON, or lacks what
                the rows read, a heads row included (it predates the row); the message names it and
                ``python calibration/calibrate_heads.py``."""
        self.path = Path(path)
        fix = rewrite_hint("calibrate_heads.py", path)
        self.data = read_json(path, required={"per_seed": dict, "training_code": str, "seeds": list, "torch": str},
                              fix=fix)
        missing = sorted(set(ROWS) - set(self.data["per_seed"]))
        if missing:
            raise InputFileError(f"{path} has no calibration of {', '.join(missing)}; {fix}")
        code = cache.code_digest(TRAINING_CODE)
        self.note = "" if code == self.data["training_code"] else (
            f"; calibrated under training code {self.data['training_code'][:12]}, today's is {code[:12]} (rerun "
            "calibration/calibrate_heads.py)")

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

    def describe(self, row: str) -> str:
        """Where a row's noise comes from, for its details."""
        values, seeds = self.values(row), self.data["seeds"]
        return (f"SD {statistics.stdev(values):.3g} over {len(values)} calibration seeds ({seeds[0]}–{seeds[-1]}, "
                f"{self.path.name}: torch {self.data['torch']}){self.note}")
