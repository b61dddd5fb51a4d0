"""Declaring a claim: one decorator, one shape.

A claim is declared once, on the test function that measures it::

    @claim(
        id="pe.sin.position0",
        post="T", section="formula",  # a registered post, one of its sections (the pytest_claims_posts hook)
        source="Post T, the section that gives the formula",
        statement="PE(0) is 0 in every sin channel and 1 in every cos channel.",
        post_value=[0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        tolerance=exact(reason="sin(0) = 0 and cos(0) = 1 are exact in IEEE arithmetic"),
    )
    def test_position0(verify):
        verify(sinusoidal_table(8, 6)[0].tolist())

The harness (:mod:`llm_claims_harness.plugin`) turns the measured value into a verdict with the declared
tolerance, records it for the report, and passes the test only when the verdict equals ``expect``.
Every claim says what ``kind`` it is (:data:`KINDS`: the post's own claim, a claim beyond the post, or a
control built to behave one way) and where its expected verdict comes from (``expect_source``: the
post's sentence, arithmetic, a paper, a control's design), decided before measuring.
A declaration that lacks a tolerance, a kind or an expectation source, or expects anything but
``holds``/``refuted``, raises :class:`ClaimDeclarationError` at import time, which pytest shows as a
collection error naming the claim.

A stochastic measurement passes its standard deviation to ``verify(..., noise=sd)`` (or a share its exact
interval, ``interval=``); the verdict is then :data:`INCONCLUSIVE` when a tolerance bound lies within
:data:`DECISION_SIGMAS` SDs of the value (see :meth:`Tolerance.margin`), or inside the interval.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from llm_claims_harness import source
from llm_claims_harness.row import Declared, Quote, Revision
from llm_claims_harness.tolerance import Refused, Tolerance, at_least, at_most, close, exact, flatten, is_number

__all__ = ["BASES", "DECISION_SIGMAS", "INCONCLUSIVE", "KINDS", "NO_PREDICTION", "QUOTED_KINDS", "VERDICTS", "Case", "Claim",
           "ClaimDeclarationError", "Declared", "Quote", "Refused", "Revision", "Tolerance", "at_least", "at_most",
           "claim", "close", "exact", "flatten"]

VERDICTS = ("holds", "refuted")  # what a claim may expect
NO_PREDICTION = "none"  # a Revision's pre-registered verdict when nothing was predicted: a regression check
INCONCLUSIVE = "inconclusive"  # a stochastic value within DECISION_SIGMAS noise SDs of a bound
# the post's claim, read as a careful, charitable reader reads it in context; a literal reading of the post's words that
# differs from that (shown apart, never counted against the post); beyond the post (cite a paper); a control
KINDS = ("post", "literal", "beyond", "control")
QUOTED_KINDS = ("post", "literal")  # kinds whose rows must quote the sentence they test
# What a row's value rests on: a measurement; arithmetic on given numbers (the post's own, a configuration's) or a
# library's constant (``computed``); or nothing that could come out otherwise (``construction``: true by
# construction, a check of the wiring). The report counts the last two apart from the measured confirmations.
BASES = ("measured", "computed", "construction")
# A value is decided only when every bound lies outside value ± 3 SD (a 99.7 % interval for normal noise;
# it contains the 95 % interval, so a row whose 95 % interval straddles a bound is never decided).
DECISION_SIGMAS = 3.0
_ID = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")


class ClaimDeclarationError(ValueError):
    """A claim declaration is incomplete or malformed (raised at import, i.e. at collection)."""


@dataclasses.dataclass(frozen=True)
class Case:
    """Overrides for one parametrised sub-case; ``None`` fields inherit from the claim.
    Keys of ``Claim.cases`` are the cases' ids (ASCII: pytest escapes other characters). :func:`claim`
    parametrises the test from them: a test argument named ``case`` receives the id, and the arguments named
    in ``params`` receive its values, so each id is written once, in the declaration."""

    statement: str | None = None
    post_value: Any = None
    unit: str | None = None
    tolerance: Tolerance | None = None
    expect: str | None = None
    kind: str | None = None
    expect_source: str | None = None
    revised: Revision | None = None
    quote: Quote | None = None
    section: str | None = None  # the post's section this case's sentence is in, where it differs from the claim's
    reference: str | None = None  # what the test computes as its reference, where it differs from the claim's
    params: Mapping[str, Any] | None = None  # the test's arguments for this case (see :func:`claim`)
    basis: str | None = None  # what the case's value rests on, where it differs from the claim's (:data:`BASES`)


@dataclasses.dataclass(frozen=True)
class Claim:
    """One verifiable assertion of a post (its id is stable across versions).

    Fields: ``id`` (stable, dotted), ``source`` (post + section), ``statement`` (our words),
    ``kind`` (one of :data:`KINDS`), ``expect_source`` (where ``expect`` comes from: the post's sentence,
    arithmetic, a paper's result, a control's design, or a finding with its committed evidence),
    ``post_value`` and ``unit`` (``None`` when the post gives no number), ``tolerance`` (with its
    reason), ``expect`` (``holds`` or ``refuted``), ``version`` (bump when the protocol, tolerance or
    expectation changes, so old reports are not compared with new ones) and ``version_note`` (why; required
    from version 2), ``cases`` (per sub-case overrides), ``deviation`` (how our protocol differs from the
    post's, shown in the report), ``revised`` (a :class:`Revision` when ``expect`` is not the expectation
    registered before measuring), ``quote`` (a :class:`Quote`: the post's sentence a ``post`` or ``literal`` row
    tests; required for those kinds), ``post`` and ``section`` (the registered post, and its section, the row comes
    from, required for those kinds and checked against the suite's registry at collection:
    :mod:`llm_claims_harness.posts`; a case may name another section of the same post, ``Case(section=...)``),
    ``reference`` (what the test computes and passes as ``verify(..., reference=...)``, in words; a ``close`` or
    ``exact`` row without a post value needs one), ``basis`` (what the value rests on, :data:`BASES`: ``measured``,
    ``computed`` for arithmetic on given numbers or a library's constant, ``construction`` for a row true by
    construction; the report counts the last two apart from the measured confirmations).
    """

    id: str
    source: str
    statement: str
    kind: str | None = None
    expect_source: str = ""
    tolerance: Tolerance | None = None
    post_value: Any = None
    unit: str = ""
    expect: str = "holds"
    version: int = 1
    cases: Mapping[str, Case] = dataclasses.field(default_factory=dict)
    deviation: str = ""
    version_note: str = ""
    revised: Revision | None = None
    quote: Quote | None = None
    post: str | None = None
    section: str | None = None
    reference: str = ""
    basis: str = "measured"

    def __post_init__(self) -> None:
        __tracebackhide__ = True
        name = f"claim {self.id!r}"
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ClaimDeclarationError(f"{name}: id must be dotted lower-case words, e.g. 'pe.sin.position0'")
        if not self.source or not self.statement:
            raise ClaimDeclarationError(f"{name}: source and statement are required")
        if (self.post is None) != (self.section is None) or not all(
                v is None or (isinstance(v, str) and v.strip()) for v in (self.post, self.section)):
            raise ClaimDeclarationError(f"{name}: post, section go together: name both (a registered post id, one of "
                                        "its section ids) or neither")
        if self.tolerance is None and (not self.cases or any(c.tolerance is None for c in self.cases.values())):
            raise ClaimDeclarationError(f"{name}: no tolerance declared; every claim (or each of its cases) "
                                        "needs one, with its reason")
        rows: dict[str, Claim | Case] = {"": self, **dict(self.cases)}
        for case_id, case in rows.items():
            where = name + (f" case {case_id!r}" if case_id else "")
            if isinstance(case.tolerance, Refused):
                raise ClaimDeclarationError(f"{where}: {case.tolerance.why}")
            if case.tolerance is not None and (not isinstance(case.tolerance, Tolerance)
                                               or not case.tolerance.reason.strip()):
                raise ClaimDeclarationError(f"{where}: tolerance must be a Tolerance with a non-empty reason")
            if case.expect is not None and case.expect not in VERDICTS:
                raise ClaimDeclarationError(
                    f"{where}: expected verdict {case.expect!r} is unknown; use one of {VERDICTS}")
            if case.kind is not None and case.kind not in KINDS:
                raise ClaimDeclarationError(f"{where}: kind {case.kind!r} is unknown; use one of {KINDS}")
            if case.basis is not None and case.basis not in BASES:
                raise ClaimDeclarationError(f"{where}: basis {case.basis!r} is unknown; use one of {BASES} (what the "
                                            "value rests on: a measurement, arithmetic or a constant, construction)")
            _check_revision(where, case.revised, case.expect or self.expect)
            if case_id and case.section is not None and (self.post is None or not isinstance(case.section, str)
                                                         or not case.section.strip()):
                raise ClaimDeclarationError(f"{where}: a case's section is a section id of the claim's post; the "
                                            "claim names no post" if self.post is None else
                                            f"{where}: section must be a registered section id, got {case.section!r}")
            if case_id or not self.cases:  # each row: a case, or the claim when it has none
                _check_quote(where, case.kind or self.kind, case.quote or self.quote)

        for field, what in (("kind", f"a kind, one of {KINDS}"),
                            ("expect_source", "an expect_source saying where the expected verdict comes from")):
            if not getattr(self, field) and (not self.cases or any(not getattr(c, field) for c in self.cases.values())):
                raise ClaimDeclarationError(f"{name}: no {field} declared; every claim (or each of its cases) "
                                            f"needs {what}")
        kinds = {c.kind or self.kind for c in self.cases.values()} if self.cases else {self.kind}
        quoted = sorted(k for k in kinds if k in QUOTED_KINDS)
        if quoted and self.post is None:
            raise ClaimDeclarationError(f"{name}: a {quoted[0]} row judges a post: name it and its section, e.g. "
                                        "post='A', section='exp1' (registered by the suite's pytest_claims_posts hook)")
        if not isinstance(self.version, int) or self.version < 1:
            raise ClaimDeclarationError(f"{name}: version must be a positive integer")
        if self.version > 1 and not self.version_note.strip():
            raise ClaimDeclarationError(f"{name}: version {self.version} needs a version_note saying what changed "
                                        "since the previous version and why")
        each: Mapping[str, Claim | Case] = self.cases or {"": self}
        for case_id, case in each.items():  # each row: what its tolerance compares
            _check_reference(name + (f" case {case_id!r}" if case_id else ""), case.tolerance or self.tolerance,
                             self.post_value if case.post_value is None else case.post_value,
                             self.reference if case.reference is None else case.reference)

    def resolve(self, case_id: str | None) -> Declared:
        """The effective, frozen fields of sub-case ``case_id`` (``None``: the claim itself).

        Raises:
            ClaimDeclarationError: the claim declares cases and ``case_id`` is not one of them.
        """
        if self.cases and case_id is None:
            raise ClaimDeclarationError(f"claim {self.id!r} declares cases {sorted(self.cases)} but its test is not "
                                        "parametrised: give the test a `case` argument or the cases' params")
        if self.cases and case_id not in self.cases:
            raise ClaimDeclarationError(f"claim {self.id!r}: test parameter id {case_id!r} is not one of its "
                                        f"declared cases {sorted(self.cases)}")
        case = self.cases.get(case_id or "", Case())
        pick = lambda field: getattr(case, field) if getattr(case, field) is not None else getattr(self, field)  # noqa: E731
        revised: Revision | None = pick("revised")
        return Declared(
            id=f"{self.id}[{case_id}]" if case_id else self.id, claim_id=self.id, case=case_id, post=self.post,
            section=pick("section"), kind=pick("kind"), source=self.source, statement=pick("statement"),
            post_value=pick("post_value"), unit=pick("unit"), tolerance=pick("tolerance"),
            expected_verdict=pick("expect"), expect_source=pick("expect_source"),
            preregistered_expect=revised.preregistered if revised else pick("expect"),
            preregistered_source=revised.source if revised else pick("expect_source"),
            revision=revised, quote=pick("quote"), reference_source=pick("reference"), version=self.version,
            version_note=self.version_note, deviation=self.deviation, basis=pick("basis"))


def _check_quote(where: str, kind: str | None, quote: Quote | None) -> None:
    __tracebackhide__ = True
    if kind not in QUOTED_KINDS:
        return
    if not isinstance(quote, Quote) or not quote.text.strip() or not quote.gloss.strip():
        raise ClaimDeclarationError(f"{where}: a {kind} row needs quote=Quote(text, gloss): the post's sentence it "
                                    "tests (its own words, shortened) and an English gloss: a row that judges a post "
                                    "says which sentence it reads")


def _check_reference(where: str, tolerance: Tolerance | None, post_value: Any, reference: Any) -> None:
    """A row's tolerance can judge what it compares: a ``close`` row has a reference (the post's value, or one the
    test computes, said in ``reference``; the post's value is then only shown), and a ``close`` with ``atol``/``rtol``
    compares numbers only."""
    __tracebackhide__ = True
    if not isinstance(reference, str):
        raise ClaimDeclarationError(f"{where}: reference says in words what the test computes as its reference, "
                                    f"got {reference!r}")
    if tolerance is None or tolerance.kind != "close":
        return
    if post_value is None and not reference.strip():
        raise ClaimDeclarationError(f"{where}: {tolerance.describe()} compares with a reference, and the row has none: "
                                    "give the post's post_value=, or reference='what the test computes' and pass "
                                    "verify(..., reference=...)")
    text = [v for v in flatten(post_value) if not is_number(v)] if post_value is not None else []
    if (tolerance.atol or tolerance.rtol) and text and not reference.strip():  # else the post value is only shown
        raise ClaimDeclarationError(f"{where}: {tolerance.describe()} compares numbers, and the post value holds "
                                    f"{text[0]!r}: a value that is not a number is equal or not, exact(reason=...)")


def _check_revision(where: str, revised: Revision | None, expect: str) -> None:
    __tracebackhide__ = True
    if revised is None:
        return
    if not isinstance(revised, Revision):
        raise ClaimDeclarationError(f"{where}: revised must be a Revision")
    if revised.preregistered not in (*VERDICTS, NO_PREDICTION) or revised.preregistered == expect:
        raise ClaimDeclarationError(f"{where}: a revision's pre-registered verdict must be one of "
                                    f"{(*VERDICTS, NO_PREDICTION)} and differ from the declared expectation {expect!r}")
    empty = [f.name for f in dataclasses.fields(revised) if not str(getattr(revised, f.name)).strip()]
    if empty:
        raise ClaimDeclarationError(f"{where}: a revision needs {', '.join(empty)} (where the pre-registered "
                                    "expectation came from, why it changed, the committed evidence and its code digest)")


def claim(**fields: Any) -> Callable:
    """Decorate a test function with its :class:`Claim` (fields as keyword arguments).

    The test takes the ``verify`` fixture and calls ``verify(measured, reference=..., details=..., noise=...)``.
    A claim with ``cases`` runs once per case: the test is parametrised from the declaration, its ``case``
    argument (when it has one) receiving the case id and the arguments named in each ``Case.params`` their
    values; every case must name the same arguments.

    Raises:
        ClaimDeclarationError: as :class:`Claim` does; also cases whose ``params`` name different arguments.
    """
    __tracebackhide__ = True  # a bad declaration is reported in one line, at the declaration
    unknown = source.unknown_keyword(fields, [f.name for f in dataclasses.fields(Claim)], sys._getframe(1))
    if unknown:
        raise ClaimDeclarationError(unknown)
    spec = Claim(**fields)
    mark = pytest.mark.claim(spec)
    if not spec.cases:
        return mark
    names = {tuple(case.params or {}) for case in spec.cases.values()}
    if len(names) > 1:
        raise ClaimDeclarationError(f"claim {spec.id!r}: every case must give the same params, got {sorted(names)}")
    argnames = list(names.pop())

    def decorate(test: Callable) -> Callable:
        wanted = (["case"] if "case" in test.__code__.co_varnames[:test.__code__.co_argcount] else []) + argnames
        if not wanted:  # parametrised by the test itself: its ids must be the cases (else a usage error)
            return mark(test)
        values = [pytest.param(*(([cid] if wanted[0] == "case" else []) + [(c.params or {})[a] for a in argnames]),
                               id=cid) for cid, c in spec.cases.items()]
        return mark(pytest.mark.parametrize(wanted, values)(test))

    return decorate

