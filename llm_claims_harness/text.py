"""Text helpers of the report: one-line cuts, table cells, quoted text, wrapped prose, anchors."""

from __future__ import annotations

import re
import textwrap
from typing import Any

WRAP = 300  # prose is wrapped at this width (characters)
LINE_BYTES = 400  # and no wrapped or cut line is longer than this in UTF-8 (a Hangul syllable is 3 bytes)


def cut(text: Any, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (an ellipsis marks a cut)."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def cell(text: Any, limit: int | None = None) -> str:
    """``text`` as one Markdown table cell (cut to ``limit`` characters when given; ``|`` escaped)."""
    text = cut(text, limit) if limit else " ".join(str(text).split())
    return text.replace("|", "\\|")


def shorten(text: Any, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, cut at a word boundary where one is in its second half
    (an ellipsis marks a cut)."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = len(head) if text[len(head)] == " " else head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,.;:…") + "…"


_INLINE = re.compile(r"([\\`*_\[\]<>|&])")


def inline(text: Any) -> str:
    """``text`` (a post's words, code included) as literal Markdown inline text: on one line, with every character
    that Markdown or a table reads as markup backslash-escaped."""
    return _INLINE.sub(r"\\\1", " ".join(str(text).split()))


def utf8(text: str) -> str:
    """``text`` as UTF-8 can hold it, the same text when it can. A command-line argument, a file name or an
    environment variable that the locale could not decode holds its bytes as lone surrogates (Python's
    ``surrogateescape``, PEP 383: ``LC_ALL=C`` with a Korean argument): those bytes are read as UTF-8 (the
    argument's own text when it was UTF-8), and a byte or a lone surrogate that is still not text is written as a
    backslash escape (``\\xeb``, ``\\ud800``), never a crash."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate outside surrogateescape's range: no byte it stood for
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def plural(n: int, noun: str) -> str:
    """``1 row``, ``2 rows``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def wrap(text: str, indent: str = "") -> list[str]:
    """``text`` as lines of at most :data:`WRAP` characters and :data:`LINE_BYTES` bytes, continuation lines
    indented under ``indent`` (Korean prose wraps at fewer characters than English)."""
    width = WRAP
    while True:
        lines = textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=" " * (len(indent) + 2),
                              break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]
        longest = max(len(line.encode("utf-8")) for line in lines)
        if longest <= LINE_BYTES:
            return lines
        width = max(len(indent) + 8, width * LINE_BYTES // longest)


def fit(line: str) -> str:
    """``line`` unchanged when within :data:`LINE_BYTES` bytes, else cut (an ellipsis marks the cut) to fit them."""
    if len(line.encode("utf-8")) <= LINE_BYTES:
        return line
    head = line.encode("utf-8")[: LINE_BYTES - len("…".encode("utf-8"))].decode("utf-8", errors="ignore")
    return head.rstrip() + "…"


def slug(title: str, taken: set[str]) -> str:
    """A short anchor for a topic title, from its first four words, so that it survives other topics coming and
    going (numbered only if two titles share those words); unique among ``taken``."""
    words = re.findall(r"[a-z0-9]+", title.lower())[:4] or ["topic"]
    base = name = "-".join(words)
    n = 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name
