"""What the report says about rows, shared by the report's pages, the terminal summary, the catalogue and the
comparison: how a value is shown, the verdict counts per kind of claim, the sentences judged (:func:`sentences`,
by :data:`SENTENCE_RULE`), the inconclusive list.

The report itself: :mod:`llm_claims_harness.row` (one row: the schema), :mod:`llm_claims_harness.results`
(``results.json``: the loader, merge, write), :mod:`llm_claims_harness.pages` (which rows on which page, the index),
:mod:`llm_claims_harness.markdown` (one page's table and details).
"""

from __future__ import annotations

import math

from collections import Counter
from collections.abc import Iterable
from typing import Any

from llm_claims_harness.declare import INCONCLUSIVE, NO_PREDICTION, VERDICTS, flatten
from llm_claims_harness.row import UNNAMED_KIND, Row
from llm_claims_harness.text import plural

ORDER = ("holds", "refuted", "inconclusive", "skipped", "error")
MARK = {"holds": "✅", "refuted": "❌", "inconclusive": "❔", "skipped": "⏭", "error": "💥"}
AS_DESIGNED = "☑"  # a control's decided verdict is the one its design expects: never shown as a bare ✅ or ❌
JUDGED = ("post", "literal")  # the kinds whose rows judge a post's sentence: counted per sentence as well as per row
REVISED = "✎"  # the row's expectation was set after measuring (a finding or a regression check, not a prediction)
REREAD = "↻"  # the row's reading (kind, tolerance, expectation, statement) changed after a committed report measured it
# A re-reading's direction: what it did to the post's count (see reading_steps)
TOWARD, AGAINST, NEITHER = "toward the post", "against the post", "neither"
# How the summary names a verdict for each kind of claim: a control is judged against its design.
KIND_TITLES = {"post": "the posts' claims", "literal": "literal readings (not counted against the posts)",
               "beyond": "beyond the posts", "control": "controls"}


def show(value: Any, digits: int = 4, apart_from: float | None = None) -> str:
    """Format a measured or post value once, the same way everywhere: ``digits`` significant digits, more where
    fewer would misstate it: a number that is not whole never reads as a whole one (0.99995 is not "1"), and one
    that differs from ``apart_from`` (a tolerance's bound) never reads as that bound."""
    if not isinstance(value, float) or not math.isfinite(value):
        return _shown(value, digits)
    for more in range(digits, 18):
        text = _shown(value, more)
        whole = float(text) == int(float(text))
        if (value == int(value) or not whole) and (apart_from is None or value == apart_from
                                                   or text != _shown(float(apart_from), more)):
            return text
    return repr(value)


def _shown(value: Any, digits: int) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e6:
            text = f"{value:.{digits}g}"
            return f"{value:.0f}" if "e" in text else text  # 100 at 2 digits is 100, not 1e+02
        return f"{value:.2e}"
    if isinstance(value, (list, tuple)):
        flat = flatten(value)
        if len(flat) <= 8:
            return "[" + ", ".join(show(v, digits) for v in value) + "]"
        return f"{len(flat)} values"
    return str(value)


def count(rows: Iterable[Row]) -> dict[str, dict[str, int]]:
    """Verdict counts per kind of claim (``post``, ``literal``, ``beyond``, ``control``), each in report order
    (holds, refuted, inconclusive, skipped, error)."""
    c = Counter((r.kind, r.verdict) for r in rows)
    return {kind: {v: c.get((kind, v), 0) for v in ORDER} for kind in KIND_TITLES}


def words(kind: str, verdict: str, as_expected: bool | None) -> str:
    if kind == "control" and verdict in ("holds", "refuted"):
        return "behave as designed" if as_expected else "not as designed"
    if kind == "post":
        return {"holds": "confirmed", "refuted": "refuted"}.get(verdict, verdict)
    return verdict


_WORD_ORDER = ("confirmed", "holds", "behave as designed", "refuted", "not as designed", "inconclusive", "skipped",
               "error")
SENTENCE_RULE = ("A sentence judged is one quoted sentence of a post, counted once however many rows, of however many "
                 "claims, test it (its rows are listed with it below the table), for the post's own reading and for a "
                 "literal reading apart; it has one verdict, every part of it having to hold: refuted when any of its "
                 "rows is refuted; else an error when any errs; else inconclusive when any is; else confirmed (a "
                 "literal reading: holds) when one or more hold, the others skipped; skipped when all are. One resting "
                 f"on a row whose expectation was set after measuring ({REVISED}) is counted apart, and so is one no "
                 "measured row gives: computed (arithmetic on given numbers, a library's constant) or true by "
                 "construction.")


def bucket(row: Row) -> str:
    """Where a row's verdict is counted: apart as :data:`REVISED` when its expectation was set after measuring, apart
    by its basis when it was not measured (``computed``: arithmetic on given numbers or a library constant;
    ``construction``: true by construction), else with the measurements (``""``)."""
    return REVISED if row.revision else "" if row.basis == "measured" else row.basis


# What each bucket counted apart is called, in the order a count line gives them
APART = {REVISED: f"{REVISED} on expectations set after measuring",
         "computed": "computed, not measured (arithmetic on given numbers, a library's constant)",
         "construction": "true by construction (cannot fail)"}


def _counted(counted: Iterable[tuple[str, str]]) -> str:
    """``40 confirmed · 3 refuted · ✎ on expectations set after measuring: 1 refuted · computed, not measured (…):
    5 confirmed`` from ``(word, bucket)`` pairs (:func:`bucket`: ``""`` for the measurements); empty when there are
    none. The first counts are measurements only."""
    c: dict[str, Counter[str]] = {"": Counter(), **{b: Counter() for b in APART}}
    for word, where in counted:
        c[where][word] += 1
    parts = [f"{c[''][w]} {w}" for w in _WORD_ORDER if c[""][w]]
    parts += [f"{label}: " + ", ".join(f"{c[b][w]} {w}" for w in _WORD_ORDER if c[b][w])
              for b, label in APART.items() if c[b]]
    return " · ".join(parts)


def _row_counts(rows: list[Row], kind: str) -> str:
    return _counted((words(kind, r.verdict, r.as_expected), bucket(r)) for r in rows if r.kind == kind)


def sentence_counts(rows: list[Row], kind: str) -> tuple[int, str]:
    """The number of sentences of ``kind`` that ``rows`` judge, and their verdicts' counts on one line."""
    ours = [rs for (k, _, _), rs in sentences(rows).items() if k == kind]
    return len(ours), _counted((words(kind, sentence_verdict(rs), None), sentence_bucket(rs)) for rs in ours)


def summary_lines(rows: Iterable[Row]) -> list[str]:
    """One line per kind of claim, e.g. ``the posts' claims: 40 confirmed · 3 refuted · 1 inconclusive``;
    a control's decided verdict is counted as behaving, or not, as designed (never as a refuted claim). Rows
    whose expectation was set after measuring (revised, or a regression check) are counted apart, after ``·`` + :data:`REVISED`: they are
    the suite's findings, not predictions that held."""
    rows = list(rows)
    return [f"{title}: {counts}" for kind, title in KIND_TITLES.items() for counts in [_row_counts(rows, kind)]
            if counts]


Sentence = tuple[str, str, str]  # (kind, post, the quote's text; the claim's id where a row records no quote)


def sentence_of(row: Row) -> Sentence:
    """The sentence a row judges: its kind, the post it is from, its quote's text, whatever claim the row belongs to (a claim
    whose rows quote nothing, in a report of an earlier schema, is one sentence)."""
    text = " ".join(row.quote.text.split()) if row.quote else ""
    return row.kind, row.post or "", text or f"claim {row.claim_id or row.id}"


def sentences(rows: Iterable[Row]) -> dict[Sentence, list[Row]]:
    """The sentences judged by ``rows`` (of the kinds in :data:`JUDGED`), each with its rows, in the rows' order."""
    out: dict[Sentence, list[Row]] = {}
    for r in rows:
        if r.kind in JUDGED:
            out.setdefault(sentence_of(r), []).append(r)
    return out


def sentence_verdict(rows: list[Row]) -> str:
    """One sentence's verdict from its rows, by :data:`SENTENCE_RULE`: ``refuted``, ``error``, ``inconclusive``,
    ``holds`` or ``skipped``."""
    verdicts = {r.verdict for r in rows}
    return next((v for v in ("refuted", "error", "inconclusive", "holds") if v in verdicts), "skipped")


def sentence_bucket(rows: list[Row]) -> str:
    """Where a sentence's verdict is counted (:func:`bucket`): apart as :data:`REVISED` when it rests on a row whose
    expectation was set after measuring; with the measurements when a measured row gives it; else apart by the basis
    of the rows that give it (``computed`` before ``construction``)."""
    verdict = sentence_verdict(rows)
    places = {bucket(r) for r in rows if r.verdict == verdict}
    return next((b for b in (REVISED, "", "computed") if b in places), "construction")


def sentence_lines(rows: Iterable[Row]) -> list[str]:
    """One line per kind that judges sentences, e.g. ``the posts' claims: 12 sentences judged: 9 confirmed · 1
    refuted · 2 inconclusive`` (:data:`SENTENCE_RULE`); none for rows of other kinds."""
    rows = list(rows)
    return [f"{KIND_TITLES[kind]}: {plural(n, 'sentence')} judged: {counts}" for kind in JUDGED
            for n, counts in [sentence_counts(rows, kind)] if n]


def kind_lines(rows: Iterable[Row]) -> list[str]:
    """One line per kind of claim: for a kind that judges sentences, its sentences then its rows (``the posts'
    claims: 12 sentences judged: 9 confirmed · 3 inconclusive — 40 rows: 36 confirmed · 4 inconclusive``), for the
    others its rows as :func:`summary_lines` counts them."""
    rows = list(rows)
    lines = []
    for kind, title in KIND_TITLES.items():
        n_rows, counts = sum(r.kind == kind for r in rows), _row_counts(rows, kind)
        if not counts:
            continue
        n, judged = sentence_counts(rows, kind) if kind in JUDGED else (0, "")
        lines.append(f"{title}: " + (f"{plural(n, 'sentence')} judged: {judged} — {plural(n_rows, 'row')}: "
                                     if n else "") + counts)
    return lines


_SHORT = {"post": "the post", "literal": "literal, not counted", "beyond": "beyond", "control": "controls"}


def kind_counts(rows: Iterable[Row]) -> str:
    """Counts per kind on one line, a topic's header: sentences judged for ``post`` and ``literal`` rows, rows for
    the others, e.g. ``the post: 2 sentences (12 rows): 1 confirmed, 1 refuted; controls: 2 rows: 2 behave as
    designed``. A literal or control row is never counted among the post's refutations."""
    rows = list(rows)
    parts = []
    for kind in KIND_TITLES:
        ours = [r for r in rows if r.kind == kind]
        if not ours:
            continue
        if kind in JUDGED:
            judged = list(sentences(ours).values())
            c = Counter(words(kind, sentence_verdict(rs), None) for rs in judged)
            head = f"{plural(len(judged), 'sentence')} ({plural(len(ours), 'row')})"
        else:
            c = Counter(words(kind, r.verdict, r.as_expected) for r in ours)
            head = plural(len(ours), "row")
        parts.append(f"{_SHORT[kind]}: {head}: " + ", ".join(f"{c[w]} {w}" for w in _WORD_ORDER if c[w]))
    return "; ".join(parts)


def revised(rows: Iterable[Row]) -> list[str]:
    """``id (registered holds, revised to refuted)`` for every row whose expectation was revised after an earlier
    measurement, by id (``id (regression check: refuted)`` when nothing was predicted), then ``; measured: error``
    where the row's verdict is not that expectation (an expectation is not a result). Worded so that a revision made
    before the run never reads as a change the run made."""
    def said(r: Row) -> str:
        expected = (f"registered {r.preregistered_expect}, revised to {r.expected_verdict}"
                    if r.preregistered_expect != NO_PREDICTION else f"regression check: {r.expected_verdict}")
        return f"{r.id} ({expected}{'' if r.verdict == r.expected_verdict else f'; measured: {r.verdict}'})"
    return [said(r) for r in sorted(rows, key=lambda r: r.id) if r.revision]


def _post_score(kind: str, verdict: str) -> float:
    """What a row does to its post's count: +1 a post row that holds, −1 one refuted, −½ one inconclusive (it holds
    its sentence back from a confirmation: a sentence holds only when every post row on it holds), 0 anything else
    (a literal, beyond or control row, a skipped one). So an undecided post row that leaves the post's rows moves the
    count toward the post, as a confirmation that becomes undecided moves it against."""
    return (kind == "post") * {"holds": 1.0, "refuted": -1.0, INCONCLUSIVE: -0.5}.get(verdict, 0.0)


def reading_steps(row: Row) -> list[tuple[dict, str]]:
    """Each earlier reading of ``row`` (oldest first) with the direction of the change that replaced it: ``TOWARD``
    when the verdict of the reading after it (the next earlier reading, or the row as this report has it) counts
    more for the post than this reading's did (:func:`_post_score`: a refutation of the post became an undecided
    row, a literal one, or a confirmation; an undecided post row a confirmation or another kind's row),
    ``AGAINST`` for the reverse, ``NEITHER`` when the post's count is the same. A reading recorded before rows named their kind takes the kind of the reading after it."""
    after = [*row.readings[1:], {"kind": row.kind, "verdict": row.verdict}]
    kinds = [r["kind"] for r in (*row.readings, after[-1])]
    for i in range(len(kinds) - 2, -1, -1):  # an unnamed kind is the next reading's
        if kinds[i] == UNNAMED_KIND:
            kinds[i] = kinds[i + 1]
    steps = []
    for i, (reading, then) in enumerate(zip(row.readings, after)):
        delta = _post_score(kinds[i + 1], then["verdict"]) - _post_score(kinds[i], reading["verdict"])
        steps.append((reading, TOWARD if delta > 0 else AGAINST if delta < 0 else NEITHER))
    return steps


def reading_counts(rows: Iterable[Row]) -> Counter[str]:
    """How many re-readings of ``rows`` went each way (:func:`reading_steps`), plus ``rows``: the rows re-read."""
    c: Counter[str] = Counter()
    for r in rows:
        if r.readings:
            c["rows"] += 1
            c.update(direction for _, direction in reading_steps(r))
    return c


def missed_predictions(rows: Iterable[Row]) -> list[Row]:
    """The decided rows whose verdict is not the one registered before measuring (their expectation revised
    after: a prediction that failed), in the given order."""
    return [r for r in rows if r.revision and r.verdict in VERDICTS and r.preregistered_expect in VERDICTS
            and r.verdict != r.preregistered_expect]


def inconclusive(rows: Iterable[Row]) -> list[str]:
    """``id (+1.2 SD)`` for every inconclusive row, by id (``id (interval [low, high])`` for a row judged by its
    interval)."""
    return [f"{r.id} ({_undecided_by(r)})" for r in sorted(rows, key=lambda r: r.id)
            if r.verdict == "inconclusive"]


def _undecided_by(row: Row) -> str:
    if isinstance(row.margin_sigma, (int, float)):
        return f"{row.margin_sigma:+.1f} SD"
    low, high = row.interval or ("?", "?")
    return f"interval [{show(low, 3)}, {show(high, 3)}]"
