"""Every row that judges a post quotes that post: each ``…``-separated piece of its quote is found in the post's
text, in order (whitespace, quotation marks and Markdown emphasis aside); a failure names the post the words are
in, if any. Read from the copies of the posts beside the checkout (``../shared/seeds/``); skipped,
with the reason, where they are absent.

Issue 30: eight rows named post A while quoting post B, and three quotes dropped characters without ``…``.
"""

from __future__ import annotations

import re

import pytest

from post_texts import POST_TEXTS, SEEDS

_IGNORED = re.compile(r"[\s'\"“”‘’「」*]+")  # whitespace, quotation marks, Markdown's ** emphasis


def normalise(text: str) -> str:
    """``text`` without what a quote may change: whitespace, quotation marks, ``*`` emphasis."""
    return _IGNORED.sub("", text)


def found_in_order(quote: str, text: str) -> bool:
    """Whether every ``…``-separated piece of ``quote`` occurs in ``text`` (both normalised), in order."""
    position = 0
    for piece in filter(None, (normalise(p) for p in quote.split("…"))):
        position = text.find(piece, position)
        if position < 0:
            return False
        position += len(piece)
    return True


@pytest.fixture(scope="module")
def posts() -> dict[str, str]:
    if not all((SEEDS / name).is_file() for name in POST_TEXTS.values()):
        pytest.skip(f"the posts' texts are not beside the checkout ({SEEDS}): nothing to check the quotes against")
    return {post: normalise((SEEDS / name).read_text(encoding="utf-8")) for post, name in POST_TEXTS.items()}


@pytest.fixture(scope="module")
def quoted_rows(declared_rows: list[dict]) -> list[dict]:
    rows = [r for r in declared_rows if r["kind"] in ("post", "literal")]
    assert len(rows) > 100
    return rows


def test_found_in_order_reads_pieces_in_order() -> None:
    text = normalise("하나 둘 셋 넷")
    assert found_in_order("하나 … 셋", text) and found_in_order("“둘 셋”", text)
    assert not found_in_order("셋 … 하나", text) and not found_in_order("하나 셋", text)


def test_every_quote_is_found_in_its_own_post(posts: dict[str, str], quoted_rows: list[dict]) -> None:
    assert {r["post"] for r in quoted_rows} <= set(POST_TEXTS)
    unquoted = [r["id"] for r in quoted_rows if r["quote"] is None]
    assert not unquoted, f"rows that judge a post without quoting it: {unquoted}"
    wrong = {r["id"]: [other for other in posts if found_in_order(r["quote"]["text"], posts[other])] or "no post"
             for r in quoted_rows if not found_in_order(r["quote"]["text"], posts[r["post"]])}
    assert not wrong, f"rows whose quote is not in their own post (id: where it is found): {wrong}"
