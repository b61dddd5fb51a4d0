"""The earlier readings of the suite's rows: ``claims/readings.json``, written by ``tools/reading_history.py`` from
the committed reports' history and read by the suite's ``pytest_claims_readings`` hook (:mod:`fixtures.reporting`).
Each row whose reading (kind, tolerance, expected verdict, or statement with a new version) changed after a
committed report measured it carries its earlier readings into the report, which marks it ↻."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("readings.json")
ABOUT = ("The readings of the posts' rows before their current one, from the committed reports' history "
         "(tools/reading_history.py writes this file; edit the claims, not it).")


class ReadingsFileError(ValueError):
    """``claims/readings.json`` is missing or not the file the tool writes."""


def load() -> dict[str, Any]:
    """The record: ``{"about": ..., "rows": {row id: {"version", "readings", "note"}}}``.

    Raises:
        ReadingsFileError: the file is missing, not JSON, or lacks ``rows``; the message says how to rebuild it.
    """
    try:
        data = json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReadingsFileError(f"{PATH}: {exc}; rebuild it: python tools/reading_history.py") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), dict):
        raise ReadingsFileError(f"{PATH}: no 'rows' object; rebuild it: python tools/reading_history.py")
    return data
