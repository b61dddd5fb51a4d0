"""What changed between two claims reports (``results.json``), as short Markdown for people and CI.

    python -m llm_claims_harness.compare BASE.json NEW.json [--output FILE] [--fail-on-flip]
    python -m llm_claims_harness.compare --summary RESULTS.json [--output FILE]

The comparison lists, by id: verdict flips (old → new verdict, old → new value), rows added, rows gone,
values that moved beyond their scale, rows that moved to another post or kind (a row that turns from the
post's claim into a literal reading or a control changes what is counted against the post, whatever its
verdict), every input whose digest changed with the rows that read it, and every value that moved within its
scale, largest first (in SDs of the difference, or the share of half its room: :mod:`llm_claims_harness.changes`). ``--summary`` prints one
report's counts per kind of claim and verdict (the report's own :func:`llm_claims_harness.report.summary_lines`).

When a value has moved beyond its scale (the rule is also printed under every comparison):

- A row with noise (``noise_sd`` in either report) and a number in both: ``|new − old|`` exceeds
  ``DECISION_SIGMAS`` (3) × √(sd_old² + sd_new²), the SD of the difference of two independent
  measurements; the same 3-SD standard by which the harness decides a verdict.
- Any other number: ``|new − old|`` exceeds half the old value's room, its distance to the nearest bound
  of the old row's tolerance (``≤``/``≥``/``<``/``>`` a bound, or ``|Δ| ≤ atol + rtol·|ref|`` around the
  row's reference); a change that uses up half the room before the verdict flips is reported. A value
  sitting on its bound, such as any holding ``exact`` row, moves with any change.
- Anything else (strings, booleans, a changed length, an unreadable tolerance): any difference.

The two reports' environments are compared first (as pytest-benchmark's compare does with its machine info): where
the latest runs' device, Python or any fact the suite reports (``suite``: its libraries' versions, a GPU's driver
and CUDA runtime) differ, a warning above the counts names each difference, since a row's value may move with any
of them and not with the change under review.

Nested lists are compared leaf by leaf (each leaf against its reference leaf). A row whose verdict
flipped is listed as a flip, never also as moved.

Exit codes: 0 the report was printed (or written); 1 with ``--fail-on-flip`` when a verdict flipped or a
row of BASE is gone (the report is still printed); 2 bad usage or input: a missing or unreadable file, not
JSON, not a results file (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llm_claims_harness.atomic import write_text_atomic
from llm_claims_harness.changes import Drift, InputChange, drifts, input_changes
from llm_claims_harness.declare import DECISION_SIGMAS, flatten
from llm_claims_harness.report import inconclusive, show, summary_lines
from llm_claims_harness.results import Document, InputError, read
from llm_claims_harness.row import Row
from llm_claims_harness.text import plural

RULE = (f"Moved beyond its scale: with noise, |Δ| > {DECISION_SIGMAS:g} × √(sd_old² + sd_new²); otherwise "
        "|Δ| > half the old value's distance to its tolerance's nearest bound (any change for a value on its "
        "bound, e.g. an exact row that holds); non-numbers: any difference.")

@dataclasses.dataclass(frozen=True)
class Move:
    """A value that moved beyond its scale: how far (``change``) and the scale (``scale``), in words."""

    change: str
    scale: str


@dataclasses.dataclass(frozen=True)
class Diff:
    """The comparison of two reports: ``flips`` and ``moved`` pair a base row with its new row
    (``moved`` with its :class:`Move`), ``added``/``gone`` are rows of one side only, ``regrouped`` pairs the rows
    of both whose post or kind changed (flipped or not), ``unchanged`` counts the rows neither flipped nor moved and
    ``within`` those of them whose value changed within its scale."""

    flips: list[tuple[Row, Row]]
    moved: list[tuple[Row, Row, Move]]
    added: list[Row]
    gone: list[Row]
    unchanged: int
    within: int
    regrouped: list[tuple[Row, Row]] = dataclasses.field(default_factory=list)
    drifts: list[Drift] = dataclasses.field(default_factory=list)
    inputs: list[InputChange] = dataclasses.field(default_factory=list)

    @property
    def breaks(self) -> bool:
        """A verdict flipped or a row went missing (what ``--fail-on-flip`` fails on)."""
        return bool(self.flips or self.gone)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def moved(old: Row, new: Row) -> Move | None:
    """How far ``new``'s value moved from ``old``'s when beyond its scale (the module's rule, :data:`RULE`);
    ``None`` when it stayed within it."""
    a, b = old.measured, new.measured
    sds = [float(r.noise_sd) for r in (old, new) if r.noise_sd is not None and _number(r.noise_sd)]
    if sds and _number(a) and _number(b):
        limit = DECISION_SIGMAS * math.hypot(*sds)
        return Move(f"{b - a:+.3g}", f"{DECISION_SIGMAS:g} SD(Δ) = {show(limit)}") if abs(b - a) > limit else None
    olds, news = flatten(a), flatten(b)
    if len(olds) != len(news):
        return Move(f"{len(olds)} → {len(news)} values", "any difference")
    refs = flatten(old.reference)
    refs = refs if len(refs) == len(olds) else [None] * len(olds)
    tolerance = old.tolerance
    for x, y, ref in zip(olds, news, refs):
        if x == y:
            continue
        if not (_number(x) and _number(y)) or (tolerance.kind == "close" and not _number(ref)):
            return Move("differs", "any difference")
        half_room = abs(tolerance.margin(x, ref)) / 2
        if abs(y - x) > half_room:
            return Move(f"{y - x:+.3g}", f"½ room = {show(half_room)}" if half_room else "on its bound: any change")
    return None


def compare(base: Document, new: Document) -> Diff:
    """Compare two loaded reports row by row (by id); lists follow the new report's order
    (``gone``: the base's)."""
    old_rows = {r.id: r for r in base.rows}
    new_ids = {r.id for r in new.rows}
    flips, shifted, added, kept = [], [], [], []
    unchanged = within = 0
    for r in new.rows:
        o = old_rows.get(r.id)
        if o is None:
            added.append(r)
        elif o.verdict != r.verdict:
            flips.append((o, r))
        else:
            move = moved(o, r)
            if move:
                shifted.append((o, r, move))
            else:
                unchanged += 1
                within += o.measured != r.measured
                kept.append((o, r))
    gone = [o for rid, o in old_rows.items() if rid not in new_ids]
    regrouped = [(old_rows[r.id], r) for r in new.rows
                 if r.id in old_rows and _group(old_rows[r.id]) != _group(r)]
    both = [(old_rows[r.id], r) for r in new.rows if r.id in old_rows]
    return Diff(flips, shifted, added, gone, unchanged, within, regrouped, drifts(kept), input_changes(both))


def _group(row: Row) -> str:
    """Where a row counts: its post (or none) and kind, as ``post <its post>, kind <its kind>``."""
    return f"post {row.post or '—'}, kind {row.kind}"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(row: Row) -> str:
    return show(row.measured)


def _note(old: Row, new: Row) -> str:
    """What the declaration changed between the two rows: version and tolerance."""
    notes = []
    if old.version != new.version:
        notes.append(f"v{old.version} → v{new.version}")
    if old.tolerance.describe() != new.tolerance.describe():
        notes.append(f"tolerance {old.tolerance.describe()} → {new.tolerance.describe()}")
    return "; ".join(notes)


def environment_differences(base: Document, new: Document) -> list[str]:
    """``"what: old → new"`` for each fact of the latest runs' environments that differs: the device, Python, and
    each ``suite`` fact either report names (``—`` where one does not)."""
    old, now = base.environment, new.environment
    pairs = {"device": (old.get("device"), now.get("device")), "Python": (old.get("python"), now.get("python"))}
    old_suite, new_suite = old.get("suite") or {}, now.get("suite") or {}
    pairs |= {key: (old_suite.get(key), new_suite.get(key)) for key in dict.fromkeys([*old_suite, *new_suite])}
    return [f"{key}: {a or '—'} → {b or '—'}" for key, (a, b) in pairs.items() if a != b]


def _origin(name: str, doc: Document) -> str:
    env, runs = doc.environment, len(doc.runs)
    latest = "latest run: " if runs > 1 else ""
    return (f"`{name}` ({latest}commit `{env.get('git_commit', '?')}`, {str(env.get('date', '?'))[:10]}, "
            f"{env.get('device', '?')}" + (f"; rows from {runs} runs" if runs > 1 else "") + ")")


def markdown(diff: Diff, base_name: str, base: Document, new_name: str, new: Document) -> str:
    """The comparison as Markdown: a heading, the counts, one section per kind of change, the rule."""
    lines = ["## Claims: what changed", "", f"{_origin(base_name, base)} → {_origin(new_name, new)}", ""]
    differences = environment_differences(base, new)
    if differences:
        lines += ["> ⚠ **The two runs' environments differ**, so a value may have moved with the environment, not "
                  "with the change: " + "; ".join(_cell(d) for d in differences) + ".", ""]
    within = f" ({diff.within} of them moved within their scale)" if diff.within else ""
    if not (diff.flips or diff.moved or diff.added or diff.gone or diff.regrouped or diff.inputs):
        lines.append(f"**No change**: all {diff.unchanged} rows keep their verdicts and their values stay within "
                     f"their scale{within}.")
    else:
        lines.append(f"**{len(diff.flips)} verdict flips · {len(diff.moved)} moved beyond their scale · "
                     f"{len(diff.added)} added · {len(diff.gone)} gone · {len(diff.regrouped)} moved post or kind** · "
                     f"{diff.unchanged} unchanged{within}")
    if diff.flips:
        lines += ["", "### Verdict flips", "", "| id | verdict | value | declaration |", "|---|---|---|---|"]
        lines += [f"| `{n.id}` | {o.verdict} → **{n.verdict}** | {_cell(_value(o))} → {_cell(_value(n))} "
                  f"| {_cell(_note(o, n))} |" for o, n in diff.flips]
    if diff.moved:
        lines += ["", "### Values moved beyond their scale", "",
                  "| id | verdict | value | change | scale | declaration |", "|---|---|---|---|---|---|"]
        lines += [f"| `{n.id}` | {n.verdict} | {_cell(_value(o))} → {_cell(_value(n))} | {_cell(m.change)} "
                  f"| {_cell(m.scale)} | {_cell(_note(o, n))} |" for o, n, m in diff.moved]
    if diff.added:
        lines += ["", "### Rows added", ""]
        lines += [f"- `{r.id}`: {r.verdict}, {_cell(_value(r))}" for r in diff.added]
    if diff.gone:
        lines += ["", "### Rows gone", ""]
        lines += [f"- `{r.id}` (was {r.verdict}, {_cell(_value(r))})" for r in diff.gone]
    if diff.regrouped:
        lines += ["", "### Rows that moved post or kind", "", "| id | was | now | verdict |", "|---|---|---|---|"]
        lines += [f"| `{n.id}` | {_group(o)} | **{_group(n)}** | {o.verdict} → {n.verdict} |" for o, n in diff.regrouped]
    if diff.inputs:
        lines += ["", "### Inputs that changed", ""]
        lines += [f"- `{_cell(c.name)}`: `{c.old[:23]}…` → `{c.new[:23]}…`, read by {plural(len(c.rows), 'row')}: "
                  + ", ".join(f"`{rid}`" for rid in c.rows[:12]) + (" …" if len(c.rows) > 12 else "")
                  for c in diff.inputs]
    if diff.drifts:
        lines += ["", "### Values moved within their scale (largest first)", "", "| id | verdict | change |",
                  "|---|---|---|"]
        lines += [f"| `{d.new.id}` | {d.new.verdict} | {_cell(d.change)} |" for d in diff.drifts]
    lines += ["", f"<sub>{RULE}</sub>", ""]
    return "\n".join(lines)


def summary(name: str, doc: Document) -> str:
    """One report's counts as Markdown: per kind of claim and verdict, the rows not as expected, and the
    inconclusive rows with their margins."""
    rows, env = list(doc.rows), doc.environment
    origin = f"`{name}`: commit `{env.get('git_commit', '?')}` · {env.get('device', '?')} · {env.get('wall_s', '?')} s"
    lines = [f"## Claims report: {len(rows)} rows", "", origin, "", *(f"- {line}" for line in summary_lines(rows))]
    unexpected = [r.id for r in rows if r.as_expected is False]
    if unexpected:
        lines += ["", f"**Not as expected:** {', '.join(f'`{i}`' for i in unexpected)}"]
    undecided = inconclusive(rows)
    if undecided:
        lines += ["", f"Inconclusive (within {DECISION_SIGMAS:g} noise SDs of a bound, or a bound inside the value's "
                      f"interval): {', '.join(undecided)}"]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; returns the exit code (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m llm_claims_harness.compare",
        description="Compare two claims reports (BASE.json NEW.json), or summarise one (--summary).",
        epilog="Exit codes: 0 done; 1 --fail-on-flip and a verdict flipped or a row is gone; 2 bad usage or "
               "input.")
    parser.add_argument("files", nargs="+", type=Path, metavar="RESULTS.json")
    parser.add_argument("--summary", action="store_true", help="summarise one report instead of comparing two")
    parser.add_argument("--output", type=Path, metavar="FILE",
                        help="write the Markdown to FILE (atomically) instead of printing it")
    parser.add_argument("--fail-on-flip", action="store_true",
                        help="exit 1 when a verdict flipped or a row of BASE is gone")
    args = parser.parse_args(argv)
    wanted = 1 if args.summary else 2
    if len(args.files) != wanted:
        parser.error(f"expected {'one file with --summary' if args.summary else 'two files: BASE.json NEW.json'}, "
                     f"got {len(args.files)}")
    try:
        reports = [read(path) for path in args.files]
        if args.summary:
            text, code = summary(str(args.files[0]), reports[0]), 0
        else:
            diff = compare(*reports)
            text = markdown(diff, str(args.files[0]), reports[0], str(args.files[1]), reports[1])
            code = 1 if args.fail_on_flip and diff.breaks else 0
        if args.output:
            write_text_atomic(args.output, text)
        else:
            sys.stdout.write(text)
    except (InputError, OSError) as exc:
        print(f"compare: error: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
