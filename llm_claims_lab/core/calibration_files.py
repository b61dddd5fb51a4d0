"""Which committed calibration judges a run on a device: each calibration script (``calibration/calibrate_*.py``)
writes ``<name>.json`` on the CPU and ``<name>-<device type>.json`` with ``--device`` (``heads-cuda.json``). A run
is judged by its device type's file when one is committed, else by the CPU's, and every row it judges says so.

The library does not know where the checkout is: each function takes the calibration directory (the suite passes
``<rootdir>/calibration``, a calibration script its own directory).
"""

from __future__ import annotations

from pathlib import Path

import torch


def calibration_path(cpu_name: str, device: torch.device | str, directory: Path) -> Path:
    """Where the calibration ``cpu_name`` (its CPU file's name, ``heads.json``) of ``device``'s type lives in
    ``directory``: ``cpu_name`` itself for the CPU, ``<stem>-<type><suffix>`` for another (``heads-cuda.json``).

    Raises:
        RuntimeError: ``device`` is a name torch does not know (``torch.device``'s error).
    """
    kind, name = torch.device(device).type, Path(cpu_name)
    return Path(directory) / (cpu_name if kind == "cpu" else f"{name.stem}-{kind}{name.suffix}")


def committed_calibration(cpu_name: str, device: torch.device | str, directory: Path) -> tuple[Path, str]:
    """The calibration file that judges a run on ``device``, and what a row's noise says of that choice: its device
    type's file (:func:`calibration_path`) when it exists in ``directory``, with the note ``""``; else the CPU's,
    with the note ``no heads-cuda.json committed: judged with the CPU calibration``. The path returned need not
    exist (no calibration at all): its reader says so.

    Raises:
        RuntimeError: ``device`` is a name torch does not know.
    """
    own, cpu = calibration_path(cpu_name, device, directory), Path(directory) / cpu_name
    if own == cpu or own.exists():
        return own, ""
    return cpu, f"no {own.name} committed: judged with the CPU calibration"
