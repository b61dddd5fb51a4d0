"""Reading a JSON file that rows rely on (the committed calibrations, a hub ``config.json``): a damaged or foreign
file is one line naming it, what is wrong and what to do, instead of a parser's traceback or a ``KeyError`` deep
in a row."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from llm_claims_lab.core.errors import InputFault

# Python types as JSON names them, for "its 'sd' is an array, not an object"
_JSON_NAMES = {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a number",
               bool: "true or false", type(None): "null"}


class InputFileError(InputFault, ValueError):
    """A JSON input file that is missing, unreadable, not JSON, or not of the shape its readers need; the message
    is one line: the file, what is wrong, and what to do."""


def read_json(path: Path, *, required: Mapping[str, type | tuple[type, ...]], fix: str) -> dict:
    """The JSON object in ``path``, which holds every key of ``required`` with a value of its type(s).

    Raises:
        InputFileError: ``path`` is missing or unreadable, not UTF-8 JSON, not a JSON object, or lacks a key of
            ``required`` (or holds it with another type); the message names it, what is wrong, then ``fix``.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        why = "is missing"
    except OSError as exc:
        why = f"cannot be read ({exc.strerror or exc})"
    except UnicodeDecodeError as exc:
        why = f"is not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x})"
    except json.JSONDecodeError as exc:
        why = f"is not JSON, or is cut short ({exc.msg}: line {exc.lineno}, column {exc.colno})"
    else:
        why = _shape_problem(data, required)
        if why is None:
            return data
    raise InputFileError(f"{path} {why}; {fix}") from None


def _shape_problem(data: object, required: Mapping[str, type | tuple[type, ...]]) -> str | None:
    """What keeps ``data`` from being an object with ``required``'s keys and types; ``None`` when nothing does."""
    if not isinstance(data, dict):
        return f"holds {_name(type(data))} where a JSON object is expected"
    missing = [key for key in required if key not in data]
    if missing:
        return f"lacks {', '.join(repr(key) for key in missing)}"
    for key, types in required.items():
        if not isinstance(data[key], types):
            expected = " or ".join(_name(t) for t in (types if isinstance(types, tuple) else (types,)))
            return f"holds {_name(type(data[key]))} as {key!r}, where {expected} is expected"
    return None


def _name(kind: type) -> str:
    return _JSON_NAMES.get(kind, kind.__name__)


def rewrite_hint(script: str, path: Path) -> str:
    """What to do about a damaged calibration file ``path`` that ``calibration/<script>`` writes."""
    return (f"rerun `python calibration/{script}`, or restore the committed file: "
            f"`git checkout -- calibration/{Path(path).name}`")
