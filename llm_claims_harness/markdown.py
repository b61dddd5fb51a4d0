"""A Markdown page of report rows: one compact table, a line per row in the posts' order (id linking to its topic,
§ where in the posts, the sentence it tests, the post's value, the measured value ± its noise SD, its kind where it
is not the post's own claim, verdict, claim version, figures), the sentences judged (each quoted sentence in full
with its English gloss and its verdict, one click from the table: ``Q1``, ``Q2``), the skip reasons written once,
and one collapsible ``<details>`` block per topic (a test module's docstring title, with its counts per kind) with
each claim's statement, tolerance and reason, expectation source, version note, and the topic's deviations written
once each (rows cite them as ``D1``, ``S1``). A control whose decided verdict is the one designed shows
:data:`~llm_claims_harness.report.AS_DESIGNED`, never a bare ✅ or ❌. Long values and prose are cut with an
ellipsis (every value in full: ``results.json``; every declaration in full: ``CATALOGUE.md``); a sentence and its
gloss are never cut below the table; no line is longer than :data:`MAX_LINE` bytes, and :func:`page` takes the
fullest prose level that fits the page's byte budget. Which rows go on which page, and the index:
:mod:`llm_claims_harness.pages`.
"""

from __future__ import annotations

from collections import Counter

from collections.abc import Callable

from llm_claims_harness.declare import DECISION_SIGMAS
from llm_claims_harness.legend import Legend, skip_legend
from llm_claims_harness.report import (AS_DESIGNED, JUDGED, MARK, REVISED, SENTENCE_RULE, kind_counts, sentence_verdict,
                                       show, words)
from llm_claims_harness.row import Quote, Row
from llm_claims_harness.text import LINE_BYTES, cell, cut, fit, inline, plural, shorten, slug, wrap

MAX_LINE = LINE_BYTES  # bytes in UTF-8: no line of a page is longer
BUDGET = 39_900  # bytes: every page of the report stays under 40 KB
CELL = 20  # table cells (the post's value, the measured value) are cut to this many characters
QUOTE = 26  # the table's sentence cell: the quote shortened to this many characters (in full below the table)
# How much prose the details keep, from the fullest level to the leanest: characters per text, 0 = left out
# (every declaration in full: CATALOGUE.md). render() takes the first level that fits its byte budget.
LEVELS = tuple(dict(zip(("statement", "case", "reason", "reasons", "expect", "note", "deviation", "skip"), caps))
               for caps in ((400, 200, 300, 3, 240, 300, 800, 800),
                            (240, 140, 200, 2, 160, 200, 600, 600),
                            (160, 90, 120, 2, 100, 120, 400, 400),
                            (130, 0, 90, 2, 0, 90, 300, 300),
                            (110, 0, 70, 1, 0, 70, 260, 260),
                            (100, 0, 60, 1, 0, 60, 220, 220),
                            (90, 0, 50, 1, 0, 50, 180, 200),
                            (80, 0, 45, 1, 0, 40, 150, 160),
                            (75, 0, 40, 1, 0, 40, 130, 150),
                            (70, 0, 40, 1, 0, 0, 120, 140),
                            (60, 0, 0, 0, 0, 0, 100, 100),
                            (50, 0, 0, 0, 0, 0, 80, 90),
                            (40, 0, 0, 0, 0, 0, 60, 80)))
LEGEND = (f"✅ holds · ❌ refuted · ❔ inconclusive (a bound within {DECISION_SIGMAS:g} noise SDs, or inside a share's "
          "interval) · ⏭ skipped (S: reason below the table) · 💥 error · "
          f"{AS_DESIGNED} a control behaves as designed (its verdict, holds or refuted, is the one its design expects; "
          "never a refutation of a post) · ⚠ not the declared expectation · "
          f"{REVISED} expectation set after measuring (a finding or a regression check). "
          "kind: blank for the post's own claim, read in context; literal: a literal reading of the sentence, never "
          "counted against the post; beyond: beyond the posts; control: a check of the method. sentence: the post's "
          "words the row tests, shortened (Q: the sentence in full, its English gloss and its verdict, below the "
          "table). §: where in the posts; v: the claim's version.")
Where = Callable[[Row], str]  # a row's § cell


def _measured(r: Row) -> str:
    if r.verdict in ("skipped", "error"):
        return "—"
    text = cut(show(r.measured, apart_from=r.tolerance.bound), CELL)  # never reads as its bound unless it is it
    if isinstance(r.measured, list) and r.max_abs_diff:
        text += f" (Δ {show(r.max_abs_diff, 2)})"
    if r.noise_sd is not None:
        text += f" ± {show(r.noise_sd, 2)}"
    elif r.interval:
        text += f" [{show(r.interval[0], 2)}, {show(r.interval[1], 2)}]"
    return cell(text)


def _verdict(r: Row, labels: dict[str, str]) -> str:
    if r.kind == "control" and r.as_expected:  # decided as designed: named, never a bare ✅ or ❌ beside the posts'
        text = f"{AS_DESIGNED} {r.verdict}, as designed"
    else:
        text = MARK.get(r.verdict, r.verdict)
    if r.verdict == "inconclusive" and isinstance(r.margin_sigma, (int, float)):
        text += f" {r.margin_sigma:+.1f} SD"
    if r.as_expected is False:
        text += f" ⚠ {'not as designed: designed to be' if r.kind == 'control' else 'expected'} {r.expected_verdict}"
    if r.revision:
        text += f" {REVISED}"
    if r.id in labels:
        text += f" {labels[r.id]}"
    return text


def _figures(r: Row) -> str:
    links = []
    for path in r.figures or []:
        name = path.rsplit("/", 1)[-1]
        links.append(f"[{'table' if name.endswith('.md') else 'plot'}]({path})")
    return " ".join(links)


def _kind(r: Row) -> str:
    """The kind cell: blank for the post's own claim."""
    return "" if r.kind == "post" else r.kind


def _table(rows: list[Row], anchors: dict[str, str], labels: dict[str, str], quotes: Quotes, where: Where) -> list[str]:
    """One line per row. A row that follows another case of the same claim shows only ``↳ [case]`` (and its
    figures only when they differ from the case above), the section (§) is shown where it changes, and the
    sentence where it changes (its label linking to it in full below the table): the table reads as the posts'
    sections, sentences, claims and their cases."""
    lines = [f"| {' | '.join(COLUMNS)} |", "|" + "---|" * len(COLUMNS)]
    above: Row | None = None
    for r in rows:
        post = show(r.post_value) + (f" {r.unit}" if r.unit and r.post_value is not None else "")
        here, same = where(r), bool(above and r.case and r.claim_id == above.claim_id)
        name = f"↳ [{r.case}]" if same else f"[{r.id}](#{anchors[r.topic]})"
        shown = "" if above and here == where(above) else here
        label = quotes.label(r)
        sentence = ("" if not label or r.quote is None or (above and quotes.label(above) == label)
                    else f"[{label}](#{label.lower()}) “{inline(shorten(r.quote.text, QUOTE))}”")
        figures = "" if above is not None and same and r.figures == above.figures else _figures(r)
        cells = (name, shown, sentence, cell(post, CELL), _measured(r), _kind(r), _verdict(r, labels), str(r.version),
                 figures)
        lines.append("|" + "|".join(f" {c} " if c else " " for c in cells) + "|")
        above = r
    return lines


class Quotes:
    """The sentences a page's rows quote, each labelled once (``Q1``, ``Q2``, … in table order) by its claim and
    text, with the rows that test it."""

    def __init__(self, rows: list[Row]) -> None:
        self.rows: dict[tuple[str, str], list[Row]] = {}
        for r in rows:
            if r.quote:
                self.rows.setdefault(self._key(r, r.quote), []).append(r)
        self.labels = {key: f"Q{n}" for n, key in enumerate(self.rows, 1)}

    @staticmethod
    def _key(r: Row, quote: Quote) -> tuple[str, str]:
        return r.claim_id or r.id, " ".join(quote.text.split())

    def label(self, r: Row) -> str:
        """The row's sentence label, or ``""`` for a row that quotes nothing."""
        return self.labels[self._key(r, r.quote)] if r.quote else ""

    def lines(self) -> list[str]:
        """The sentences in full below the table, each with its anchor, gloss and verdicts: per sentence for the
        post's reading and a literal one (:data:`~llm_claims_harness.report.SENTENCE_RULE`), per row for the
        others. A quote another claim quoted above (the same words and gloss) names that sentence's label."""
        if not self.rows:
            return []
        judged = any(r.kind in JUDGED for rs in self.rows.values() for r in rs)
        out = [*wrap("Sentences judged (Q), in full with an English gloss. " + SENTENCE_RULE if judged
                     else "The sentences the rows quote (Q), in full with an English gloss."), ""]
        seen: dict[tuple[str, str], str] = {}
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
            words_of = (" ".join(quote.text.split()), " ".join(quote.gloss.split()))
            first = seen.setdefault(words_of, label)
            said = (f"the sentence of [{first}](#{first.lower()})" if first != label
                    else f"“{inline(quote.text)}” — *{inline(quote.gloss)}*")
            out += wrap(f'<a id="{label.lower()}"></a>**{label}** `{rs[0].claim_id or rs[0].id}` '
                        f"{' · '.join(verdicts)}: {said}", "- ")
        return out + [""]


COLUMNS = ("id", "§", "sentence", "post", "measured", "kind", "verdict", "v", "fig")


def _distinct(rows: list[Row], key: str) -> list:
    seen: dict = {}
    for r in rows:
        value = getattr(r.tolerance, key.removeprefix("tolerance_")) if key.startswith("tolerance_") else getattr(r, key)
        seen.setdefault(str(value), value)
    return list(seen.values())


def _joined(rs: list[Row], key: str, limit: int, most: int = 2) -> str:
    texts = _distinct(rs, key)
    return "; ".join(cut(t, limit) for t in texts[:most]) + ("; …" if len(texts) > most else "")


def _claim(claim_id: str, rs: list[Row], dev: Legend, notes: Legend, shared: set[str],
           cap: dict[str, int]) -> list[str]:
    """One claim: statement, tolerance with reason, expectation, version note (a label when ``shared`` with
    other claims of the topic), deviation label; a cap of 0 leaves that part out (the declaration in full:
    CATALOGUE.md)."""
    first, statements = rs[0], _distinct(rs, "statement")
    head = f"`{claim_id}` v{first.version}"
    if first.version_note and cap["note"]:
        note = first.version_note
        head += f" ({notes.label(note) if note in shared else cut(note, cap['note'])})"
    if len(statements) == 1 or not cap["case"]:
        head += ": " + ("" if len(statements) == 1 else f"[{first.case}] ") + cut(statements[0], cap["statement"])
    parts = [head, ", ".join(f"`{t.describe()}`" for t in _distinct(rs, "tolerance"))
             + (f": {_joined(rs, 'tolerance_reason', cap['reason'], cap['reasons'])}" if cap["reason"] else "")]
    references = [r for r in _distinct(rs, "reference_source") if r]
    if references and cap["reason"]:  # what a close row compares with when it is not the post's value
        parts.append("against " + "; ".join(cut(r, cap["reason"]) for r in references[:2])
                     + ("; …" if len(references) > 2 else ""))
    verdicts = "/".join(_distinct(rs, "expected_verdict"))
    if cap["expect"]:
        parts.append(f"expects {verdicts}: {_joined(rs, 'expect_source', cap['expect'])}")
    elif verdicts != "holds":
        parts.append(f"expects {verdicts}")
    if first.deviation:
        parts.append(dev.label(first.deviation))
    lines = wrap(" · ".join(parts), "- ")
    if len(statements) > 1 and cap["case"]:
        for r in rs:
            lines += wrap(f"`{r.case}` {cut(r.statement, cap['case'])}", "  - ")
    for r in rs:
        if r.reason and r.verdict == "error":
            lines += wrap(f"`{r.id}` error: {cut(r.reason, 1000)}", "  - ")  # a fault line whole, with its fix
    return lines


def _topic(title: str, rows: list[Row], anchor: str, cap: dict[str, int]) -> list[str]:
    dev, notes = Legend("D"), Legend("N")
    files = sorted({r.nodeid.split("::")[0] for r in rows})
    counts = kind_counts(rows)
    claims: dict[str, list[Row]] = {}
    for r in rows:
        claims.setdefault(r.claim_id or r.id, []).append(r)
    repeated = Counter(rs[0].version_note for rs in claims.values() if rs[0].version_note)
    shared = {note for note, n in repeated.items() if n > 1}
    body = [line for claim_id, rs in claims.items() for line in _claim(claim_id, rs, dev, notes, shared, cap)]
    return [f'<a id="{anchor}"></a>', f"<details><summary><b>{cut(title, 150)}</b> · {counts}</summary>", "",
            ", ".join(f"`{f}`" for f in files), "", *body, "",
            *dev.lines("Deviations from the posts' protocols (D)", cap["deviation"]),
            *notes.lines("Version notes shared by claims (N)", 2 * cap["note"]),
            "</details>", ""]


def page(head: list[str], rows: list[Row], where: Where, budget: int = BUDGET) -> str | None:
    """A page: ``head`` (its title and header lines), the legend, the table of ``rows`` (in the order given), the skip
    reasons and the details by topic, at the fullest prose level of :data:`LEVELS` within ``budget`` bytes; ``None``
    when even the leanest is over it (the caller splits the rows over more pages)."""
    for cap in LEVELS:
        text = _render(head, rows, cap, where)
        if len(text.encode("utf-8")) <= budget:
            return text
    return None


def _render(head: list[str], rows: list[Row], cap: dict[str, int], where: Where) -> str:
    quotes = Quotes(rows)
    anchors: dict[str, str] = {}
    taken = {label.lower() for label in quotes.labels.values()}  # a topic's anchor never takes a sentence's
    for r in rows:
        if r.topic not in anchors:
            anchors[r.topic] = slug(r.topic, taken)
    skips, labels = skip_legend(rows)
    lines = [*head, *wrap(LEGEND), "", *_table(rows, anchors, labels, quotes, where), "", *quotes.lines(),
             *skips.lines("Skip reasons (how to run the skipped rows)", cap["skip"]), "## Details by topic", ""]
    by_topic: dict[str, list[Row]] = {}
    for r in rows:
        by_topic.setdefault(r.topic, []).append(r)
    for title, rs in by_topic.items():
        lines += _topic(title, rs, anchors[title], cap)
    return "\n".join(map(fit, lines)).rstrip("\n") + "\n"
