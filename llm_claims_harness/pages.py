"""The report's pages: an index (``CLAIMS.md``: :mod:`llm_claims_harness.index`) and one page per registered post
(``CLAIMS-<post>.md``: its ``post`` and ``literal`` rows in the post's section order, the cases of a claim that quote
one sentence together), one for the rows beyond the posts (``CLAIMS-beyond.md``: ``beyond`` rows and controls) and,
when an earlier report holds rows of a post that is not registered (or whose post it did not record), one for those
(``CLAIMS-unplaced.md``). Each page, and each post's line in the index, counts per kind of claim the sentences
judged (a claim's quoted sentence, once however many rows test it:
:data:`llm_claims_harness.report.SENTENCE_RULE`) beside the rows. Every page stays within its byte budget
(:data:`llm_claims_harness.markdown.BUDGET`): a page whose rows do not fit at the leanest prose level is split at
section boundaries into parts (``CLAIMS-A.2.md``, …: a post id holds no ``.``, so no part is named like a post's
page), each saying the whole page's counts below its table, never written over budget. Each page opens with its
title, its counts and its table (the verdict first); what the rows mean, the sentences in full, the skip reasons and
the runs follow the table. Every page opens with
:data:`GENERATED`, which is how a later run knows a page it may remove.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from llm_claims_harness import markdown, order
from llm_claims_harness.index import (BEYOND, GENERATED, INDEX, UNPLACED, Book, expectation_line, run_lines, run_name,
                                      index as index_text)
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import inconclusive, kind_lines, sentences
from llm_claims_harness.row import Row
from llm_claims_harness.text import cut, plural, wrap

if TYPE_CHECKING:
    from llm_claims_harness.results import Document

PAGE_GLOB = "CLAIMS-*.md"  # the pages beside the index: one of an earlier report that this one lacks is removed
ON_POST_PAGE = ("post", "literal")
_PART_HEAD = 300  # bytes kept free for a part's title while deciding where to split
Stopped = frozenset[str]  # the ids of the runs that were interrupted (their environment's ``interrupted``)


class ReportBudgetError(ValueError):
    """One row alone does not fit a page's budget (a row's cells are cut, so only a tiny budget does this)."""


def _run_lines(rows: list[Row], stopped: Stopped) -> list[str]:
    by_run = Counter(r.run for r in rows)
    return wrap("Measured by " + "; ".join(f"run `{run_name(run)}` ({plural(n, 'row')}"
                                           + (", from an interrupted run" if run in stopped else "") + ")"
                                           for run, n in by_run.most_common())
                + f" (the runs: [{INDEX}]({INDEX}))") + [""]


def _total(rows: list[Row]) -> str:
    """``**N rows**, **M sentences judged**``."""
    judged = sentences(rows)
    return (f"**{plural(len(rows), 'row')}**" + (f", **{plural(len(judged), 'sentence')} judged**" if judged else "")
            + ":")


def _counts(rows: list[Row]) -> list[str]:
    """The counts of ``rows`` (:func:`_total`), then a line per kind of claim: its sentences judged (each counted
    once, however many rows test it) and its rows."""
    return [*wrap(_total(rows)), "", *(line for kind in kind_lines(rows) for line in wrap(kind, "- ")), ""]


def _after(title: str, rows: list[Row], lines: list[str], stopped: Stopped, whole: list[str] | None) -> list[str]:
    """The page's summary below its table: the whole page's counts (a part), the inconclusive rows, whether each
    verdict is the expected one, the sections and the runs."""
    undecided, here = inconclusive(rows), " in this part" if whole else ""
    return [f"## {title}", "", *(whole or []),
            *(wrap(f"Inconclusive{here}: {', '.join(undecided)}") + [""] if undecided else []),
            *wrap(expectation_line(rows).replace("Expectations:", f"Expectations{here}:", 1)), "", *lines,
            *_run_lines(rows, stopped)]


def _whole(rows: list[Row], links: str) -> list[str]:
    """A part's summary of the whole page: its parts (``links``) and the counts per kind of all their rows."""
    return [f"The whole page ({links}):", "", *_counts(rows)]


def _head(title: str, rows: list[Row], parts: str) -> list[str]:
    """The lines above a page's table: its title, the way back to the index (and its parts), its counts."""
    return [GENERATED, f"# {title}", "", f"[← index]({INDEX})" + (f" · parts: {parts}" if parts else ""), "",
            *_counts(rows)]


def _book(key: str, title: str, rows: list[Row], lines: list[str], where: markdown.Where, budget: int,
          stopped: Stopped) -> Book:
    """The page of ``rows`` (``CLAIMS-<key>.md``), split into parts when they do not fit ``budget``; each part says
    the counts of the whole page below its table; rows of the ``stopped`` runs are marked as from an interrupted
    run."""
    def render(part: list[Row], parts: str, whole: list[str] | None, room: int, heading: str = title) -> str | None:
        about = "About this part" if whole else "About this page"
        return markdown.page(_head(heading, part, parts), part, where, room, _after(about, part, lines, stopped, whole))

    def fits(part: list[Row]) -> bool:
        whole = _whole(rows, "") if len(part) < len(rows) else None  # its parts' links: within _PART_HEAD
        return render(part, "", whole, budget - _PART_HEAD) is not None

    def split(part: list[Row]) -> list[list[Row]]:
        """The fewest parts in order: each the longest run of whole sections from where the last ended that fits
        (found by bisection over the section boundaries; a section that alone does not fit is split by rows)."""
        out, start = [], 0
        while start < len(part):
            ends = [i for i in range(start + 1, len(part))
                    if (part[i].post, part[i].section) != (part[i - 1].post, part[i - 1].section)] + [len(part)]
            if not fits(part[start:ends[0]]):  # its first section alone is over: as many of its rows as fit
                ends = list(range(start + 1, ends[0] + 1))
            if not fits(part[start:ends[0]]):
                raise ReportBudgetError(f"row {part[start].id} alone does not fit a page of {budget} bytes")
            low, high = 0, len(ends) - 1  # ends[low] fits; find the last that does
            while low < high:
                mid = (low + high + 1) // 2
                low, high = (mid, high) if fits(part[start:ends[mid]]) else (low, mid - 1)
            out.append(part[start:ends[low]])
            start = ends[low]
        return out

    parts = split(rows)
    files = [f"CLAIMS-{key}.md" if k == 1 else f"CLAIMS-{key}.{k}.md" for k in range(1, len(parts) + 1)]
    links = " · ".join(f"[part {k}]({file})" for k, file in enumerate(files, 1)) if len(parts) > 1 else ""
    whole = _whole(rows, links) if len(parts) > 1 else None
    out: Book = {}
    for k, (file, part) in enumerate(zip(files, parts), 1):
        suffix = f" (part {k} of {len(parts)})" if len(parts) > 1 else ""
        text = render(part, links, whole, budget, title + suffix)
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
    index = index_text(doc, registry, books, catalogue, samples)
    if len(index.encode("utf-8")) > budget:
        raise ReportBudgetError(f"{INDEX}: {len(index.encode('utf-8'))} bytes, over its budget of {budget}")
    texts = {INDEX: index, **{name: text for book in books.values() for name, (text, _) in book.items()}}
    assert len(texts) == 1 + sum(map(len, books.values())), "two pages share a file name"
    return texts


__all__ = ["BEYOND", "GENERATED", "INDEX", "PAGE_GLOB", "UNPLACED", "ReportBudgetError", "pages", "run_lines"]
