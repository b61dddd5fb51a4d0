"""The calibration of the length-extrapolation claims: the per-seed values that
``calibration/calibrate_extrapolation.py`` commits (``calibration/extrapolation.json``, one file per device
type), and the noise they give each measured quantity (:class:`Calibration`). (The seeds that decide a failure
rate at a calibration's rate: :func:`llm_claims_lab.core.stats.seeds_to_decide`.)

The library does not know where the checkout is: every function takes the calibration directory (the
suite passes ``<rootdir>/calibration``, a calibration script its own directory)."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping
from pathlib import Path

import torch

from llm_claims_lab.core import cache, calibration_files
from llm_claims_lab.extrapolation.evaluation import EVAL_SEQUENCES
from llm_claims_lab.extrapolation.model import ExtrapolationConfig
from llm_claims_lab.extrapolation.training import TRAINING_CODE
from llm_claims_lab.core.json_files import InputFileError, read_json, rewrite_hint
from llm_claims_lab.core.stats import standard_error

CALIBRATION = "extrapolation.json"  # the CPU's calibration, in the calibration directory
# the trained relative bias read per calibration seed (calibration/calibrate_relative_bias.py)
RELATIVE_PROBES = "relative_bias.json"
# what the rows read of each file, and its JSON type
_CALIBRATION_KEYS = {"protocol": dict, "eval_sequences": int, "training_code": str, "device": str, "torch": str,
                     "runs": dict, "noise": dict}
_PROBES_KEYS = {"torch": str, "noise": dict}


def calibration_path(device: torch.device | str, directory: Path) -> Path:
    """Where the calibration of a device type lives in ``directory`` (the calibration directory):
    ``extrapolation.json`` for the CPU, ``extrapolation-<type>.json`` for another (``extrapolation-cuda.json``;
    :func:`llm_claims_lab.core.calibration_files.calibration_path`)."""
    return calibration_files.calibration_path(CALIBRATION, device, directory)


def relative_probes_path(device: torch.device | str, directory: Path) -> Path:
    """Where the relative-bias probes of a device type live in ``directory``: ``relative_bias.json`` for the
    CPU, ``relative_bias-<type>.json`` for another (``calibrate_relative_bias.py --device``)."""
    return calibration_files.calibration_path(RELATIVE_PROBES, device, directory)


def relative_probes_for(device: torch.device | str, directory: Path) -> dict:
    """The committed relative-bias probes that judge a run on ``device``: its device type's file when committed,
    else the CPU's; ``note`` (added to the returned data) names which file and why, for every row's noise, and
    ``path`` is the file read.

    Raises:
        llm_claims_lab.core.json_files.InputFileError: neither file exists, or the one read is not JSON or lacks what
            the rows read (the message names it and ``calibration/calibrate_relative_bias.py``).
    """
    path, fallback = calibration_files.committed_calibration(RELATIVE_PROBES, device, directory)
    data = read_json(path, required=_PROBES_KEYS, fix=rewrite_hint("calibrate_relative_bias.py", path))
    note = f"{path.name}: torch {data['torch']}"
    if fallback:
        note += f"; {fallback}"
    return {**data, "note": note, "path": path}


def load_calibration(path: Path) -> dict:
    """The committed calibration (``calibration/extrapolation.json``, written by
    ``calibration/calibrate_extrapolation.py``).

    Raises:
        llm_claims_lab.core.json_files.InputFileError (a ``ValueError``): the file is missing (no calibration yet), not
            JSON, lacks what the rows read, or was measured under another protocol or evaluation size than
            today's defaults; the message names it and the script.
    """
    data = read_json(path, required=_CALIBRATION_KEYS, fix=rewrite_hint("calibrate_extrapolation.py", path))
    protocol = {k: v for k, v in dataclasses.asdict(ExtrapolationConfig()).items() if k != "scheme"}
    if data["protocol"] != protocol or data["eval_sequences"] != EVAL_SEQUENCES:
        raise InputFileError(f"{path} was measured under {data['protocol']} with {data['eval_sequences']} "
                             f"evaluation sequences, not today's {protocol} with {EVAL_SEQUENCES}; rerun "
                             "`python calibration/calibrate_extrapolation.py`")
    return data


class Calibration:
    """The noise of each measured quantity, from the per-seed values of ``calibration/extrapolation.json``.

    One run's noise is ``sd``, the sample standard deviation over the calibration seeds (each trained
    and evaluated on its own independent batches), split into an evaluation part (the standard error
    over evaluation sequences) and a seed part. A mean over ``n`` seeds has noise ``sd/√n``.
    Calibration seeds (1 … N) never include the suite's seed 42.
    """

    def __init__(self, data: Mapping, *, note: str = "", path: Path | None = None) -> None:
        self.data = data  # what load_calibration returns
        self.note = note  # how the calibration relates to this run, when not plainly (appended to describe())
        self.path = path  # the file it was read from (None: built from data in memory)

    @classmethod
    def for_device(cls, device: torch.device | str, directory: Path) -> Calibration:
        """The rule that judges a run on ``device``: its device type's calibration in ``directory`` (the
        calibration directory; :func:`calibration_path`)
        when committed, else the CPU's, with a note naming it in every row's noise. A calibration measured
        under training code other than today's (:data:`~llm_claims_lab.extrapolation.training.TRAINING_CODE`)
        is used with a note saying so, unless the file lists today's code as certified equivalent (same
        weights, bit for bit; ``calibrate_extrapolation.py --certify-code``).

        Raises:
            llm_claims_lab.core.json_files.InputFileError: see :func:`load_calibration`.
        """
        path, fallback = calibration_files.committed_calibration(CALIBRATION, device, directory)
        notes = [fallback] if fallback else []
        data = load_calibration(path)
        code = cache.code_digest(TRAINING_CODE)
        if code != data["training_code"] and code not in data.get("equivalent_training_code", {}):
            notes.append(f"calibrated under training code {data['training_code'][:12]}, today's is {code[:12]} "
                         "(rerun calibration/calibrate_extrapolation.py)")
        where = f"{path.name}: {data['device']}, torch {data['torch']}"
        return cls(data, note=f" ({where}{'; ' + '; '.join(notes) if notes else ''})", path=path)

    def at_steps(self, steps: int) -> Calibration:
        """The calibration of the steps sweep's checkpoint after ``steps`` training steps (the file's
        ``steps_sweep`` section, written by ``calibrate_extrapolation.py --steps``), with the same methods;
        itself at the protocol's step count.

        Raises:
            KeyError: the file holds no calibration after ``steps`` steps.
        """
        if steps == self.data["protocol"]["steps"]:
            return self
        section = self.data.get("steps_sweep", {}).get(str(steps))
        if section is None:
            raise KeyError(f"no calibration after {steps} steps; run `python calibration/calibrate_extrapolation.py "
                           f"--steps {steps}`")
        return Calibration({**self.data, "runs": section["runs"], "noise": section["noise"]},
                           note=f" (after {steps:,} steps){self.note}")

    def values(self, scheme: str, quantity: str) -> list[float]:
        """Per-seed values of :func:`~llm_claims_lab.extrapolation.evaluation.measures` ``quantity`` for
        ``scheme``."""
        return self.data["runs"][scheme][quantity]

    def sd(self, scheme: str, quantity: str, *, seeds: int = 1, floor: float = 100 / EVAL_SEQUENCES) -> float:
        """Noise (SD) of the mean of ``seeds`` runs' ``quantity``; at least ``floor`` (default: one
        evaluation sequence's worth, in pp), which stands in when every calibration seed gave the same value."""
        return max(standard_error(self.data["noise"][scheme][quantity]["sd"], seeds), floor)

    def diff_sd(self, a: tuple[str, str], b: tuple[str, str], *, seeds: int = 1,
                floor: float = 100 / EVAL_SEQUENCES) -> float:
        """Noise (SD) of the mean of ``seeds`` per-seed differences ``a − b``, each a ``(scheme, quantity)``,
        paired by calibration seed."""
        pairs = list(zip(self.values(*a), self.values(*b)))
        diffs = [x - y for x, y in pairs]
        return max(standard_error(float(statistics.stdev(diffs)), seeds), floor)

    def describe(self, scheme: str, quantity: str) -> str:
        """Where the noise comes from, for a row's details: seeds, SD and its two components."""
        n = self.data["noise"][scheme][quantity]
        parts = f"sd {n['sd']:.3g}"
        if "eval_sd" in n:
            parts += f" = evaluation {n['eval_sd']:.3g} ⊕ seed {n['seed_sd']:.3g}"
        return f"{scheme} {quantity} over {n['n']} calibration seeds: {parts}{self.note}"
