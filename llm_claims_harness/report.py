"""What the report says about rows, shared by the report's pages, the terminal summary, the catalogue and the
comparison: how a value is shown, the verdict counts per kind of claim, the inconclusive list.

The report itself: :mod:`llm_claims_harness.row` (one row: the schema), :mod:`llm_claims_harness.results`
(``results.json``: the loader, merge, write), :mod:`llm_claims_harness.pages` (which rows on which page, the index),
:mod:`llm_claims_harness.markdown` (one page's table and details).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from llm_claims_harness.declare import NO_PREDICTION, flatten
from llm_claims_harness.row import Row

ORDER = ("holds", "refuted", "inconclusive", "skipped", "error")
MARK = {"holds": "✅", "refuted": "❌", "inconclusive": "❔", "skipped": "⏭", "error": "💥"}
REVISED = "✎"  # the row's expectation was set after measuring (a finding or a regression check, not a prediction)
# How the summary names a verdict for each kind of claim: a control is judged against its design.
KIND_TITLES = {"post": "the posts' claims", "literal": "literal readings (not counted against the posts)",
               "beyond": "beyond the posts", "control": "controls"}


def show(value: Any, digits: int = 4) -> str:
    """Format a measured or post value once, the same way everywhere."""
    if value is None:
        return "—"
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e6:
            return f"{value:.{digits}g}"
        return f"{value:.2e}"
    if isinstance(value, (list, tuple)):
        flat = flatten(value)
        if len(flat) <= 8:
            return "[" + ", ".join(show(v, digits) for v in value) + "]"
        return f"{len(flat)} values"
    return str(value)


def count(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """Verdict counts per kind of claim (``post``, ``literal``, ``beyond``, ``control``), each in report order
    (holds, refuted, inconclusive, skipped, error)."""
    c = Counter((r.kind, r.verdict) for r in rows)
    return {kind: {v: c.get((kind, v), 0) for v in ORDER} for kind in KIND_TITLES}


def words(kind: str, verdict: str, as_expected: bool | None) -> str:
    if kind == "control" and verdict in ("holds", "refuted"):
        return "behave as designed" if as_expected else "not as designed"
    if kind == "post":
        return {"holds": "confirmed", "refuted": "refuted"}.get(verdict, verdict)
    return verdict


_WORD_ORDER = ("confirmed", "holds", "behave as designed", "refuted", "not as designed", "inconclusive", "skipped",
               "error")


def summary_lines(rows: Iterable[Row]) -> list[str]:
    """One line per kind of claim, e.g. ``the posts' claims: 40 confirmed · 3 refuted · 1 inconclusive``;
    a control's decided verdict is counted as behaving, or not, as designed (never as a refuted claim). Rows
    whose expectation was set after measuring (revised, or a regression check) are counted apart, after ``·`` + :data:`REVISED`: they are
    the suite's findings, not predictions that held."""
    rows = list(rows)
    lines = []
    for kind, title in KIND_TITLES.items():
        ours = [r for r in rows if r.kind == kind]
        c, revised = (Counter(words(kind, r.verdict, r.as_expected) for r in ours
                              if bool(r.revision) is apart) for apart in (False, True))
        parts = [f"{c[w]} {w}" for w in _WORD_ORDER if c[w]]
        if revised:
            parts.append(f"{REVISED} on expectations set after measuring: "
                         + ", ".join(f"{revised[w]} {w}" for w in _WORD_ORDER if revised[w]))
        if parts:
            lines.append(f"{title}: " + " · ".join(parts))
    return lines


def revised(rows: Iterable[Row]) -> list[str]:
    """``id (holds → refuted)`` for every row whose expectation was revised after measuring, by id
    (``id (regression check: refuted)`` when nothing was predicted)."""
    return [f"{r.id} ({r.preregistered_expect} → {r.expected_verdict})"
            if r.preregistered_expect != NO_PREDICTION else f"{r.id} (regression check: {r.expected_verdict})"
            for r in sorted(rows, key=lambda r: r.id) if r.revision]


def inconclusive(rows: Iterable[Row]) -> list[str]:
    """``id (+1.2 SD)`` for every inconclusive row, by id (``id (interval [low, high])`` for a row judged by its
    interval)."""
    return [f"{r.id} ({_undecided_by(r)})" for r in sorted(rows, key=lambda r: r.id)
            if r.verdict == "inconclusive"]


def _undecided_by(row: Row) -> str:
    if isinstance(row.margin_sigma, (int, float)):
        return f"{row.margin_sigma:+.1f} SD"
    low, high = row.interval or ("?", "?")
    return f"interval [{show(low, 3)}, {show(high, 3)}]"
