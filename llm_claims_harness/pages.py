"""The report's pages: an index (``CLAIMS.md``: the posts, counts per page and kind of claim, the rows not as
expected, the revised and inconclusive rows, the runs that measured the rows) and one page per registered post
(``CLAIMS-<post>.md``: its ``post`` and ``literal`` rows in the post's section order) and one for the rows beyond
the posts (``CLAIMS-beyond.md``: ``beyond`` rows and controls). Every page stays within its byte budget
(:data:`llm_claims_harness.markdown.BUDGET`): a page whose rows do not fit at the leanest prose level is split at
section boundaries into parts (``CLAIMS-A-2.md``, …), never written over budget.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from llm_claims_harness import markdown, order
from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import REVISED, inconclusive, revised, summary_lines
from llm_claims_harness.row import Row
from llm_claims_harness.text import cell, cut, wrap

if TYPE_CHECKING:
    from llm_claims_harness.results import Document

INDEX = "CLAIMS.md"
PAGE_GLOB = "CLAIMS-*.md"  # every page but the index: a page of an earlier layout that this one lacks is removed
BEYOND = "beyond"  # the page of rows beyond the posts (a post may not take this id)
ON_POST_PAGE = ("post", "literal")
_PART_HEAD = 300  # bytes kept free for a part's title while deciding where to split


class ReportBudgetError(ValueError):
    """One row alone does not fit a page's budget (a row's cells are cut, so only a tiny budget does this)."""


def run_name(run: str) -> str:
    return run[:8]


def _run_lines(rows: list[Row]) -> list[str]:
    by_run = Counter(r.run for r in rows)
    return wrap("Measured by " + "; ".join(f"run `{run_name(run)}` ({n} rows)" for run, n in by_run.most_common())
                + f" (the runs: [{INDEX}]({INDEX}))") + [""]


def _head(title: str, rows: list[Row], lines: list[str]) -> list[str]:
    undecided = inconclusive(rows)
    unexpected = [r.id for r in rows if r.as_expected is False]
    return [f"# {title}", "", f"[← index]({INDEX})", "", *lines,
            f"**{len(rows)} rows** — " + (f"**not as expected: {', '.join(unexpected)}**" if unexpected
                                         else "every decided verdict as expected."), "",
            *(f"- {line}" for line in summary_lines(rows)), "",
            *(wrap(f"Inconclusive: {', '.join(undecided)}") + [""] if undecided else []), *_run_lines(rows)]


def _book(name: str, title: str, rows: list[Row], lines: list[str], where: markdown.Where,
          budget: int) -> dict[str, tuple[str, list[Row]]]:
    """The page ``name`` of ``rows`` (file → its text and rows), split into parts when they do not fit ``budget``."""
    def fits(part: list[Row]) -> bool:
        return markdown.page(_head(title, part, lines), part, where, budget - _PART_HEAD) is not None

    def split(part: list[Row]) -> list[list[Row]]:
        if fits(part):
            return [part]
        if len(part) == 1:
            raise ReportBudgetError(f"row {part[0].id} alone does not fit a page of {budget} bytes")
        middle = len(part) // 2
        cuts = [i for i in range(1, len(part)) if (part[i].post, part[i].section) != (part[i - 1].post, part[i - 1].section)]
        at = min(cuts, key=lambda i: abs(i - middle)) if cuts else middle
        return split(part[:at]) + split(part[at:])

    parts = split(rows)
    out = {}
    for k, part in enumerate(parts, 1):
        file = name if k == 1 else name.replace(".md", f"-{k}.md")
        suffix = f" (part {k} of {len(parts)})" if len(parts) > 1 else ""
        text = markdown.page(_head(title + suffix, part, lines), part, where, budget)
        if text is None:
            raise ReportBudgetError(f"{file}: over {budget} bytes")
        out[file] = text, part
    return out


def pages(doc: Document, registry: Registry, budget: int = markdown.BUDGET) -> dict[str, str]:
    """Every page of the report for ``doc`` (file name → text), the index first."""
    books: dict[str, dict[str, tuple[str, list[Row]]]] = {}
    on_post = {p.id for p in registry.posts}
    for post in registry.posts:
        rows = sorted((r for r in doc.rows if r.kind in ON_POST_PAGE and r.post == post.id),
                      key=lambda r: order.in_post(r, registry))
        if rows:
            sections = [f"- **{s.short}**: {cut(s.title, 150)}" for s in post.sections]
            books[post.id] = _book(f"CLAIMS-{post.id}.md", post.cited(), rows, ["Sections (§):", "", *sections, ""],
                                   lambda r: registry.label(r.post, r.section).removeprefix(f"{r.post} "), budget)
    rest = sorted((r for r in doc.rows if not (r.kind in ON_POST_PAGE and r.post in on_post)),
                  key=lambda r: order.beyond(r, registry))
    if rest:
        books[BEYOND] = _book(f"CLAIMS-{BEYOND}.md", "Beyond the posts: further claims and controls", rest, [],
                              lambda r: " · ".join(p for p in (r.kind, registry.label(r.post, r.section)) if p), budget)
    index = _index(doc, registry, books)
    if len(index.encode("utf-8")) > budget:
        raise ReportBudgetError(f"{INDEX}: {len(index.encode('utf-8'))} bytes, over its budget of {budget}")
    return {INDEX: index, **{name: text for book in books.values() for name, (text, _) in book.items()}}


def _links(book: dict[str, tuple[str, list[Row]]]) -> str:
    return " ".join(f"[{'page' if k == 0 else f'part {k + 1}'}]({name})" for k, name in enumerate(book))


def _index(doc: Document, registry: Registry, books: dict[str, dict[str, tuple[str, list[Row]]]]) -> str:
    rows = list(doc.rows)
    page_of = {r.id: name for book in books.values() for name, (_, part) in book.items() for r in part}
    lines = ["# Claims report", "",
             *wrap("The claims of the posts below, measured and judged with each claim's declared tolerance: one page "
                   "per post (its claims and the literal readings of its sentences) and one for the rows beyond the "
                   "posts (further claims and controls). In full: declarations [CATALOGUE.md](CATALOGUE.md), values "
                   "[results.json](results.json) ([SCHEMA.md](SCHEMA.md)), the items scored by the rows that score "
                   "items [samples.jsonl](samples.jsonl)."), ""]
    for key, title in [*((p.id, cell(p.cited())) for p in registry.posts), (BEYOND, "Beyond the posts")]:
        book = books.get(key, {})
        on = [r for _, part in book.values() for r in part]
        lines += wrap(f"- {title}: {_links(book)}" + (f" · {len(on)} rows: " + "; ".join(summary_lines(on))
                                                     if on else " (no rows measured)"))
    unexpected = [r.id for r in rows if r.as_expected is False]
    lines += ["", f"**{len(rows)} rows** — " + (f"**not as expected: {', '.join(unexpected)}**" if unexpected
                                                else "every decided verdict as expected."), "",
              *(f"- {line}" for line in summary_lines(rows)), ""]
    findings = revised(rows)
    if findings:
        lines += wrap(f"{REVISED} {len(findings)} expectations set after measuring (findings of the suite on committed "
                      "evidence, or regression checks of fixed inputs; not predictions that held): "
                      + ", ".join(findings)) + [""]
    undecided = inconclusive(rows)
    if undecided:
        lines += wrap(f"Inconclusive (within {DECISION_SIGMAS:g} noise SDs of a bound, or a bound inside the interval): "
                      + ", ".join(f"[{u}]({page_of.get(u.split(' (')[0], INDEX)})" for u in undecided)) + [""]
    lines += ["## Runs", ""]
    by_run = Counter(r.run for r in rows)
    for run, _ in by_run.most_common():
        lines += run_lines(run, doc.runs.get(run, {}), [r for r in rows if r.run == run]) + [""]
    if doc.not_carried:
        gone = ", ".join(f"{n['id']} (v{n['version']} → v{n['declared_version']})" for n in doc.not_carried)
        lines += wrap(f"> Not carried, measured under another claim version: {gone}") + [""]
    if doc.warning:
        lines += wrap(f"> Warning: {doc.warning}") + [""]
    return "\n".join(line if len(line) <= markdown.MAX_LINE else cut(line, markdown.MAX_LINE)
                     for line in lines).rstrip("\n") + "\n"


def run_lines(run: str, env: dict, rows: list[Row]) -> list[str]:
    """A run's environment (stored once, however many rows it measured) and where its ``rows`` measured."""
    seeds = ", ".join(map(str, env.get("seeds", [env.get("seed")])))
    on = Counter(r.device for r in rows)
    suite = " · ".join(f"{k} {v}" for k, v in (env.get("suite") or {}).items())
    return [f"- **Run `{run_name(run)}`**: {len(rows)} rows · {env.get('date', '?')} · commit `{env.get('git_commit', '?')}` "
            f"· tree `{env.get('git_tree', '?')}`",
            f"  - Python {env.get('python', '?')} · {env.get('platform', '?')}" + (f" · {cut(suite, 300)}" if suite else ""),
            f"  - device {env.get('device', '?')} (rows: " + ", ".join(f"{k} {v}" for k, v in on.most_common())
            + f") · seeds {seeds} · xdist workers: {env.get('xdist_workers', '?')}",
            f"  - command `{cut(env.get('command', '?'), 200)}` · {env.get('wall_s', '?')} s"]
