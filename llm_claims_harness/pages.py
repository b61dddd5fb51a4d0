"""The report's pages: an index (``CLAIMS.md``: the posts, counts per page and kind of claim, the rows not as
expected, the revised and inconclusive rows, the runs that measured the rows) and one page per registered post
(``CLAIMS-<post>.md``: its ``post`` and ``literal`` rows in the post's section order, the cases of a claim that quote
one sentence together), one for the rows beyond the posts (``CLAIMS-beyond.md``: ``beyond`` rows and controls) and,
when an earlier report holds rows of a post that is not registered (or whose post it did not record), one for those
(``CLAIMS-unplaced.md``). Each page, and each post's line in the index, counts per kind of claim the sentences
judged (a claim's quoted sentence, once however many rows test it:
:data:`llm_claims_harness.report.SENTENCE_RULE`) beside the rows. Every page stays within its byte budget
(:data:`llm_claims_harness.markdown.BUDGET`): a page whose rows do not fit at the leanest prose level is split at
section boundaries into parts (``CLAIMS-A.2.md``, …: a post id holds no ``.``, so no part is named like a post's
page), each opening with the whole page's counts, never written over budget. Every page opens with
:data:`GENERATED`, which is how a later run knows a page it may remove.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_claims_harness import markdown, order
from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import (REVISED, inconclusive, kind_lines, missed_predictions, revised,
                                       sentence_lines, sentences, summary_lines)
from llm_claims_harness.row import Row
from llm_claims_harness.text import cell, cut, fit, plural, wrap

if TYPE_CHECKING:
    from llm_claims_harness.results import Document

INDEX = "CLAIMS.md"
PAGE_GLOB = "CLAIMS-*.md"  # the pages beside the index: one of an earlier report that this one lacks is removed
GENERATED = "<!-- written by llm-claims-harness at every run: edits here are lost -->"
BEYOND, UNPLACED = "beyond", "unplaced"  # the pages of rows beyond the posts, and of rows of no registered post
ON_POST_PAGE = ("post", "literal")
_PART_HEAD = 300  # bytes kept free for a part's title while deciding where to split
Stopped = frozenset[str]  # the ids of the runs that were interrupted (their environment's ``interrupted``)


class ReportBudgetError(ValueError):
    """One row alone does not fit a page's budget (a row's cells are cut, so only a tiny budget does this)."""


def run_name(run: str) -> str:
    return run[:8]


def _run_lines(rows: list[Row], stopped: Stopped) -> list[str]:
    by_run = Counter(r.run for r in rows)
    return wrap("Measured by " + "; ".join(f"run `{run_name(run)}` ({plural(n, 'row')}"
                                           + (", from an interrupted run" if run in stopped else "") + ")"
                                           for run, n in by_run.most_common())
                + f" (the runs: [{INDEX}]({INDEX}))") + [""]


def _total(rows: list[Row], show: Callable[[str], str] = str) -> str:
    """``**N rows**, **M sentences judged** —`` and whether each decided verdict is the expected one (the ids that are
    not, each as ``show`` writes it), and the decided rows whose verdict is not the one registered before measuring
    (their expectation revised after: a prediction that failed, said here and not only in the ✎ list)."""
    judged = sentences(rows)
    unexpected = ", ".join(show(r.id) for r in rows if r.as_expected is False)
    missed = ", ".join(show(r.id) for r in missed_predictions(rows))
    return (f"**{plural(len(rows), 'row')}**" + (f", **{plural(len(judged), 'sentence')} judged**" if judged else "")
            + " — " + (f"**not as expected: {unexpected}**" if unexpected else "every decided verdict as expected")
            + (f"; **against the expectation registered before measuring** (revised after, {REVISED}): {missed}"
               if missed else "") + ("" if unexpected else "."))


def _counts(rows: list[Row]) -> list[str]:
    """The counts of ``rows`` (:func:`_total`), then a line per kind of claim: its sentences judged (each counted
    once, however many rows test it) and its rows."""
    return [*wrap(_total(rows)), "", *(line for kind in kind_lines(rows) for line in wrap(kind, "- ")), ""]


def _whole(rows: list[Row], links: str) -> list[str]:
    """A part's summary of the whole page: its parts (``links``) and the counts per kind of all their rows."""
    return [f"The whole page ({links}):", "", *_counts(rows), "This part:", ""]


def _head(title: str, rows: list[Row], lines: list[str], stopped: Stopped,
          whole: list[str] | None = None) -> list[str]:
    undecided = inconclusive(rows)
    return [GENERATED, f"# {title}", "", f"[← index]({INDEX})", "", *lines, *(whole or []), *_counts(rows),
            *(wrap(f"Inconclusive: {', '.join(undecided)}") + [""] if undecided else []), *_run_lines(rows, stopped)]


Book = dict[str, tuple[str, list[Row]]]  # a page and its parts: file name -> (text, rows)


def _book(key: str, title: str, rows: list[Row], lines: list[str], where: markdown.Where, budget: int,
          stopped: Stopped) -> Book:
    """The page of ``rows`` (``CLAIMS-<key>.md``), split into parts when they do not fit ``budget``; each part opens
    with the counts of the whole page; rows of the ``stopped`` runs are marked as from an interrupted run."""
    def fits(part: list[Row]) -> bool:
        whole = _whole(rows, "") if len(part) < len(rows) else None  # its parts' links: within _PART_HEAD
        return markdown.page(_head(title, part, lines, stopped, whole), part, where, budget - _PART_HEAD) is not None

    def split(part: list[Row]) -> list[list[Row]]:
        if fits(part):
            return [part]
        if len(part) == 1:
            raise ReportBudgetError(f"row {part[0].id} alone does not fit a page of {budget} bytes")
        middle = len(part) // 2
        cuts = [i for i in range(1, len(part))
                if (part[i].post, part[i].section) != (part[i - 1].post, part[i - 1].section)]
        at = min(cuts, key=lambda i: abs(i - middle)) if cuts else middle
        return split(part[:at]) + split(part[at:])

    parts = split(rows)
    files = [f"CLAIMS-{key}.md" if k == 1 else f"CLAIMS-{key}.{k}.md" for k in range(1, len(parts) + 1)]
    whole = _whole(rows, " · ".join(f"[part {k}]({file})" for k, file in enumerate(files, 1))) if len(parts) > 1 else None
    out: Book = {}
    for k, (file, part) in enumerate(zip(files, parts), 1):
        suffix = f" (part {k} of {len(parts)})" if len(parts) > 1 else ""
        text = markdown.page(_head(title + suffix, part, lines, stopped, whole), part, where, budget)
        if text is None:
            raise ReportBudgetError(f"{file}: over {budget} bytes")
        out[file] = text, part
    return out


def pages(doc: Document, registry: Registry, budget: int = markdown.BUDGET, catalogue: bool = True,
          samples: bool = True) -> dict[str, str]:
    """Every page of the report for ``doc`` (file name → text), the index first; ``catalogue``: whether the index may
    link a ``CATALOGUE.md`` (one is in the report directory); ``samples``: whether ``samples.jsonl`` holds any item
    (an empty one is not linked).

    Raises:
        ReportBudgetError: a page cannot be kept within ``budget`` (one row alone is over it).
    """
    books: dict[str, Book] = {}
    stopped = frozenset(run for run, env in doc.runs.items() if env.get("interrupted"))
    registered = {p.id for p in registry.posts}
    for post in registry.posts:
        rows = order.by_sentence(sorted((r for r in doc.rows if r.kind in ON_POST_PAGE and r.post == post.id),
                                        key=lambda r: order.in_post(r, registry)))
        if rows:
            sections = [f"- **{s.short}**: {cut(s.title, 150)}" for s in post.sections]
            books[post.id] = _book(post.id, post.cited(), rows, ["Sections (§):", "", *sections, ""],
                                   lambda r: registry.label(r.post, r.section).removeprefix(f"{r.post} "), budget,
                                   stopped)
    unplaced = [r for r in doc.rows if r.kind in ON_POST_PAGE and r.post not in registered]
    if unplaced:
        books[UNPLACED] = _book(UNPLACED, "Rows of no registered post",
                                order.by_sentence(sorted(unplaced, key=lambda r: order.natural(r.id))),
                                wrap("Rows of an earlier report whose post is not registered now, or not recorded (a "
                                     "report of an earlier schema): run their test files again to place them.") + [""],
                                lambda r: " ".join(p for p in (r.post, r.section) if p) or "?", budget, stopped)
    rest = order.by_sentence(sorted((r for r in doc.rows if r.kind not in ON_POST_PAGE),
                                    key=lambda r: order.beyond(r, registry)))
    if rest:
        books[BEYOND] = _book(BEYOND, "Beyond the posts: further claims and controls", rest, [],
                              lambda r: registry.label(r.post, r.section), budget, stopped)
    index = _index(doc, registry, books, catalogue, samples)
    if len(index.encode("utf-8")) > budget:
        raise ReportBudgetError(f"{INDEX}: {len(index.encode('utf-8'))} bytes, over its budget of {budget}")
    texts = {INDEX: index, **{name: text for book in books.values() for name, (text, _) in book.items()}}
    assert len(texts) == 1 + sum(map(len, books.values())), "two pages share a file name"
    return texts


def _links(book: Book) -> str:
    return " ".join(f"[{'page' if k == 0 else f'part {k + 1}'}]({name})" for k, name in enumerate(book))


def _index(doc: Document, registry: Registry, books: dict[str, Book], catalogue: bool, samples: bool) -> str:
    rows = list(doc.rows)
    page_of = {r.id: name for book in books.values() for name, (_, part) in book.items() for r in part}
    linked = lambda entry: f"[{entry}]({page_of.get(entry.split(' (')[0], INDEX)})"  # noqa: E731
    full = ("declarations [CATALOGUE.md](CATALOGUE.md)" if catalogue
            else "declarations `pytest --claims-catalogue` (CATALOGUE.md)")
    lines = [GENERATED, "# Claims report", "",
             *wrap("The claims of the posts below, measured and judged with each claim's declared tolerance: one page "
                   "per post (its claims and the literal readings of its sentences) and one for the rows beyond the "
                   f"posts (further claims and controls). In full: {full}, values [results.json](results.json) "
                   "([SCHEMA.md](SCHEMA.md)), " + ("the items scored by the rows that score items "
                                                   "[samples.jsonl](samples.jsonl)." if samples
                                                   else "and no row of this report logs scored items.")), ""]
    titles = [*((p.id, cell(p.cited())) for p in registry.posts), (BEYOND, "Beyond the posts"),
              *([(UNPLACED, "Rows of no registered post")] if UNPLACED in books else [])]
    for key, title in titles:
        book = books.get(key, {})
        on = [r for _, part in book.values() for r in part]
        judged = sentences(on)
        lines += wrap(f"- {title}: " + (f"{_links(book)} · {plural(len(on), 'row')}"
                                        + (f", {plural(len(judged), 'sentence')} judged" if judged else "")
                                        if on else "no rows measured"))
        lines += [line for kind in kind_lines(on) for line in wrap(kind, "  - ")]
    judged_lines = sentence_lines(rows)
    lines += ["", *wrap(_total(rows, linked)), "",
              *(["Sentences judged (each counted once, however many rows test it; the rule: on each page):", "",
                 *(f"- {line}" for line in judged_lines), "", "Rows:", ""] if judged_lines else []),
              *(f"- {line}" for line in summary_lines(rows)), ""]
    findings = revised(rows)
    if findings:
        lines += wrap(f"{REVISED} {len(findings)} expectations set after measuring (findings of the suite on committed "
                      "evidence, or regression checks of fixed inputs; not predictions that held): "
                      + ", ".join(map(linked, findings))) + [""]
    undecided = inconclusive(rows)
    if undecided:
        lines += wrap(f"Inconclusive (within {DECISION_SIGMAS:g} noise SDs of a bound, or a bound inside the interval): "
                      + ", ".join(map(linked, undecided))) + [""]
    lines += ["## Runs (newest first)", ""]
    by_run = Counter(r.run for r in rows)
    for run in sorted(by_run, key=lambda run: str(doc.runs.get(run, {}).get("date", "")), reverse=True):
        lines += run_lines(run, doc.runs.get(run, {}), [r for r in rows if r.run == run]) + [""]
    if doc.not_carried:
        gone = ", ".join(f"{n['id']} (v{n['version']} → v{n['declared_version']})" for n in doc.not_carried)
        lines += wrap(f"> Not carried, measured under another claim version: {gone}") + [""]
    if doc.warning:
        lines += wrap(f"> Warning: {doc.warning}") + [""]
    return "\n".join(map(fit, lines)).rstrip("\n") + "\n"


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
