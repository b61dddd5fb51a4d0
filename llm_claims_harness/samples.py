"""One scored item of a row, as ``samples.jsonl`` logs it, with the same fields for every row that scores items
(lm-evaluation-harness's ``--log_samples``: ``doc_id``, ``doc_hash``, ``target``, the response, the metric)::

    verify(rho, samples=[Sample(item_id=str(i), input=[p.first, p.second], target=p.human, prediction=cos,
                                score=None) for i, (p, cos) in enumerate(zip(pairs, cosines))])

A line of ``samples.jsonl`` is ``{"id": <row id>, **Sample.fields()}`` (the run that scored it is its row's ``run``
in ``results.json``, so two runs that score the same items write the same bytes); the lines are sorted by row id, then
item id. :data:`LINE_SCHEMA` is its JSON Schema (draft 2020-12), printed in ``SCHEMA.md``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from llm_claims_harness.row import jsonable

FIELDS = {
    "item_id": "the item's id, unique within its row (e.g. its index in the evaluation set, with the seed of the "
               "table that scored it)",
    "input_hash": "`sha256:<hex>` of the input's canonical JSON (sorted keys, no spaces, UTF-8): the same item "
                  "hashes the same in every run",
    "input": "what was scored (e.g. a word pair, an analogy's three words)",
    "target": "the expected answer or the human score (`null`: the item has none)",
    "prediction": "what the measured model gave (`null`: the item could not be scored, `extra` says why)",
    "score": "the item's own metric, a number or a bool (`null`: the row's metric is over all items, e.g. a "
             "rank correlation)",
    "extra": "further facts about the item (an object; `{}` when none)",
}

_HASH = "sha256:[0-9a-f]{64}"
LINE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "a line of samples.jsonl",
    "type": "object",
    "required": ["id", *FIELDS],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "minLength": 1, "description": "the row's id in results.json"},
        "item_id": {"type": "string", "minLength": 1, "description": FIELDS["item_id"]},
        "input_hash": {"type": "string", "pattern": f"^{_HASH}$", "description": FIELDS["input_hash"]},
        "input": {"description": FIELDS["input"]},  # any JSON value
        "target": {"description": FIELDS["target"]},  # any JSON value
        "prediction": {"description": FIELDS["prediction"]},  # any JSON value
        "score": {"type": ["number", "boolean", "null"], "description": FIELDS["score"]},
        "extra": {"type": "object", "description": FIELDS["extra"]},
    },
}


def input_hash(value: Any) -> str:
    """``sha256:<hex>`` of ``value``'s canonical JSON (:func:`llm_claims_harness.row.jsonable` first)."""
    text = json.dumps(jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclasses.dataclass(frozen=True)
class Sample:
    """One scored item (see :data:`FIELDS` for each field's meaning).

    Raises:
        ValueError: ``item_id`` is not non-empty text, ``score`` is neither a finite number, a bool nor ``None``, or
            ``extra`` is not a mapping with text keys.
    """

    item_id: str
    input: Any
    target: Any
    prediction: Any
    score: float | int | bool | None
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.item_id, str) or not self.item_id:
            raise ValueError(f"a sample's item_id is non-empty text, got {self.item_id!r}")
        raw: Any = self.score  # a 0-d array or tensor too: its item
        score = raw.item() if hasattr(raw, "item") and getattr(raw, "ndim", 1) == 0 else raw
        if score is not None and (not isinstance(score, (bool, int, float)) or not math.isfinite(score)):
            raise ValueError(f"item {self.item_id!r}: score is a finite number, a bool or None, got {self.score!r}")
        if not isinstance(self.extra, Mapping) or not all(isinstance(k, str) for k in self.extra):
            raise ValueError(f"item {self.item_id!r}: extra is a mapping with text keys, got {self.extra!r}")

    def fields(self) -> dict[str, Any]:
        """The item as plain JSON, in :data:`FIELDS`'s order."""
        return {"item_id": jsonable(self.item_id), "input_hash": input_hash(self.input), "input": jsonable(self.input),
                "target": jsonable(self.target), "prediction": jsonable(self.prediction),
                "score": jsonable(self.score), "extra": jsonable(dict(self.extra))}


def conforms(line: Any) -> bool:
    """Whether a parsed line has :data:`LINE_SCHEMA`'s fields (names and the types it fixes): how an earlier
    report's lines in another layout are told apart."""
    return (isinstance(line, dict) and set(line) == set(LINE_SCHEMA["properties"])
            and all(isinstance(line[k], str) and line[k] for k in ("id", "item_id"))
            and isinstance(line["input_hash"], str) and re.fullmatch(_HASH, line["input_hash"]) is not None
            and isinstance(line["extra"], dict)
            and (line["score"] is None or isinstance(line["score"], (bool, int, float))))
