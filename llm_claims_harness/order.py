"""The posts' order: where a row stands in the report.

A post's page runs through the post's sections in the order the suite's registry gives them
(:mod:`llm_claims_harness.posts`), the post's own claims before the literal readings within a section; the page of
rows beyond the posts runs through the kinds (:data:`GROUPS`), then the posts and their sections. Ties keep a
natural id order (``gap3`` before ``gap10``), except that the cases of one claim that quote one sentence stand
together (:func:`by_sentence`), so that a page shows each sentence once above the rows that test it. A row's place
comes from its declared ``post`` and ``section``, never from its free-text ``source``.
"""

from __future__ import annotations

import re

from llm_claims_harness.posts import Registry
from llm_claims_harness.report import Sentence, sentence_of
from llm_claims_harness.row import Row

GROUPS = ("post", "literal", "beyond", "control")  # the kinds, in order; any other kind goes last


def natural(text: str) -> list:
    """Sort key that puts gap3 before gap10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def group(row: Row) -> int:
    """The block a row belongs to: its kind's index in :data:`GROUPS` (unknown kinds last)."""
    return GROUPS.index(row.kind) if row.kind in GROUPS else len(GROUPS)


def in_post(row: Row, registry: Registry) -> tuple:
    """Sort key on a post's page: section, kind, id."""
    return registry.place(row.post, row.section), group(row), natural(row.id)


def beyond(row: Row, registry: Registry) -> tuple:
    """Sort key on the page of rows beyond the posts: kind, then post, section, id."""
    return group(row), registry.place(row.post, row.section), natural(row.id)


def by_sentence(rows: list[Row]) -> list[Row]:
    """``rows`` (already in page order) with the cases of each run of one claim, section and kind grouped by the
    sentence they quote, in the order the sentences first appear; the rows of one sentence keep their order."""
    out: list[Row] = []
    run: list[Row] = []
    for r in [*rows, None]:
        if run and (r is None or (r.claim_id, r.section, r.kind) != (run[0].claim_id, run[0].section, run[0].kind)):
            first: dict[Sentence, int] = {}
            for x in run:
                first.setdefault(sentence_of(x), len(first))
            out += sorted(run, key=lambda x: first[sentence_of(x)])
            run = []
        if r is not None:
            run.append(r)
    return out
