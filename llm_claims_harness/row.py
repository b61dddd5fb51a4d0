"""One report row: what a claim declared and what the run found, typed.

A :class:`Row` is made once per claim item, in the plugin (:meth:`Row.measured` when ``verify`` ran,
:meth:`Row.unmeasured` for a skip or an error), completed with the run's facts (``duration_s``,
``device``, ``as_expected``), and serialised with :meth:`Row.to_dict` (``dataclasses.asdict``) for
pytest-xdist's ``user_properties`` and for ``results.json``. Its fields are the row keys of
``results.json`` (documented in :mod:`llm_claims_harness.results`); ``carried`` and ``measured_at`` are
added when rows are merged into a report.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from llm_claims_harness.declare import Tolerance


def jsonable(value: Any) -> Any:
    """Plain JSON types only: numpy and torch scalars become Python numbers (a row must also cross
    pytest-xdist's channel, which refuses anything else), non-finite floats their text."""
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        value = value.item()  # numpy scalar or 0-d tensor
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


@dataclasses.dataclass
class Row:
    """A claim row. Declaration: ``id`` (``claim_id`` plus ``[case]``), ``claim_id``, ``case``, ``kind``,
    ``topic`` (its test module's docstring title), ``nodeid``, ``source``, ``statement``, ``post_value``,
    ``unit``, ``tolerance`` (its short text) with ``tolerance_reason``, ``expected_verdict`` with
    ``expect_source``, ``preregistered_expect`` with ``preregistered_source`` and ``revision`` (the
    expectation ledger), ``quote`` (the post's sentence, for post and literal rows), ``version`` with ``version_note``, ``deviation``. Measurement: ``measured``,
    ``reference``, ``max_abs_diff``, ``details``, ``noise_sd``, ``margin_sigma``, ``verdict``, ``reason``,
    ``interval``. Run: ``duration_s``, ``device``, ``as_expected``, ``figures`` (paths relative to the report
    directory)."""

    id: str
    claim_id: str
    case: str | None
    kind: str
    topic: str
    nodeid: str
    source: str
    statement: str
    post_value: Any
    unit: str
    measured: Any
    reference: Any
    max_abs_diff: float | None
    details: dict
    noise_sd: float | None
    margin_sigma: float | None
    tolerance: str
    tolerance_reason: str
    verdict: str
    expected_verdict: str
    expect_source: str
    reason: str
    version: int
    version_note: str
    deviation: str
    # the run's part, set once the test's report is made (:meth:`finish`)
    duration_s: float | None = dataclasses.field(default=None)
    device: str = dataclasses.field(default="cpu")
    as_expected: bool | None = dataclasses.field(default=None)
    figures: list[str] = dataclasses.field(default_factory=list)
    interval: list[float] | None = dataclasses.field(default=None)  # [low, high] at DECISION_LEVEL, when judged by one
    # the expectation ledger: registered before measuring, and why it changed (None: it did not)
    preregistered_expect: str = dataclasses.field(default="")
    preregistered_source: str = dataclasses.field(default="")
    revision: dict | None = dataclasses.field(default=None)
    quote: dict | None = dataclasses.field(default=None)  # the post's sentence a post or literal row tests

    @classmethod
    def measured_row(cls, fields: dict, nodeid: str, *, topic: str, verdict: str, measured: Any = None,
                     reference: Any = None, gap: float | None = None, details: dict | None = None,
                     reason: str = "", noise: float | None = None, margin_sigma: float | None = None,
                     figures: list[str] | None = None, interval: tuple[float, float] | None = None) -> Row:
        """A row from a claim's resolved fields (:meth:`~llm_claims_harness.declare.Claim.resolve`) and
        what the run found, every value a plain JSON type. ``noise``: the measured value's SD (``None``
        for exact rows); ``margin_sigma``: its signed distance to the nearest bound in SDs; ``interval``: the
        value's interval at :data:`~llm_claims_harness.measure.DECISION_LEVEL` when it is judged by one."""
        tol: Tolerance = fields["tolerance"]
        return cls(
            id=fields["id"], claim_id=fields["claim_id"], case=fields["case"], kind=fields["kind"], topic=topic,
            nodeid=nodeid, source=fields["source"], statement=fields["statement"],
            post_value=jsonable(fields["post_value"]), unit=fields["unit"], measured=jsonable(measured),
            reference=jsonable(reference), max_abs_diff=jsonable(gap), details=jsonable(details or {}),
            noise_sd=jsonable(noise), margin_sigma=None if margin_sigma is None else jsonable(round(margin_sigma, 3)),
            tolerance=tol.describe(), tolerance_reason=tol.reason, verdict=verdict,
            expected_verdict=fields["expected_verdict"], expect_source=fields["expect_source"], reason=reason,
            version=fields["version"], version_note=fields["version_note"], deviation=fields["deviation"],
            figures=list(figures or []), interval=None if interval is None else jsonable(list(interval)),
            preregistered_expect=fields["preregistered_expect"], preregistered_source=fields["preregistered_source"],
            revision=fields["revision"], quote=fields.get("quote"))

    @classmethod
    def unmeasured(cls, fields: dict, nodeid: str, *, topic: str, verdict: str, reason: str) -> Row:
        """A row for a claim that did not measure: ``skipped`` (``reason``: the skip's) or ``error``."""
        return cls.measured_row(fields, nodeid, topic=topic, verdict=verdict, reason=reason)

    @classmethod
    def from_dict(cls, data: dict) -> Row:
        """The row a :meth:`to_dict` dict (or a ``results.json`` row) holds; keys that are no field
        (``carried``, ``measured_at``) are ignored, missing optional ones take their defaults.

        Raises:
            TypeError: a required field is missing.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def finish(self, *, duration_s: float, device: str) -> None:
        """Add the run's facts: how long the test took, where it measured, and whether its decided
        verdict is the declared one (``None`` for skipped and inconclusive rows)."""
        self.duration_s = round(duration_s, 3)
        self.device = device
        self.as_expected = None if self.verdict in ("skipped", "inconclusive") else self.verdict == self.expected_verdict

    def to_dict(self) -> dict:
        """The row as plain JSON types, keys in field order."""
        return dataclasses.asdict(self)
