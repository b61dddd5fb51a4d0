"""The posts' order: where a row stands in the report.

A post's page runs through the post's sections in the order the suite's registry gives them
(:mod:`llm_claims_harness.posts`), the post's own claims before the literal readings within a section; the page of
rows beyond the posts runs through the kinds (:data:`GROUPS`), then the posts and their sections. Ties keep a
natural id order (``gap3`` before ``gap10``). A row's place comes from its declared ``post`` and ``section``, never
from its free-text ``source``.
"""

from __future__ import annotations

import re

from llm_claims_harness.posts import Registry
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
