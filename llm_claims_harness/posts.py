"""The posts a suite verifies, as data: each post's id, title, date, address and sections in the post's order.

The suite owns its registry and hands it to the harness by implementing the ``pytest_claims_posts`` hook
(:mod:`llm_claims_harness.hooks`); the harness holds no word of any post. A claim names its post, one of its sections
(``@claim(post="A", section="exp1", ...)``), checked against the registry at collection: the report's order, its
§ column and its pages (one per post) come from the registry, never from parsing a row's free-text ``source``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class PostRegistryError(ValueError):
    """The posts a suite registered are malformed, or a claim names a post or section that is not registered."""


def defined_at(obj: Any) -> str:
    """Where ``obj`` is defined, for an error's fix: ``NAME in FILE:LINE`` for the module global bound to it whose
    module assigns it (``POSTS in claims/posts.py:53``, not a module that imports it); ``""`` when none does. The
    file is relative to the working directory when under it."""
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        for name, value in list(getattr(module, "__dict__", {}).items()):
            if value is not obj or name.startswith("_") or not file or not str(file).endswith(".py"):
                continue
            try:
                with open(file, encoding="utf-8") as fh:
                    line = next((n for n, text in enumerate(fh, 1) if re.match(rf"{re.escape(name)}\s*[:=]", text)), 0)
            except OSError:
                continue
            if line:
                where = os.path.relpath(file) if not os.path.relpath(file).startswith("..") else file
                return f"{name} in {where}:{line}"
    return ""


@dataclasses.dataclass(frozen=True)
class Section:
    """One section of a post: ``id`` (what a claim names, e.g. ``exp1``), ``title`` (the post's own heading, or
    a description of an unheaded part) and ``label`` (a short name for the report's § column; default ``id``)."""

    id: str
    title: str
    label: str = ""

    @property
    def short(self) -> str:
        return self.label or self.id


@dataclasses.dataclass(frozen=True)
class Post:
    """A post: ``id`` (short, e.g. ``A``; names its report page), ``title``, ``date`` (ISO 8601, or empty),
    ``address`` (its URL when known, or empty), ``note`` (how the copy the suite was given is cited, when that
    needs saying) and ``sections`` in the post's order."""

    id: str
    title: str
    sections: tuple[Section, ...]
    date: str = ""
    address: str = ""
    note: str = ""

    def cited(self) -> str:
        """One line: ``Post T: "title" (2026-07-12, address)``."""
        extra = ", ".join(p for p in (self.date, self.address, self.note) if p)
        return f"Post {self.id}: \"{self.title}\"" + (f" ({extra})" if extra else "")

    def section(self, section_id: str) -> tuple[int, Section]:
        """The index and :class:`Section` of ``section_id``.

        Raises:
            PostRegistryError: the post has no such section (naming the ones it has).
        """
        for i, s in enumerate(self.sections):
            if s.id == section_id:
                return i, s
        where = defined_at(self)
        fix = (f"; to add it: Section({section_id!r}, '<the post's heading>', '<short label>') in the sections of "
               f"{where}" if where else "")
        raise PostRegistryError(f"post {self.id!r} has no section {section_id!r}{fix}; its sections: "
                                f"{', '.join(s.id for s in self.sections)}")


def _check_sections(post: Post) -> None:
    """Raises :class:`PostRegistryError` unless ``post.sections`` is one or more :class:`Section` objects with
    well-formed, distinct ids and text titles."""
    sections = post.sections
    if not isinstance(sections, (list, tuple)) or not sections:
        raise PostRegistryError(f"post {post.id!r}: sections must be a non-empty tuple of Section objects, got "
                                f"{sections!r}")
    bad = next((s for s in sections if not isinstance(s, Section) or not isinstance(s.id, str)
                or not _ID.match(s.id) or not isinstance(s.title, str)), None)
    if bad is not None:
        raise PostRegistryError(f"post {post.id!r}: {bad!r} is not a Section(id, title) with an id of letters, digits, "
                                "'-' and '_'")
    ids = [s.id for s in sections]
    if len(set(ids)) != len(ids):
        raise PostRegistryError(f"post {post.id!r}: section ids repeat: {ids}")


@dataclasses.dataclass(frozen=True)
class Registry:
    """The registered posts, in the order the report shows them."""

    posts: tuple[Post, ...] = ()
    given: Any = dataclasses.field(default=None, compare=False, repr=False)  # what the hook returned: its definition

    @classmethod
    def of(cls, posts: Sequence[Post] | None) -> Registry:
        """A checked registry (``None``: no posts registered).

        Raises:
            PostRegistryError: not :class:`Post` objects, a malformed or repeated id, a post without sections, a
                section id repeated within a post.
        """
        if posts is None:
            return cls(())
        if not isinstance(posts, (list, tuple)):
            raise PostRegistryError(f"pytest_claims_posts must return a list of Post objects, got "
                                    f"{type(posts).__name__}")
        seen: set[str] = set()
        for post in posts:
            if not isinstance(post, Post):
                raise PostRegistryError(f"pytest_claims_posts must return Post objects, got {type(post).__name__}")
            if not isinstance(post.id, str) or not _ID.match(post.id):
                raise PostRegistryError(f"post id {post.id!r} is malformed: ids are letters, digits, '-' and '_'")
            if post.id in seen:
                raise PostRegistryError(f"post id {post.id!r} is registered twice")
            if post.id.lower() in ("beyond", "unplaced"):
                raise PostRegistryError(f"post id {post.id!r} is taken by a page of the report (rows beyond the posts, "
                                        "rows of no registered post)")
            seen.add(post.id)
            _check_sections(post)
        return cls(tuple(posts), posts)

    def post(self, post_id: str) -> tuple[int, Post]:
        """The index and :class:`Post` of ``post_id``.

        Raises:
            PostRegistryError: no such post (naming the registered ones).
        """
        for i, p in enumerate(self.posts):
            if p.id == post_id:
                return i, p
        known = ", ".join(p.id for p in self.posts) or "none (implement the pytest_claims_posts hook)"
        where = defined_at(self.given) if self.posts else ""
        fix = (f"; to register it, add Post(id={post_id!r}, title='<the post's title>', sections=(Section('<id>', "
               f"'<heading>', '<short label>'),)) to {where}" if where else "")
        raise PostRegistryError(f"post {post_id!r} is not registered; registered posts: {known}{fix}")

    def place(self, post_id: str | None, section_id: str | None) -> tuple[int, int]:
        """``(post index, section index)`` for ordering; a row without a post (or one no longer registered, in
        an old report) goes after every post."""
        try:
            i, post = self.post(post_id or "")
            return i, post.section(section_id or "")[0]
        except PostRegistryError:
            return len(self.posts), 0

    def label(self, post_id: str | None, section_id: str | None) -> str:
        """The § column's text, e.g. ``A exp. 1``; empty for a row without a post."""
        if not post_id:
            return ""
        try:
            return f"{post_id} {self.post(post_id)[1].section(section_id or '')[1].short}"
        except PostRegistryError:
            return f"{post_id} {section_id or ''}".strip()
