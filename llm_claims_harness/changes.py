"""What a comparison of two reports lists beside the flips and the moves beyond scale
(:mod:`llm_claims_harness.compare`): every value that moved within its scale, sized on the same scale (in SDs of the
difference for a row with noise, else as a share of half its room to the tolerance's nearest bound) so that the
largest come first, and every input whose digest changed, with the rows that read it."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from llm_claims_harness.declare import flatten
from llm_claims_harness.report import show
from llm_claims_harness.row import Row


@dataclasses.dataclass(frozen=True)
class Drift:
    """A value that changed within its scale: ``size`` on that scale (SDs of the difference, or the share of half
    the room used; 0 where neither applies) and the change in words."""

    old: Row
    new: Row
    size: float
    change: str


@dataclasses.dataclass(frozen=True)
class InputChange:
    """An input (by its name in the rows' ``inputs``) whose digest differs between the reports, and the rows of the
    new report that read it."""

    name: str
    old: str
    new: str
    rows: list[str]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _relative(a: float, b: float) -> str:
    return f" ({(b - a) / abs(a):+.0%})" if a else ""


def drift(old: Row, new: Row) -> Drift | None:
    """How far ``new``'s value moved from ``old``'s, for a value that stayed within its scale; ``None`` when it did
    not change."""
    a, b = old.measured, new.measured
    if a == b:
        return None
    sds = [float(r.noise_sd) for r in (old, new) if r.noise_sd is not None and _number(r.noise_sd)]
    if sds and _number(a) and _number(b):
        sd = math.hypot(*sds)
        size = abs(b - a) / sd if sd else 0.0
        return Drift(old, new, size, f"{show(a)} → {show(b)}{_relative(a, b)}, {(b - a) / sd if sd else 0:+.1f} SD(Δ)")
    olds, news, refs = flatten(a), flatten(b), flatten(old.reference)
    refs = refs if len(refs) == len(olds) else [None] * len(olds)
    worst, said = 0.0, f"{show(a)} → {show(b)}"
    for x, y, ref in zip(olds, news, refs):
        if x == y or not (_number(x) and _number(y)):
            continue
        try:
            half_room = abs(old.tolerance.margin(x, ref)) / 2
        except (TypeError, ValueError):
            continue
        share = abs(y - x) / half_room if half_room else 0.0
        if share >= worst:
            worst = share
            said = f"{show(x)} → {show(y)}{_relative(x, y)}, {share:.0%} of ½ room"
    return Drift(old, new, worst, said)


def drifts(pairs: list[tuple[Row, Row]]) -> list[Drift]:
    """Every changed value of ``pairs`` (rows that neither flipped nor moved beyond scale), largest first."""
    found = [d for o, n in pairs if (d := drift(o, n)) is not None]
    return sorted(found, key=lambda d: -d.size)


def input_changes(pairs: list[tuple[Row, Row]]) -> list[InputChange]:
    """Every input whose digest differs between the old and the new row of a pair, once per (name, old, new), with
    the ids of the rows that read it, in the new report's order."""
    changed: dict[tuple[str, str, str], list[str]] = {}
    for o, n in pairs:
        for name, digest in (n.inputs or {}).items():
            before = (o.inputs or {}).get(name)
            if before is not None and before != digest:
                changed.setdefault((name, before, digest), []).append(n.id)
    return [InputChange(name, old, new, rows) for (name, old, new), rows in changed.items()]
