"""The details of a page's claims, one collapsible ``<details>`` block per topic (a test module's docstring title,
with its counts per kind): each claim's statement, tolerance and reason, what it compares with, its expectation and
source, its version note, and the topic's deviations and shared version notes written once each (``D1``, ``N1``).
A cap of 0 leaves a part out (every declaration in full: ``CATALOGUE.md``)."""

from __future__ import annotations

from collections import Counter

from llm_claims_harness.legend import Legend
from llm_claims_harness.provenance import unregistered
from llm_claims_harness.report import NEITHER, REREAD, kind_counts, reading_steps, show
from llm_claims_harness.row import UNNAMED_KIND, Row
from llm_claims_harness.text import cut, wrap


def _distinct(rows: list[Row], key: str) -> list:
    seen: dict = {}
    for r in rows:
        value = getattr(r.tolerance, key.removeprefix("tolerance_")) if key.startswith("tolerance_") else getattr(r, key)
        seen.setdefault(str(value), value)
    return list(seen.values())


def _joined(rs: list[Row], key: str, limit: int, most: int = 2) -> str:
    texts = _distinct(rs, key)
    return "; ".join(cut(t, limit) for t in texts[:most]) + ("; …" if len(texts) > most else "")


def _claim(claim_id: str, rs: list[Row], dev: Legend, notes: Legend, shared: set[str],
           cap: dict[str, int]) -> list[str]:
    """One claim: statement, tolerance with reason, expectation, version note (a label when ``shared`` with
    other claims of the topic), deviation label; a cap of 0 leaves that part out (the declaration in full:
    CATALOGUE.md)."""
    first, statements = rs[0], _distinct(rs, "statement")
    head = f"`{claim_id}` v{first.version}"
    if first.version_note and cap["note"]:
        note = first.version_note
        head += f" ({notes.label(note) if note in shared else cut(note, cap['note'])})"
    if len(statements) == 1 or not cap["case"]:
        head += ": " + ("" if len(statements) == 1 else f"[{first.case}] ") + cut(statements[0], cap["statement"])
    parts = [head, ", ".join(f"`{t.describe()}`" for t in _distinct(rs, "tolerance"))
             + (f": {_joined(rs, 'tolerance_reason', cap['reason'], cap['reasons'])}" if cap["reason"] else "")]
    references = [r for r in _distinct(rs, "reference_source") if r]
    if references and cap["reason"]:  # what a close row compares with when it is not the post's value
        parts.append("against " + "; ".join(cut(r, cap["reason"]) for r in references[:2])
                     + ("; …" if len(references) > 2 else ""))
    verdicts = "/".join(_distinct(rs, "expected_verdict"))
    if cap["expect"]:
        parts.append(f"expects {verdicts}: {_joined(rs, 'expect_source', cap['expect'])}")
    elif verdicts != "holds":
        parts.append(f"expects {verdicts}")
    if first.deviation:
        parts.append(dev.label(first.deviation))
    lines = wrap(" · ".join(parts), "- ")
    if len(statements) > 1 and cap["case"]:
        for r in rs:
            lines += wrap(f"`{r.case}` {cut(r.statement, cap['case'])}", "  - ")
    for r in rs:
        if unregistered(r.inputs or {}):
            lines += wrap(f"`{r.id}` ⚑ read another copy than the registered one of: "
                          + ", ".join(unregistered(r.inputs)), "  - ")
        lines += _readings(r, cap)
        if r.reason and r.verdict == "error":
            lines += wrap(f"`{r.id}` error: {cut(r.reason, 1000)}", "  - ")  # a fault line whole, with its fix
    return lines


def _readings(r: Row, cap: dict[str, int]) -> list[str]:
    """A re-read row's earlier readings, oldest first: version, date and commit of the first report that shows it, its
    kind, bound and expectation (its statement where the cap allows), what the last report under it measured, and
    why it changed (the next version's note) with the direction of the change; then what no report shows."""
    lines = []
    steps = reading_steps(r)
    for k, (reading, direction) in enumerate(steps):
        why = ("the version note above" if reading["why"] in ("", r.version_note)
               else cut(reading["why"], max(cap["note"], 60)))
        then = steps[k + 1][0] if k + 1 < len(steps) else {"kind": r.kind, "tolerance": r.tolerance.describe(),
                                                           "expected": r.expected_verdict}
        # the earlier statement where it is what changed (in full: results.json)
        worded = all(reading[f] == then[f] for f in ("tolerance", "expected")) and reading["kind"] in (then["kind"],
                                                                                                     UNNAMED_KIND)
        statement = f": {cut(reading['statement'], max(cap['case'], 80))}" if worded else ""
        kind = "kind not yet recorded" if reading["kind"] == UNNAMED_KIND else f"kind {reading['kind']}"
        moved = {NEITHER: "the post's count unchanged"}.get(direction, direction)
        lines += wrap(f"`{r.id}` {REREAD} read as v{reading['version']} from {reading['since']} "
                      f"({reading['commit'] or 'uncommitted'}): {kind}, `{reading['tolerance']}`, expected "
                      f"{reading['expected']}{statement} → gave {reading['verdict']} ({show(reading['measured'])}); "
                      f"changed ({moved}): {why}", "  - ")
    if r.readings_note:
        lines += wrap(f"`{r.id}` {r.readings_note}", "  - ")
    return lines


def topic_lines(title: str, rows: list[Row], anchor: str, cap: dict[str, int]) -> list[str]:
    dev, notes = Legend("D"), Legend("N")
    files = sorted({r.nodeid.split("::")[0] for r in rows})
    counts = kind_counts(rows)
    claims: dict[str, list[Row]] = {}
    for r in rows:
        claims.setdefault(r.claim_id or r.id, []).append(r)
    repeated = Counter(rs[0].version_note for rs in claims.values() if rs[0].version_note)
    shared = {note for note, n in repeated.items() if n > 1}
    body = [line for claim_id, rs in claims.items() for line in _claim(claim_id, rs, dev, notes, shared, cap)]
    return [f'<a id="{anchor}"></a>', f"<details><summary><b>{cut(title, 150)}</b> · {counts}</summary>", "",
            ", ".join(f"`{f}`" for f in files), "", *body, "",
            *dev.lines("Deviations from the posts' protocols (D)", cap["deviation"]),
            *notes.lines("Version notes shared by claims (N)", 2 * cap["note"]),
            "</details>", ""]
