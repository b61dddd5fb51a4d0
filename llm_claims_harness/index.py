"""The report's index (``CLAIMS.md``), written to answer "what holds?" on its first screen: per post, one line of
counts, then every refuted and every inconclusive claim of the post by name (its statement on one line, the post's
value and ours with units, a link to the row's line on its page), the literal readings apart and named the same way;
below them the totals, the revised and inconclusive rows, and the runs that measured the rows. The pages it links:
:mod:`llm_claims_harness.pages`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.markdown import BASIS_LABELS, measured_cell, post_cell, row_anchor
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import (AGAINST, MARK, NEITHER, REREAD, REVISED, TOWARD, reading_counts,
                                       reading_steps, sentence_counts, inconclusive, kind_lines,
                                       missed_predictions, revised, summary_lines, sentence_lines, sentences)
from llm_claims_harness.row import Row
from llm_claims_harness.text import cell, cut, fit, plural, shorten, wrap

if TYPE_CHECKING:
    from llm_claims_harness.results import Document

INDEX = "CLAIMS.md"
GENERATED = "<!-- written by llm-claims-harness at every run: edits here are lost -->"
BEYOND, UNPLACED = "beyond", "unplaced"  # the pages of rows beyond the posts, and of rows of no registered post
Book = dict[str, tuple[str, list[Row]]]  # a page and its parts: file name -> (text, rows)
NAMED = ("refuted", "inconclusive", "error")  # the verdicts the index names row by row, under each post
STATEMENT = 90  # characters of a named row's statement in the index (cut at a word)


def run_name(run: str) -> str:
    return run[:8]


def expectation_line(rows: list[Row], show: Callable[[str], str] = str) -> str:
    """Whether each decided verdict is the one declared for its row (the ids that are not, each as ``show`` writes
    it), and the decided rows whose verdict is not the one registered before measuring (their expectation revised
    after: a prediction that failed). It says nothing of whether a post is right: a claim expected to be refuted and
    refuted matches its expectation."""
    unexpected = ", ".join(show(r.id) for r in rows if r.as_expected is False)
    missed = ", ".join(show(r.id) for r in missed_predictions(rows))
    n_missed = len(missed_predictions(rows))
    said = [f"**not the verdict declared before this run: {unexpected}**" if unexpected else
            "every decided verdict matches " + ("its declared expectation" if missed
                                                 else "the expectation registered before measuring")]
    if missed:
        said.append(f"**{n_missed} {'prediction' if n_missed == 1 else 'predictions'} registered before measuring "
                    f"failed** and {'its expectation was' if n_missed == 1 else 'their expectations were'} revised "
                    f"after ({REVISED}): {missed}")
    return "Expectations: " + "; ".join(said) + "."


def rereading_lines(rows: list[Row], show: Callable[[str], str] = str) -> list[str]:
    """How many rows were re-read after a committed report measured them (:data:`REREAD`) and which way each change
    moved the post's count (:func:`llm_claims_harness.report.reading_steps`), naming the rows whose change moved
    it."""
    c = reading_counts(rows)
    if not c["rows"]:
        return []
    ways = {r.id: {d for _, d in reading_steps(r)} for r in rows if r.readings}
    moved = {way: sorted(rid for rid, ds in ways.items() if way in ds) for way in (TOWARD, AGAINST)}
    changes = c[TOWARD] + c[AGAINST] + c[NEITHER]
    said = (f"{REREAD} Re-readings: **{plural(c['rows'], 'row')} re-read after a committed report measured "
            f"{'it' if c['rows'] == 1 else 'them'}** ({plural(changes, 'change')} of kind, bound, expectation or "
            f"statement): **{c[TOWARD]} toward the post** (the post's count rose: a refutation became undecided, "
            f"literal or confirmed, or an undecided post row confirmed or of another kind), **{c[AGAINST]} against it**, {c[NEITHER]} leaving its count as it was. Each "
            "row's earlier readings, what they gave and why they changed are in its details.")
    named = [f"{way}: " + ", ".join(map(show, ids)) for way, ids in moved.items() if ids]
    return wrap(said + (" " + "; ".join(named) + "." if named else "")) + [""]


def named_line(r: Row, page: str) -> str:
    """One refuted, inconclusive or failed row, by name: its mark, its id linking to its line on ``page``, its
    statement on one line, the post's value and ours with units."""
    undecided = (f" {r.margin_sigma:+.1f} SD from {r.tolerance.describe()}"
                 if r.verdict == "inconclusive" and isinstance(r.margin_sigma, (int, float)) else "")
    basis = f" *{BASIS_LABELS[r.basis]}*" if BASIS_LABELS.get(r.basis) else ""
    return (f"- {MARK[r.verdict]}{undecided}{' ' + REVISED if r.revision else ''}{' ' + REREAD if r.readings else ''}{basis} "
            f"[{r.id}]({page}#{row_anchor(r.id)}): {cell(shorten(r.statement, STATEMENT))} — post: {post_cell(r)} · "
            f"ours: {measured_cell(r)}")


def _post_block(title: str, links: str, rows: list[Row], page_of: dict[str, str]) -> list[str]:
    """A post's first-screen block: its heading and pages, its sentences' counts per kind, and each refuted,
    inconclusive or failed row named (the post's own claims first, then its literal readings)."""
    lines = [f"## {title}", "", links, ""]
    if not rows:
        return lines + ["No rows measured.", ""]
    for kind in ("post", "literal"):
        ours = [r for r in rows if r.kind == kind]
        if not ours:
            continue
        n, counts = sentence_counts(ours, kind)
        head = ("The post's claims" if kind == "post"
                else "Literal readings of its sentences (not counted against the post)")
        lines += wrap(f"**{head}**: {plural(n, 'sentence')} judged: {counts} ({plural(len(ours), 'row')})"
                      + (":" if any(r.verdict in NAMED for r in ours) else "."))
        lines += [""] + [fit(named_line(r, page_of[r.id])) for r in ours if r.verdict in NAMED] + [""]
    return lines


def _links(book: Book) -> str:
    return " · ".join(f"[{'page' if k == 0 else f'part {k + 1}'}]({name})" for k, name in enumerate(book))


def index(doc: Document, registry: Registry, books: dict[str, Book], catalogue: bool, samples: bool) -> str:
    """The index's text for ``doc`` and its pages (``books``: by post id, :data:`BEYOND` and :data:`UNPLACED`)."""
    rows = list(doc.rows)
    page_of = {r.id: name for book in books.values() for name, (_, part) in book.items() for r in part}
    linked = lambda entry: f"[{entry}]({page_of.get(entry.split(' (')[0], INDEX)})"  # noqa: E731
    lines = [GENERATED, "# Claims report", "",
             *wrap("What holds in each post, as measured by this suite: per post its counts, then every claim that "
                   "was refuted or left undecided, by name, with the post's value and ours (each links to its row). "
                   "Every row: the post pages; totals, expectations and runs: below."), "",
             *wrap(f"Marks: ❌ refuted · ❔ inconclusive (+n SD from the bound b: within {DECISION_SIGMAS:g} noise SDs "
                   f"of it) · *computed*: arithmetic on given numbers, not a measurement, and *by construction*: true "
                   f"whatever the code does, both counted apart · {REREAD} "
                   f"re-read: the row's reading changed after an earlier report measured it (Re-readings, below) · "
                   f"{REVISED} the expectation was set after an earlier measurement."), ""]
    for post in registry.posts:
        book = books.get(post.id, {})
        on = [r for _, part in book.values() for r in part]
        lines += _post_block(cell(post.cited()), _links(book) if book else "", on, page_of)
    others = [(BEYOND, "Beyond the posts: further claims and controls"),
              *([(UNPLACED, "Rows of no registered post")] if UNPLACED in books else [])]
    for key, title in others:
        book = books.get(key, {})
        on = [r for _, part in book.values() for r in part]
        lines += [f"## {title}", "", (f"{_links(book)} · {plural(len(on), 'row')}" if on else "No rows measured."), ""]
        lines += [line for kind in kind_lines(on) for line in wrap(kind, "- ")] + [""]
    judged, total = sentences(rows), f"**{plural(len(rows), 'row')}**"
    lines += ["## All rows", "",
              *wrap(total + (f", **{plural(len(judged), 'sentence')} judged**" if judged else "") + ". "
                    + expectation_line(rows, linked)), "", *rereading_lines(rows, linked),
              *(["Sentences judged (each counted once, however many rows test it; the rule: on each page):", "",
                 *(f"- {line}" for line in sentence_lines(rows)), "", "Rows:", ""] if judged else []),
              *(f"- {line}" for line in summary_lines(rows)), "", *_more(rows, linked), *_tail(doc, rows, catalogue,
                                                                                                samples)]
    return "\n".join(map(fit, lines)).rstrip("\n") + "\n"


def _more(rows: list[Row], linked: Callable[[str], str]) -> list[str]:
    lines: list[str] = []
    findings = revised(rows)
    if findings:
        lines += wrap(f"{REVISED} {len(findings)} expectations set after an earlier measurement (findings of the suite "
                      "on committed evidence, or regression checks of fixed inputs; not predictions that held, and not "
                      "changes made by the latest run): " + ", ".join(map(linked, findings))) + [""]
    undecided = inconclusive(rows)
    if undecided:
        lines += wrap(f"Inconclusive (within {DECISION_SIGMAS:g} noise SDs of a bound, or a bound inside the interval): "
                      + ", ".join(map(linked, undecided))) + [""]
    return lines


def _tail(doc: Document, rows: list[Row], catalogue: bool, samples: bool) -> list[str]:
    full = ("declarations [CATALOGUE.md](CATALOGUE.md)" if catalogue
            else "declarations `pytest --claims-catalogue` (CATALOGUE.md)")
    lines = [*wrap(f"In full: {full}, values [results.json](results.json) ([SCHEMA.md](SCHEMA.md)), "
                   + ("the items scored by the rows that score items [samples.jsonl](samples.jsonl)." if samples
                      else "and no row of this report logs scored items.")), "", "## Runs (newest first)", ""]
    by_run = Counter(r.run for r in rows)
    for run in sorted(by_run, key=lambda run: str(doc.runs.get(run, {}).get("date", "")), reverse=True):
        lines += run_lines(run, doc.runs.get(run, {}), [r for r in rows if r.run == run]) + [""]
    if doc.not_carried:
        gone = ", ".join(f"{n['id']} (v{n['version']} → v{n['declared_version']})" for n in doc.not_carried)
        lines += wrap(f"> Not carried, measured under another claim version: {gone}") + [""]
    if doc.warning:
        lines += wrap(f"> Warning: {doc.warning}") + [""]
    return lines


def run_lines(run: str, env: dict, rows: list[Row]) -> list[str]:
    """A run's environment (stored once, however many rows it measured) and where its ``rows`` measured."""
    seeds = ", ".join(map(str, env.get("seeds", [env.get("seed")])))
    on = Counter(r.device for r in rows)
    suite = " · ".join(f"{k} {v}" for k, v in (env.get("suite") or {}).items())
    return [f"- **Run `{run_name(run)}`**: {plural(len(rows), 'row')} · {env.get('date', '?')} · commit "
            f"`{env.get('git_commit', '?')}` · tree `{env.get('git_tree', '?')}`",
            f"  - Python {env.get('python', '?')} · {env.get('platform', '?')}" + (f" · {cut(suite, 300)}" if suite else ""),
            f"  - device {env.get('device', '?')} (rows: " + ", ".join(f"{k} {v}" for k, v in on.most_common())
            + f") · seeds {seeds} · xdist workers: {env.get('xdist_workers', '?')}",
            f"  - command `{cut(env.get('command', '?'), 200)}` · {env.get('wall_s', '?')} s",
            *([f"  - ⚠ **interrupted** ({cut(env['interrupted'], 200)}): the run ended before measuring all it "
               "selected; each of its rows was measured in full"] if env.get("interrupted") else [])]
