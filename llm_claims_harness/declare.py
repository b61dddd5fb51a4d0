"""Declaring a claim: one decorator, one shape.

A claim is declared once, on the test function that measures it::

    @claim(
        id="pe.sin.position0",
        source="Post B, 'sinusoidal positional encoding 공식 읽기'",
        statement="PE(0) is 0 in every sin channel and 1 in every cos channel.",
        post_value=[0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        tolerance=exact("sin(0) = 0 and cos(0) = 1 are exact in IEEE arithmetic"),
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
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

VERDICTS = ("holds", "refuted")  # what a claim may expect
INCONCLUSIVE = "inconclusive"  # a stochastic value within DECISION_SIGMAS noise SDs of a bound
KINDS = ("post", "beyond", "control")  # the post's own claim; beyond the post (cite a paper); a control
# A value is decided only when every bound lies outside value ± 3 SD (a 99.7 % interval for normal noise;
# it contains the 95 % interval, so a row whose 95 % interval straddles a bound is never decided).
DECISION_SIGMAS = 3.0
_ID = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")


class ClaimDeclarationError(ValueError):
    """A claim declaration is incomplete or malformed (raised at import, i.e. at collection)."""


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """How a measured value is judged. Build one with :func:`exact`, :func:`close`, :func:`at_most`
    or :func:`at_least`; ``reason`` says where the number comes from (float precision, the post's
    rounding, or a calibration kept in the repo)."""

    kind: str  # "close" | "at_most" | "at_least"
    reason: str
    atol: float = 0.0  # close: |measured - reference| <= atol + rtol * |reference|, element-wise
    rtol: float = 0.0
    bound: float | None = None  # at_most / at_least
    strict: bool = False  # at_most / at_least: < / > instead of <= / >=

    def describe(self) -> str:
        """Short human form for the report, e.g. ``|Δ| ≤ 5e-05`` or ``> 0``."""
        if self.kind == "close":
            if self.atol == 0 and self.rtol == 0:
                return "exact"
            parts = [f"{self.atol:.3g}"] if self.atol else []
            parts += [f"{self.rtol:.3g}·|ref|"] if self.rtol else []
            return "|Δ| ≤ " + " + ".join(parts)
        op = {("at_most", False): "≤", ("at_most", True): "<",
              ("at_least", False): "≥", ("at_least", True): ">"}[(self.kind, self.strict)]
        return f"{op} {self.bound:.4g}"

    def margin(self, measured: float, reference: float | None = None) -> float:
        """Signed distance from ``measured`` (one number) to the nearest bound, positive on the side where
        the claim holds: ``bound − measured`` (at_most), ``measured − bound`` (at_least),
        ``atol + rtol·|ref| − |measured − ref|`` (close). Unit: the measured value's.

        Raises:
            ValueError: ``measured`` or ``reference`` is not one number.
        """
        numbers = (measured,) if self.kind != "close" else (measured, reference)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers):
            raise ValueError(f"a noise-aware '{self.kind}' judgement needs one number (and a numeric reference)")
        if self.kind == "at_most":
            return self.bound - measured
        if self.kind == "at_least":
            return measured - self.bound
        return self.atol + self.rtol * abs(reference) - abs(measured - reference)

    def judge(self, measured: Any, reference: Any = None) -> tuple[bool, float | None]:
        """Return ``(holds, gap)`` where ``gap`` is the largest |measured − reference| for ``close``
        (``None`` for non-numeric equality and for bounds).

        Raises:
            ValueError: ``close`` without a reference, shapes that differ, or a bound given a non-number.
        """
        if self.kind == "close":
            if reference is None:
                raise ValueError("a 'close' tolerance needs a reference value (the post's, or one computed)")
            return _close(measured, reference, self.atol, self.rtol)
        if not isinstance(measured, (int, float)) or isinstance(measured, bool):
            raise ValueError(f"a '{self.kind}' tolerance needs one number, got {type(measured).__name__}")
        if math.isnan(measured):
            return False, None
        if self.kind == "at_most":
            return (measured < self.bound if self.strict else measured <= self.bound), None
        return (measured > self.bound if self.strict else measured >= self.bound), None


def flatten(value: Any) -> list:
    """The leaves of a nested list or tuple, in order (a non-list is its own single leaf)."""
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def _shape(value: Any) -> tuple:
    if isinstance(value, (list, tuple)):
        return (len(value),) + (_shape(value[0]) if value else ())
    return ()


def _close(measured: Any, reference: Any, atol: float, rtol: float) -> tuple[bool, float | None]:
    if _shape(measured) != _shape(reference):
        raise ValueError(f"measured shape {_shape(measured)} differs from reference shape {_shape(reference)}")
    gap, ok = 0.0, True
    numeric = True
    for m, r in zip(flatten(measured), flatten(reference)):
        if isinstance(m, (int, float)) and isinstance(r, (int, float)) and not isinstance(r, bool):
            d = abs(float(m) - float(r))
            gap = max(gap, d) if not math.isnan(d) else math.inf
            ok = ok and d <= atol + rtol * abs(float(r))
        else:
            numeric = False
            ok = ok and m == r
    return ok, (gap if numeric else None)


def exact(reason: str) -> Tolerance:
    """Measured must equal the reference exactly (numbers, booleans, strings, nested lists)."""
    return Tolerance("close", reason)


def close(reason: str, *, atol: float = 0.0, rtol: float = 0.0) -> Tolerance:
    """Element-wise ``|measured − reference| ≤ atol + rtol·|reference|``."""
    return Tolerance("close", reason, atol=atol, rtol=rtol)


def at_most(bound: float, reason: str, *, strict: bool = False) -> Tolerance:
    """Measured number ≤ ``bound`` (``<`` with ``strict``)."""
    return Tolerance("at_most", reason, bound=bound, strict=strict)


def at_least(bound: float, reason: str, *, strict: bool = False) -> Tolerance:
    """Measured number ≥ ``bound`` (``>`` with ``strict``)."""
    return Tolerance("at_least", reason, bound=bound, strict=strict)


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
    params: Mapping[str, Any] | None = None  # the test's arguments for this case (see :func:`claim`)


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
    post's, shown in the report).
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

    def __post_init__(self) -> None:
        __tracebackhide__ = True
        name = f"claim {self.id!r}"
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ClaimDeclarationError(f"{name}: id must be dotted lower-case words, e.g. 'pe.sin.position0'")
        if not self.source or not self.statement:
            raise ClaimDeclarationError(f"{name}: source and statement are required")
        if self.tolerance is None and (not self.cases or any(c.tolerance is None for c in self.cases.values())):
            raise ClaimDeclarationError(f"{name}: no tolerance declared; every claim (or each of its cases) "
                                        "needs one, with its reason")
        for case_id, case in {"": self, **dict(self.cases)}.items():
            where = name + (f" case {case_id!r}" if case_id else "")
            if case.tolerance is not None and (not isinstance(case.tolerance, Tolerance)
                                               or not case.tolerance.reason.strip()):
                raise ClaimDeclarationError(f"{where}: tolerance must be a Tolerance with a non-empty reason")
            if case.expect is not None and case.expect not in VERDICTS:
                raise ClaimDeclarationError(
                    f"{where}: expected verdict {case.expect!r} is unknown; use one of {VERDICTS}")
            if case.kind is not None and case.kind not in KINDS:
                raise ClaimDeclarationError(f"{where}: kind {case.kind!r} is unknown; use one of {KINDS}")
        for field, what in (("kind", f"a kind, one of {KINDS}"),
                            ("expect_source", "an expect_source saying where the expected verdict comes from")):
            if not getattr(self, field) and (not self.cases or any(not getattr(c, field) for c in self.cases.values())):
                raise ClaimDeclarationError(f"{name}: no {field} declared; every claim (or each of its cases) "
                                            f"needs {what}")
        if not isinstance(self.version, int) or self.version < 1:
            raise ClaimDeclarationError(f"{name}: version must be a positive integer")
        if self.version > 1 and not self.version_note.strip():
            raise ClaimDeclarationError(f"{name}: version {self.version} needs a version_note saying what changed "
                                        "since the previous version and why")

    def resolve(self, case_id: str | None) -> dict[str, Any]:
        """The effective fields of sub-case ``case_id`` (``None``: the claim itself).

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
        return {
            "claim_id": self.id,
            "case": case_id,
            "id": f"{self.id}[{case_id}]" if case_id else self.id,
            "source": self.source,
            "statement": pick("statement"),
            "post_value": pick("post_value"),
            "unit": pick("unit"),
            "tolerance": pick("tolerance"),
            "expected_verdict": pick("expect"),
            "kind": pick("kind"),
            "expect_source": pick("expect_source"),
            "version": self.version,
            "version_note": self.version_note,
            "deviation": self.deviation,
        }


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
        values = [pytest.param(*(([cid] if wanted[0] == "case" else []) + [c.params[a] for a in argnames]), id=cid)
                  for cid, c in spec.cases.items()]
        return mark(pytest.mark.parametrize(wanted, values)(test))

    return decorate
