"""Korean Wikipedia as WikiExtractor (3.x) writes it, turned into running text: one paragraph per line.

The input is WikiExtractor's output format: each article opened by a ``<doc id="…" url="…" title="…">`` line,
followed by the title line, the article's paragraphs one per line, and a ``</doc>`` line. The rules are those
of the published corpus (``corpus_ko`` in :mod:`llm_claims_lab.data.registry`): wrappers and title lines dropped;
HTML entities decoded; leftover link markup (``[[target|text]]`` → ``text``), HTML tags and parentheses emptied
by removed templates removed; a paragraph dropped when it holds a formula/code placeholder (``formula_N``,
``codice_N``) or table markup, holds no Hangul, has fewer than 3 whitespace tokens, or neither ends like a
Korean sentence nor holds a complete ``…다.`` sentence. No deduplication. Applied to the 20 published files
these rules reproduce the published text byte for byte (sha256 pinned in
:data:`llm_claims_lab.data.registry.REGISTRY`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

DOC_OPEN = re.compile(r'<doc id="(\d+)" url="([^"]*)" title="([^"]*)">')
DOC_OPEN_LOOSE = re.compile(r'<doc id="\d+"[^>]*>')  # any attributes: the line is a wrapper even if unparsed
DOC_CLOSE = "</doc>"
MIN_TOKENS = 3

# Paragraphs dropped before cleaning.
PLACEHOLDER = re.compile(r"\b(?:formula|codice)_\d+")  # WikiExtractor's stand-ins for <math> and <code>
TABLE_MARKUP = re.compile(r"\|\||^\s*[!|{]|colspan|rowspan")
# Cleaning, in this order.
PIPED_LINK = re.compile(r"\[\[(?:[^\[\]|]*\|)?([^\[\]|]*)\]\]")  # [[target|text]] or [[text]] → text
LINK_FRAGMENT = re.compile(r"\[\[(?:[^\[\]|]*\|)?|\]\]")  # an unbalanced [[target| or ]]
HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
EMPTY_PARENS = re.compile(r"\(\s*(?:[,;:·]\s*)*\)")  # "()" or "(, )" left by a removed template
LEADING_PUNCT_IN_PARENS = re.compile(r"\(\s*(?:[,;:]\s*)+")  # "(, 1920년" → "(1920년"
SPACES = re.compile(r"[ \t\u00a0\u3000]+")
SPACE_BEFORE_PUNCT = re.compile(r" +([,.])")
# Paragraphs kept after cleaning: Hangul, and a sentence ending (at the end, or "다. " inside).
HANGUL = re.compile(r"[\uac00-\ud7a3]")
SENTENCE_END = re.compile(r"(?:다|요|까|라|오|자|함|음|임|됨)[.?!]?[\"'”’」』)\]]*$")
INNER_SENTENCE = re.compile(r"다\. ")


class Article(NamedTuple):
    """One article's ``<doc>`` attributes: Wikipedia page id, page URL and title (for attribution)."""

    curid: int
    url: str
    title: str


def clean_paragraph(line: str) -> str:
    """One paragraph with markup left by WikiExtractor removed and whitespace collapsed (see the module)."""
    text = html.unescape(line)
    text = PIPED_LINK.sub(r"\1", text)
    text = LINK_FRAGMENT.sub("", text)
    text = HTML_TAG.sub("", text)
    text = EMPTY_PARENS.sub("", text)
    text = LEADING_PUNCT_IN_PARENS.sub("(", text)
    text = SPACES.sub(" ", text)
    text = SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return text.strip()


def is_prose(text: str) -> bool:
    """Whether a cleaned paragraph is Korean running text: Hangul, ≥ 3 tokens, a sentence ending."""
    return (bool(HANGUL.search(text)) and len(text.split()) >= MIN_TOKENS
            and bool(SENTENCE_END.search(text) or INNER_SENTENCE.search(text)))


def paragraphs(lines: Iterable[str]) -> Iterator[str]:
    """The kept, cleaned paragraphs of WikiExtractor output, in order.

    ``lines`` are the lines of one or more output files as text-mode reading yields them (universal
    newlines; a trailing ``\\n`` is allowed). Every line after a ``<doc>`` line is its title and is dropped.
    """
    after_open = False
    for raw in lines:
        line = raw.rstrip("\n")
        if DOC_OPEN_LOOSE.fullmatch(line):
            after_open = True
            continue
        if after_open:
            after_open = False
            continue
        if line == DOC_CLOSE or not line.strip() or PLACEHOLDER.search(line) or TABLE_MARKUP.search(line):
            continue
        text = clean_paragraph(line)
        if is_prose(text):
            yield text


def articles(lines: Iterable[str]) -> Iterator[Article]:
    """The articles of WikiExtractor output, in order, from their ``<doc>`` lines.

    Raises:
        ValueError: a ``<doc>`` line without the ``id``, ``url`` and ``title`` attributes.
    """
    for raw in lines:
        line = raw.rstrip("\n")
        if DOC_OPEN_LOOSE.fullmatch(line):
            match = DOC_OPEN.fullmatch(line)
            if match is None:
                raise ValueError(f"a <doc> line without id, url and title: {line!r}")
            yield Article(int(match[1]), match[2], match[3])
