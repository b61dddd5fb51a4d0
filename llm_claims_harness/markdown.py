"""A Markdown page of report rows, laid out for a reader who scans it: the title and counts, what the table's marks
mean (only those it shows), then one compact table of six columns with the verdict first (verdict in words, the claim
id linking to its topic, § where in the posts, the post's value and the measured value each with its unit, the
sentence it tests), a line per row in the posts' order, each line carrying its anchor (:func:`row_anchor`, which the
index links to). Below the table: the skip reasons whole (the command that runs a row stays copyable), the plots
inline, the sentences judged in full with their English gloss and verdict (``Q1``, ``Q2``), the page's summary, and
the details by topic (:mod:`llm_claims_harness.details`). A control whose decided verdict is the one designed shows
:data:`~llm_claims_harness.report.AS_DESIGNED`, never a bare ✅ or ❌. A value is cut at :data:`VALUE` characters,
its unit never (every value in full: ``results.json``; every declaration in full: ``CATALOGUE.md``); no line is longer
than :data:`MAX_LINE` bytes, and :func:`page` takes the fullest prose level of the details that fits the page's byte
budget. Which rows go on which page: :mod:`llm_claims_harness.pages`; the index: :mod:`llm_claims_harness.index`.
"""

from __future__ import annotations

import re

from collections import Counter
from collections.abc import Callable

from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.details import topic_lines
from llm_claims_harness.legend import skip_legend
from llm_claims_harness.provenance import unregistered
from llm_claims_harness.report import (AS_DESIGNED, JUDGED, MARK, REREAD, REVISED, SENTENCE_RULE, sentence_verdict,
                                       show, words)
from llm_claims_harness.row import Quote, Row
from llm_claims_harness.text import LINE_BYTES, cell, cut, fit, inline, plural, shorten, slug, wrap

MAX_LINE = LINE_BYTES  # bytes in UTF-8: no line of a page is longer
BUDGET = 39_900  # bytes: every page of the report stays under 40 KB
VALUE = 48  # characters of a value cell (the post's value, the measured value) before its unit, which is never cut
QUOTE = 26  # the table's sentence cell: the quote shortened to this many characters (in full below the table)
# A table line cannot wrap: where one is over MAX_LINE bytes, its values and quote are cut shorter, in these steps
SHORTER = ((VALUE, QUOTE), (32, 20), (20, 14), (10, 8))
# How much prose the details keep, from the fullest level to the leanest: characters per text, 0 = left out
# (every declaration in full: CATALOGUE.md). render() takes the first level that fits its byte budget. Skip reasons
# are never cut (the command they give must stay copyable).
LEVELS = tuple(dict(zip(("statement", "case", "reason", "reasons", "expect", "note", "deviation"), caps))
               for caps in ((400, 200, 300, 3, 240, 300, 800),
                            (240, 140, 200, 2, 160, 200, 600),
                            (160, 90, 120, 2, 100, 120, 400),
                            (130, 0, 90, 2, 0, 90, 300),
                            (110, 0, 70, 1, 0, 70, 260),
                            (100, 0, 60, 1, 0, 60, 220),
                            (90, 0, 50, 1, 0, 50, 180),
                            (80, 0, 45, 1, 0, 40, 150),
                            (75, 0, 40, 1, 0, 40, 130),
                            (70, 0, 40, 1, 0, 0, 120),
                            (60, 0, 0, 0, 0, 0, 100),
                            (50, 0, 0, 0, 0, 0, 80),
                            (40, 0, 0, 0, 0, 0, 60)))
COLUMNS = ("verdict", "claim", "§", "the post says", "measured", "sentence")
# What each mark means, said above the table in words a first-time reader gets (only the marks the table shows).
MARKS = {"✅": "✅ holds (a post's claim: confirmed)",
         "❌": "❌ refuted",
         "❔": f"❔ inconclusive: the value within {DECISION_SIGMAS:g} noise SDs of its bound (+n SD from > b: n noise "
               "SDs from the bound b, + on the side where the claim holds), or the bound inside the value's interval",
         "⏭": "⏭ skipped: S1, S2, … below the table say why and the command that runs it",
         "💥": "💥 error: the reason is in the row's details",
         AS_DESIGNED: f"{AS_DESIGNED} a control that behaves as its design expects (holds or refuted; a check of the "
                      "method, never a verdict on a post)",
         "⚠": "⚠ the verdict is not the one declared before this run",
         REVISED: f"{REVISED} the expected verdict was set after an earlier measurement (a finding or a regression "
                  "check, not a prediction that held): this run did not change it",
         REREAD: f"{REREAD} re-read: the row's reading (kind, bound, expectation or statement) changed after a "
                 "committed report measured it; its earlier readings, what each gave and why it changed: in its "
                 "details",
         "⚑": "⚑ the row read another copy of an input than the registered one (its details name it)",
         "↳": "↳ another case of the claim above (a blank cell: as above)",
         "*literal reading": "*literal reading, not counted*: the sentence read word for word, beside the post's own "
                             "claim; never counted against the post",
         "*computed": "*computed*: arithmetic on given numbers (the post's, a configuration's) or a library's "
                      "constant, not a measurement: counted apart from the measured confirmations",
         "*by construction": "*by construction*: true whatever the code does, a check of the wiring: counted apart",
         "±": "± the noise SD measured at the row's protocol point; [a, b] an interval"}
KINDS = {"post": "", "literal": "literal reading, not counted", "beyond": "beyond the posts",
         "control": "control"}  # the verdict cell names every kind but the post's own claim
BASIS_LABELS = {"measured": "", "computed": "computed", "construction": "by construction"}  # the cell names a value's basis
Where = Callable[[Row], str]  # a row's § cell


def row_anchor(rid: str) -> str:
    """The anchor of a row's line in its page's table (``r-ns-flop-ratio``), which the index links to."""
    return "r-" + "-".join(re.findall(r"[a-z0-9]+", rid.lower()))


def breakable(name: str) -> str:
    """An id with a line break allowed after each ``.`` and ``_`` (``<wbr>``, which GitHub keeps): a long id does not
    widen its column past the page; it copies as it is."""
    return re.sub(r"([._])", r"\1<wbr>", name)


def measured_unit(unit: str) -> str:
    """The unit a measured value is written with: the row's unit less any note about the post's own value
    (``SDs of random-pair cosines (post: GPT-2's wte)`` → ``SDs of random-pair cosines``)."""
    return re.sub(r"\s*\([^()]*\bpost\b[^()]*\)", "", unit).strip()


def _with_unit(value: str, unit: str, limit: int) -> str:
    return cell(cut(value, limit) + (f" {unit}" if unit else ""))


def post_cell(r: Row, limit: int = VALUE) -> str:
    """The post's value with its unit (the value cut at ``limit`` characters, the unit whole); the post's words as
    they are (a unit is a number's); ``—`` for none."""
    if r.post_value is None:
        return "—"
    return _with_unit(show(r.post_value), "" if isinstance(r.post_value, str) else r.unit, limit)


def measured_cell(r: Row, limit: int = VALUE) -> str:
    """The measured value with its unit (the value cut at ``limit`` characters, the unit whole), then its noise SD
    (``± 0.04``) or interval; ``—`` for a skipped row."""
    if r.verdict in ("skipped", "error") or r.measured is None:
        return "—"
    text = show(r.measured, apart_from=r.tolerance.bound)  # never reads as its bound unless it is it
    unit = measured_unit(r.unit) if not isinstance(r.measured, bool) else ""
    out = _with_unit(text, unit, limit)
    if isinstance(r.measured, list) and r.max_abs_diff:
        out += f" (Δ {show(r.max_abs_diff, 2)})"
    if r.noise_sd is not None:
        out += f" ± {show(r.noise_sd, 2)}"
    elif r.interval:
        out += f" [{show(r.interval[0], 2)}, {show(r.interval[1], 2)}]"
    return out


def verdict_cell(r: Row, labels: dict[str, str]) -> str:
    """The verdict in words after its mark, then its kind when it is not the post's own claim."""
    if r.kind == "control" and r.as_expected:  # decided as designed: named, never a bare ✅ or ❌ beside the posts'
        text = f"{AS_DESIGNED} {r.verdict}, as designed"
    else:
        said = r.verdict if r.kind == "control" else words(r.kind, r.verdict, r.as_expected)
        text = f"{MARK.get(r.verdict, '')} {said}".strip()
    if r.verdict == "inconclusive" and isinstance(r.margin_sigma, (int, float)):
        text += f" {r.margin_sigma:+.1f} SD from {r.tolerance.describe()}"
    if r.as_expected is False:
        text += f" ⚠ {'not as designed: designed to be' if r.kind == 'control' else 'expected'} {r.expected_verdict}"
    if r.revision:
        text += f" {REVISED}"
    if r.readings:
        text += f" {REREAD}"
    if r.id in labels:
        text += f" {labels[r.id]}"
    if unregistered(r.inputs or {}):
        text += " ⚑"
    text += f" · *{KINDS[r.kind]}*" if KINDS.get(r.kind) else ""
    return text + (f" · *{BASIS_LABELS[r.basis]}*" if BASIS_LABELS.get(r.basis) else "")


def _figures(r: Row) -> str:
    links = []
    for path in r.figures or []:
        name = path.rsplit("/", 1)[-1]
        links.append(f"[{'table' if name.endswith('.md') else 'plot'}]({path})")
    return " ".join(links)


def _table(rows: list[Row], anchors: dict[str, str], labels: dict[str, str], quotes: Quotes, where: Where) -> list[str]:
    """One line per row, the verdict first. A row that follows another case of the same claim shows only
    ``↳ [case]`` (and its figures only when they differ from the case above), the section (§) is shown where it
    changes, and the sentence where it changes (its label linking to it in full below the table): the table reads as
    the posts' sections, sentences, claims and their cases. Each row's line carries its anchor (:func:`row_anchor`)."""
    lines = [f"| {' | '.join(COLUMNS)} |", "|" + "---|" * len(COLUMNS)]
    above: Row | None = None
    for r in rows:
        here, same = where(r), bool(above and r.case and r.claim_id == above.claim_id)
        # the claim and its case apart (a line may break between them: no column wider than the page needs)
        case = f"[{breakable(r.case)}]" if r.case else ""
        name = f'<a id="{row_anchor(r.id)}"></a>' + (f"↳ {case}" if same else f"[{breakable(r.claim_id or r.id)}]"
                                                     f"(#{anchors[r.topic]})" + (f" {case}" if case else ""))
        shown = "" if above and here == where(above) else here
        label = quotes.label(r)
        quote_text = r.quote.text if r.quote is not None and label else ""
        quoted = bool(quote_text and not (above and quotes.label(above) == label))
        figures = "" if above is not None and same and r.figures == above.figures else _figures(r)
        for value, quote in SHORTER:
            sentence = f"[{label}](#{label.lower()}) “{inline(shorten(quote_text, quote))}”" if quoted else ""
            measured = measured_cell(r, value) + (f" {figures}" if figures else "")
            post = ("" if same and above is not None and post_cell(r) == post_cell(above)
                    else post_cell(r, value))
            cells = (verdict_cell(r, labels), name, cell(shown), post, measured, sentence)
            line = "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"
            if len(line.encode("utf-8")) <= MAX_LINE:
                break
        lines.append(line)
        above = r
    return lines


def marks_line(table: list[str]) -> list[str]:
    """What the marks in ``table`` mean, only those it shows."""
    body = "\n".join(table[2:])
    shown = [text for mark, text in MARKS.items() if mark in body]
    return wrap("Each row: its verdict, the claim (a link to its declaration), where in the posts (§), the post's "
                "value and ours with units, the sentence it tests (Q: in full below). " + " · ".join(shown) + ".") + [""]


def figure_lines(rows: list[Row]) -> list[str]:
    """The page's plots shown inline, each once, captioned with the rows that drew them (tables: linked)."""
    drawn: dict[str, list[str]] = {}
    for r in rows:
        for path in r.figures or []:
            if path.endswith(".png"):
                drawn.setdefault(path, []).append(r.id)
    out = []
    for path, ids in drawn.items():
        shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        out += [f"![{cell(shown)}]({path})", "", *wrap(f"*{shown}* ([full size]({path}))"), ""]
    return (["## Figures", ""] + out) if out else []


class Quotes:
    """The sentences a page's rows quote, each labelled once (``Q1``, ``Q2``, … in table order) by its text, with the
    rows, of every claim, that test it."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows: dict[tuple[str, str], list[Row]] = {}
        for r in rows:
            if r.quote:
                self.rows.setdefault(self._key(r, r.quote), []).append(r)
        self.labels = {key: f"Q{n}" for n, key in enumerate(self.rows, 1)}

    @staticmethod
    def _key(r: Row, quote: Quote) -> tuple[str, str]:
        return r.post or "", " ".join(quote.text.split())

    def label(self, r: Row) -> str:
        """The row's sentence label, or ``""`` for a row that quotes nothing."""
        return self.labels[self._key(r, r.quote)] if r.quote else ""

    def lines(self) -> list[str]:
        """The sentences in full below the table, each with its anchor, gloss and verdicts: per sentence for the
        post's reading and a literal one (:data:`~llm_claims_harness.report.SENTENCE_RULE`), per row for the
        others; the claims whose rows test it are named."""
        if not self.rows:
            return []
        judged = any(r.kind in JUDGED for rs in self.rows.values() for r in rs)
        out = [*wrap("Sentences judged (Q), in full with an English gloss. " + SENTENCE_RULE if judged
                     else "The sentences the rows quote (Q), in full with an English gloss."), ""]
        for key, rs in self.rows.items():
            label, quote = self.labels[key], rs[0].quote
            assert quote is not None  # only quoting rows are kept (__init__)
            verdicts = []
            for kind in dict.fromkeys(r.kind for r in rs):
                ours = [r for r in rs if r.kind == kind]
                if kind in JUDGED:
                    verdict = sentence_verdict(ours)
                    text = f"{MARK.get(verdict, verdict)} {words(kind, verdict, None)}"
                    text = text if kind == "post" else f"literal reading, not counted: {text}"
                else:
                    text = f"{kind}: " + ", ".join(f"{n} {w}" for w, n in
                                                     Counter(words(kind, r.verdict, r.as_expected) for r in ours).items())
                verdicts.append(f"{text} ({plural(len(ours), 'row')})")
            claims = ", ".join(f"`{c}`" for c in dict.fromkeys(r.claim_id or r.id for r in rs))
            out += wrap(f'<a id="{label.lower()}"></a>**{label}** {claims} {" · ".join(verdicts)}: '
                        f"“{inline(quote.text)}” — *{inline(quote.gloss)}*", "- ")
        return out + [""]



def page(head: list[str], rows: list[Row], where: Where, budget: int = BUDGET, after: list[str] | None = None) -> str | None:
    """A page: ``head`` (its title and the lines above the table), the marks' meanings, the table of ``rows`` (in the
    order given), the skip reasons whole, the figures, the sentences in full, ``after`` (the page's summary lines)
    and the details by topic, at the fullest prose level of :data:`LEVELS` within ``budget`` bytes; ``None`` when
    even the leanest is over it (the caller splits the rows over more pages)."""
    for cap in LEVELS:
        text = _render(head, rows, cap, where, after or [])
        if len(text.encode("utf-8")) <= budget:
            return text
    return None


def _render(head: list[str], rows: list[Row], cap: dict[str, int], where: Where, after: list[str]) -> str:
    quotes = Quotes(rows)
    anchors: dict[str, str] = {}
    # a topic's anchor never takes a sentence's or a row's
    taken = {label.lower() for label in quotes.labels.values()} | {row_anchor(r.id) for r in rows}
    for r in rows:
        if r.topic not in anchors:
            anchors[r.topic] = slug(r.topic, taken)
    skips, labels = skip_legend(rows)
    table = _table(rows, anchors, labels, quotes, where)
    lines = [*head, *marks_line(table), *table, "",
             *skips.lines("Skip reasons (S: why each skipped row did not run, and the command that runs it)"),
             *figure_lines(rows), *quotes.lines(), *after, "## Details by topic", ""]
    by_topic: dict[str, list[Row]] = {}
    for r in rows:
        by_topic.setdefault(r.topic, []).append(r)
    for title, rs in by_topic.items():
        lines += topic_lines(title, rs, anchors[title], cap)
    return "\n".join(map(fit, lines)).rstrip("\n") + "\n"
