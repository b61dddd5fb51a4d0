"""A ``-k`` that names a claim row this version does not have (an id copied from an older report, a case since
renamed): the rows that exist under the longest prefix it shares with them, and the version notes that mention it,
so the user sees what the id became instead of pytest's bare "deselected" (exit 5)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping

SHOWN = 12  # the existing rows listed per unmatched id; the rest are counted
NOTE_CHARS = 240  # of a version note quoted in the hint
CLOSE = 0.85  # difflib's similarity ratio for "closest" (a typo: one letter swapped, added or dropped)
_OPERATORS = {"and", "or", "not"}


def claim_tokens(expression: str) -> list[str]:
    """The identifiers of a ``-k`` expression that look like claim ids (dotted, e.g. ``w2v.ws353[trained]``), in
    their order; operators, parentheses and plain test names are left out."""
    words = re.split(r"[\s()]+", expression or "")
    return [w for w in words if "." in w and w.lower() not in _OPERATORS]


def unmatched_hints(expression: str, declared: Mapping[str, str]) -> list[str]:
    """One line per claim-like identifier of ``expression`` that no declared row id contains (``-k`` matches by
    case-insensitive substring), naming the closest ids (a typo) and the rows that exist under its longest shared prefix and quoting the version
    notes that mention it or its case. ``declared`` maps every row id collected (before deselection) to its claim's
    version note."""
    ids = sorted(declared)
    lines = []
    for token in claim_tokens(expression):
        wanted = token.lower()
        if any(wanted in rid.lower() for rid in ids):
            continue
        prefix, under = _longest_prefix(wanted, ids)
        exists = (f"rows that exist under {prefix!r}: {_listed(under)}" if under
                  else "no row of this version shares its first name")
        lower = {rid.lower(): rid for rid in ids}
        close = [lower[c] for c in difflib.get_close_matches(wanted, lower, n=3, cutoff=CLOSE)]
        closest = f"closest: {', '.join(close)}; " if close else ""
        lines.append(f"-k {token!r} matches no claim row of this version; {closest}{exists}")
        lines.extend(f"  {note}" for note in _notes_mentioning(wanted, declared))
    return lines


def _longest_prefix(wanted: str, ids: Iterable[str]) -> tuple[str, list[str]]:
    """The longest prefix of ``wanted`` that some row id starts with, and those ids: cut at a ``[``, ``.`` or ``_``
    (``w2v.ws353[untrained]`` → ``w2v.ws353``), else anywhere past its first name (a typo: ``toy.holdz`` →
    ``toy.hold``), else its first name (``toy.``)."""
    ids = list(ids)
    first = wanted.index(".") + 1
    cuts = sorted({i for i, ch in enumerate(wanted) if ch in "[._" and i > first} | {len(wanted)}, reverse=True)
    for prefix in (*(wanted[:cut] for cut in cuts), *(wanted[:cut] for cut in range(len(wanted), first, -1)),
                   wanted[:first]):
        if under := [rid for rid in ids if rid.lower().startswith(prefix)]:
            return prefix, under
    return "", []


def _notes_mentioning(wanted: str, declared: Mapping[str, str]) -> list[str]:
    """``<claim id>: <its version note>`` for each claim whose note names ``wanted`` or, for a row of that claim,
    its case."""
    claim, _, case = wanted.partition("[")
    case = case.rstrip("]")
    notes: dict[str, str] = {}
    for rid, note in declared.items():
        own = rid.split("[")[0]
        text = (note or "").lower()
        if note and (wanted in text or (case and own.lower() == claim and re.search(rf"\b{re.escape(case)}\b", text))):
            notes[own] = note if len(note) <= NOTE_CHARS else note[:NOTE_CHARS - 1] + "…"
    return [f"{own}: {note}" for own, note in sorted(notes.items())]


def _listed(ids: list[str]) -> str:
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(ids[:SHOWN]) + more
