"""Tolerances: how a measured value is judged against a bound or a reference (:mod:`llm_claims_harness.declare`
declares them on claims with :func:`exact`, :func:`close`, :func:`at_most` and :func:`at_least`)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any


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

    def __post_init__(self) -> None:
        """Raises ``ValueError`` for a tolerance no judgement can use: an unknown kind, a reason that is not text,
        ``atol``/``rtol`` that are not finite numbers ≥ 0, a bound that is not a finite number (``at_most`` /
        ``at_least``) or one given to ``close``."""
        number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)  # noqa: E731
        if self.kind not in ("close", "at_most", "at_least"):
            raise ValueError(f"tolerance kind {self.kind!r} is not close, at_most or at_least")
        if not isinstance(self.reason, str) or not isinstance(self.strict, bool):
            raise ValueError(f"tolerance reason must be text and strict a bool, got {self.reason!r}, {self.strict!r}")
        if not (number(self.atol) and number(self.rtol) and self.atol >= 0 and self.rtol >= 0):
            raise ValueError(f"tolerance atol and rtol must be finite numbers ≥ 0, got {self.atol!r}, {self.rtol!r}")
        if (self.kind == "close") != (self.bound is None) or (self.bound is not None and not number(self.bound)):
            raise ValueError(f"a {self.kind} tolerance needs " + ("no bound" if self.kind == "close" else
                             f"a finite number as its bound, got {self.bound!r}"))

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
            return self.limit - measured
        if self.kind == "at_least":
            return measured - self.limit
        assert reference is not None  # a number: checked above
        return self.atol + self.rtol * abs(reference) - abs(measured - reference)

    @property
    def limit(self) -> float:
        """The bound of an ``at_most`` / ``at_least`` tolerance (a finite number: ``__post_init__`` checks it).

        Raises:
            ValueError: a ``close`` tolerance, which has none.
        """
        if self.bound is None:
            raise ValueError("a 'close' tolerance has no bound")
        return self.bound

    def judge(self, measured: Any, reference: Any = None) -> tuple[bool, float | None]:
        """Return ``(holds, gap)`` where ``gap`` is the largest |measured − reference| for ``close``
        (``None`` for non-numeric equality and for bounds).

        Raises:
            ValueError: ``close`` without a reference, shapes that differ, a ``close`` with
                ``atol``/``rtol`` given a value that is not a number, or a bound given a non-number.
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
            return (measured < self.limit if self.strict else measured <= self.limit), None
        return (measured > self.limit if self.strict else measured >= self.limit), None


def is_number(value: Any) -> bool:
    """``value`` is an int or a float (a bool is not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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
        if (atol or rtol) and not (is_number(m) and is_number(r)):
            raise ValueError(f"close(atol={atol:g}, rtol={rtol:g}) compares numbers, got {m!r} against {r!r}: "
                             "a value that is not a number is equal or not, exact(reason=...)")
        if isinstance(m, (int, float)) and isinstance(r, (int, float)) and not isinstance(r, bool):
            d = abs(float(m) - float(r))
            gap = max(gap, d) if not math.isnan(d) else math.inf
            ok = ok and d <= atol + rtol * abs(float(r))
        else:
            numeric = False
            ok = ok and m == r
    return ok, (gap if numeric else None)


@dataclasses.dataclass(frozen=True)
class Refused:
    """A tolerance declaration that cannot judge (the old argument order, no reason, a bound that is not a number):
    the claim that declares it raises ``ClaimDeclarationError`` with ``why``, naming the claim, at collection."""

    why: str

    def judge(self, measured: Any, reference: Any = None) -> tuple[bool, float | None]:
        """Raises ``ValueError``: a refused declaration judges nothing."""
        raise ValueError(self.why)


def exact(*old: Any, reason: str | None = None) -> Tolerance | Refused:
    """Measured must equal the reference exactly (numbers, booleans, strings, nested lists): ``exact(reason=...)``."""
    return _made("exact", old, "close", reason)


def close(*old: Any, atol: float = 0.0, rtol: float = 0.0, reason: str | None = None) -> Tolerance | Refused:
    """Element-wise ``|measured − reference| ≤ atol + rtol·|reference|`` on numbers: ``close(atol=..., reason=...)``."""
    return _made("close", old, "close", reason, atol=atol, rtol=rtol)


def at_most(bound: float, *old: Any, reason: str | None = None, strict: bool = False) -> Tolerance | Refused:
    """Measured number ≤ ``bound`` (``<`` with ``strict``): ``at_most(bound, reason=...)``."""
    return _made("at_most", old, "at_most", reason, bound=bound, strict=strict)


def at_least(bound: float, *old: Any, reason: str | None = None, strict: bool = False) -> Tolerance | Refused:
    """Measured number ≥ ``bound`` (``>`` with ``strict``): ``at_least(bound, reason=...)``."""
    return _made("at_least", old, "at_least", reason, bound=bound, strict=strict)


def _made(name: str, old: tuple, kind: str, reason: str | None, **fields: Any) -> Tolerance | Refused:
    """The tolerance, or a :class:`Refused` one that the claim declaring it reports: the old argument order (a
    positional reason), a missing reason, or fields no judgement can use."""
    bound = [f"{fields['bound']!r}"] if "bound" in fields else []
    new = f"{name}({', '.join(bound + ['reason=...'])})"
    if old:
        said = ", ".join(bound + [repr(v) if not isinstance(v, str) else repr(shorten(v)) for v in old])
        return Refused(f"{name}({said}) is the old argument order, refused: the reason is a "
                                           f"keyword in all four tolerances, write {new}")
    if not isinstance(reason, str) or not reason.strip():
        return Refused(f"{name}() needs its reason, where the number comes from: write {new}")
    try:
        return Tolerance(kind, reason, **fields)
    except ValueError as exc:
        return Refused(f"{name}(): {exc}")


def shorten(text: str, width: int = 40) -> str:
    """``text`` cut to ``width`` characters with an ellipsis, for quoting a declaration in one line."""
    return text if len(text) <= width else text[:width - 1] + "…"
