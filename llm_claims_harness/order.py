"""The posts' order: where a row stands in the report's table.

The table runs through post A's sections in the post's order, then post B's, then the rows that go beyond
the posts, then the controls (:data:`GROUPS`, by ``kind``). A row's place in a post comes from its
declared ``source``: the first post it names (``Post A, …`` / ``post B, …``) and, in the text before the
first ``;``, the section it names, found with :data:`SECTIONS` (each section's pattern, in the post's own
order; when several match, the latest section wins, so ``exp. 3 … relative bias`` is the relative-bias
section, not exp. 3's first). A row whose post or section is not found goes last within its post (or after
both posts), never dropped. Ties keep a natural id order (``gap3`` before ``gap10``).
"""

from __future__ import annotations

import re

GROUPS = ("post", "literal", "beyond", "control")  # the table's blocks, in order; any other kind goes last
POST_NAMES = ("A", "B")

# (post, short label for the table, pattern searched in the source's first segment), in each post's order.
SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("A", "A intro", r"\bintroduction\b"),
    ("A", "A skip-gram", r"핵심 아이디어|negative sampling|skip-gram"),
    ("A", "A training", r"PyTorch 훈련|4단계"),
    ("A", "A exp. 1", r"\bexp\. 1\b"),
    ("A", "A exp. 2", r"\bexp\. 2\b"),
    ("A", "A position", r"순환을 버린"),
    ("A", "A exp. 3", r"\bexp\. 3\b|PE\(pos\+k\)"),
    ("A", "A exp. 3 duel", r"extrapolate|right-neighbour|why sinusoidal PE fails|2017 paper"),
    ("A", "A rel. bias", r"relative bias|간격별|fatal flaw|--pe rel"),
    ("A", "A exp. 3 end", r"\bclosing\b"),
    ("A", "A add/concat", r"더할 것인가"),
    ("B", "B opening", r"\bopening\b|\bintroduction\b"),
    ("B", "B why add", r"더해도 되는가"),
    ("B", "B formula", r"공식 읽기"),
    ("B", "B sin/cos", r"왜 하필|why sinusoidal|sin\(a\+b\)"),
    ("B", "B fig. 3", r"figure 3|fig\. 3"),
    ("B", "B learned", r"학습되는 position"),
    ("B", "B PyTorch", r"small PyTorch|작은 PyTorch|token_embedding\[token_ids\]"),
    ("B", "B attention", r"attention 안에서"),
    ("B", "B RoPE", r"RoPE를 더 많이"),
)
_POST = re.compile(r"\bpost ([A-Z])\b", re.IGNORECASE)


def natural(text: str) -> list:
    """Sort key that puts gap3 before gap10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def section(source: str) -> tuple[int, int, str]:
    """``(post index, section index, label)`` of a declared source; the post index is ``len(POST_NAMES)``
    when no known post is named, the section index ``len(SECTIONS)`` when no section is found."""
    match = _POST.search(source or "")
    post = match.group(1).upper() if match else ""
    if post not in POST_NAMES:
        return len(POST_NAMES), len(SECTIONS), "other"
    first = source[match.start():].split(";")[0]
    found = [i for i, (p, _, pattern) in enumerate(SECTIONS) if p == post and re.search(pattern, first)]
    if not found:
        return POST_NAMES.index(post), len(SECTIONS), f"{post} other"
    return POST_NAMES.index(post), found[-1], SECTIONS[found[-1]][1]


def group(row: dict) -> int:
    """The block a row belongs to: its kind's index in :data:`GROUPS` (unknown kinds last)."""
    kind = row.get("kind")
    return GROUPS.index(kind) if kind in GROUPS else len(GROUPS)


def key(row: dict) -> tuple:
    """Sort key of a row in the report's table (see the module docstring)."""
    post, sec, _ = section(row.get("source", ""))
    return group(row), post, sec, natural(row["id"])


def ordered(rows: list[dict]) -> list[dict]:
    """``rows`` in the posts' order."""
    return sorted(rows, key=key)
