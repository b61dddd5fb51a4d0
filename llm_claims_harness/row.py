"""The row schema, stated once: what a claim declares (:class:`Declared`, the frozen result of
:meth:`~llm_claims_harness.declare.Claim.resolve`) and what a run found (:class:`Row`, a frozen ``Declared`` plus
the measurement and the run). Every field carries its description (``metadata["doc"]``), from which ``SCHEMA.md``
is generated (:func:`llm_claims_harness.results.schema_markdown`). A row is made once per claim item, in the plugin,
serialised with :meth:`Row.to_dict` for pytest-xdist and ``results.json``, and read back with :meth:`Row.from_dict`
by the one loader (:func:`llm_claims_harness.results.load`) that the merge, the Markdown, the comparison and the
catalogue share.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from llm_claims_harness.text import utf8
from llm_claims_harness.tolerance import Tolerance


def _f(doc: str, **kwargs: Any) -> Any:
    return dataclasses.field(metadata={"doc": doc}, **kwargs)


def jsonable(value: Any) -> Any:
    """Plain JSON types only: numpy scalars and 0-d arrays become Python numbers (a row must also cross
    pytest-xdist's channel, which refuses anything else), non-finite floats their text, and text as UTF-8 holds it
    (:func:`llm_claims_harness.text.utf8`: a path or an argument the locale could not decode)."""
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        value = value.item()  # numpy scalar or 0-d tensor
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {utf8(str(k)): jsonable(v) for k, v in value.items()}
    if isinstance(value, str):
        return utf8(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return utf8(str(value))


@dataclasses.dataclass(frozen=True)
class Revision:
    """An expectation changed after measuring: the verdict registered before any measurement (``preregistered``,
    ``holds``/``refuted``, or ``none`` for a regression check), where it came from (``source``), ``why`` it
    changed, on what committed ``evidence`` (a file of the repository and its part: seeds disjoint from the run's),
    measured under which ``code`` (the training code's digest the evidence records). The report marks such a row and
    counts it apart: a finding of the suite, not a prediction that held. A fixed input's regression check pins what
    that input gave; its evidence is the value itself, and the row says so."""

    preregistered: str
    source: str
    why: str
    evidence: str
    code: str


@dataclasses.dataclass(frozen=True)
class Quote:
    """The sentence a row tests, from its post: ``text``, the post's own words (in its language, shortened with
    ``…``), and ``gloss``, an English gloss of them."""

    text: str
    gloss: str


UNNAMED_KIND = "unnamed"  # the kind of a row of a report written before rows named their kind (the first schema)


@dataclasses.dataclass(frozen=True)
class Reading:
    """A reading a row had before its current one, as a committed report measured it: the claim's ``version``, the
    date and commit of the first committed report that shows it (``since``, ``commit``), its ``kind``, ``statement``,
    ``tolerance`` (as the report wrote it: ``≥ 2000``) and ``expected`` verdict, the ``verdict`` and ``measured``
    value of the last committed report under it, and ``why`` it was replaced (the version note of the reading after
    it; empty: the row's own version note). A suite records these (the ``pytest_claims_readings`` hook); the report
    marks the row and says, for each change, whether it moved the post's count up, down, or left it
    (:func:`llm_claims_harness.report.reading_steps`). A reading of a report that named no kinds has kind
    :data:`UNNAMED_KIND`."""

    version: int
    since: str
    commit: str
    kind: str
    statement: str
    tolerance: str
    expected: str
    verdict: str
    measured: Any
    why: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.version, int) or self.version < 1:
            raise ValueError(f"a reading's version must be a positive integer, got {self.version!r}")
        empty = [name for name in ("since", "commit", "kind", "statement", "tolerance", "expected", "verdict")
                 if not isinstance(getattr(self, name), str) or not getattr(self, name).strip()]
        if empty:
            raise ValueError(f"a reading needs {', '.join(empty)}")


@dataclasses.dataclass(frozen=True)
class Declared:
    """What one row of a claim declares (a claim, or one of its cases, with the case's overrides applied)."""

    id: str = _f("`claim_id`, or `claim_id[case]` for a case")
    claim_id: str = _f("the claim's stable dotted id")
    case: str | None = _f("the case id (`null`: the claim has no cases)")
    post: str | None = _f("the registered post the row comes from (`null`: none)")
    section: str | None = _f("the post's section, a registered section id (`null` without a post)")
    kind: str = _f("`post` (the post's claim, read charitably), `literal` (a literal reading, never counted against "
                   "the post), `beyond` (beyond the post, citing a paper) or `control`; `unnamed` in a row read from a "
                   "report of the first schema, which named no kinds")
    source: str = _f("where the claim comes from, in words (post, section, the paper)")
    statement: str = _f("the claim, in our words")
    post_value: Any = _f("the post's number (`null` when it gives none)")
    unit: str = _f("the unit of `post_value` and `measured`")
    tolerance: Tolerance = _f("how the value is judged: `kind` (`close`, `at_most`, `at_least`), `bound` and `strict` "
                              "(bounds), `atol` and `rtol` (`close`: |measured − reference| ≤ atol + rtol·|reference|), "
                              "`reason` (where the number comes from)")
    expected_verdict: str = _f("`holds` or `refuted`, decided before measuring")
    expect_source: str = _f("where the expected verdict comes from: the post's sentence, arithmetic, a paper, a "
                            "control's design")
    preregistered_expect: str = _f("the expectation registered before any measurement (as `expected_verdict` unless "
                                   "`revision`)")
    preregistered_source: str = _f("where the pre-registered expectation came from")
    revision: Revision | None = _f("`null`, or why the expectation changed after measuring: `preregistered`, "
                                   "`source`, `why`, `evidence` (a committed file), `code` (its code digest)")
    quote: Quote | None = _f("for a `post` or `literal` row, the post's sentence it tests: `text` (its own words, "
                             "shortened) and `gloss` (English); else `null`")
    version: int = _f("the claim's version (bumped when its protocol, tolerance or expectation changes)")
    version_note: str = _f("what changed at the last version bump, and why")
    deviation: str = _f("how our protocol differs from the post's (empty: it does not)")
    reference_source: str = _f("what the test computes as `reference`, in words (empty: the reference is the post's "
                               "value, or there is none)", default="")
    basis: str = _f("what the value rests on: `measured`, `computed` (arithmetic on given numbers or a library's "
                    "constant) or `construction` (true by construction); the report counts the last two apart from "
                    "the measured confirmations", default="measured")


@dataclasses.dataclass(frozen=True)
class Row(Declared):
    """A report row: a :class:`Declared` row, the item it ran as, what the measurement found, and the run."""

    topic: str = _f("the report topic: the test module's docstring title", default="")
    nodeid: str = _f("the pytest node id of the item", default="")
    verdict: str = _f("`holds`, `refuted`, `inconclusive`, `skipped` or `error`", default="skipped")
    reason: str = _f("why a row was skipped, errored or is inconclusive", default="")
    measured: Any = _f("the measured value (a number, a bool, a string or a nested list)", default=None)
    reference: Any = _f("what a `close` tolerance compared against", default=None)
    max_abs_diff: float | None = _f("the largest |measured − reference| of a `close` judgement", default=None)
    details: dict = _f("further measured values", default_factory=dict)
    noise_sd: float | None = _f("the SD of a stochastic value (`null`: exact)", default=None)
    margin_sigma: float | None = _f("the signed distance to the nearest bound in SDs, positive on the holding side",
                                    default=None)
    interval: list[float] | None = _f("`[low, high]` at the 99.73 % level for a value judged by its interval (a "
                                      "share's exact binomial interval)", default=None)
    figures: list[str] = _f("figure paths relative to the report directory", default_factory=list)
    duration_s: float | None = _f("seconds the test took", default=None)
    device: str = _f("where the row measured (`cpu`, `cuda:0`, …)", default="cpu")
    as_expected: bool | None = _f("whether a decided verdict is the expected one (`null`: undecided or not measured)",
                                  default=None)
    run: str = _f("the id of the run that measured the row (a key of the document's `runs`)", default="")
    inputs: dict[str, str] = _f("what the row read, by name: `sha256:<hex>` of a file's bytes, `fingerprint:<hex>` of "
                                "trained weights (the hash of everything they depend on: configuration, code, library "
                                "versions, device); named by "
                                "the fixtures that provide them", default_factory=dict)
    readings: list[dict] = _f("the readings this row had before its current one, oldest first, each as a committed "
                              "report measured it (:class:`Reading`: `version`, `since`, `commit`, `kind`, `statement`, "
                              "`tolerance`, `expected`, `verdict`, `measured`, `why`); empty: none recorded",
                              default_factory=list)
    readings_note: str = _f("what of the row's earlier readings no committed report shows (empty: nothing missing)",
                            default="")

    @classmethod
    def made(cls, declared: Declared, **found: Any) -> Row:
        """A row from a claim's :class:`Declared` fields and what the run found, every value a plain JSON type."""
        plain = {k: jsonable(v) for k, v in found.items() if k not in ("figures", "details", "interval")}
        return cls(**{f.name: getattr(declared, f.name) for f in dataclasses.fields(Declared)}, **plain,
                   details=jsonable(found.get("details") or {}), figures=list(found.get("figures") or []),
                   interval=None if found.get("interval") is None else jsonable(list(found["interval"])))

    def finished(self, *, duration_s: float, device: str, run: str, inputs: dict[str, str] | None = None) -> Row:
        """This row with the run's facts: how long the test took, where it measured, which run, the inputs it read
        (:mod:`llm_claims_harness.provenance`), and whether its decided verdict is the declared one (``None`` for
        skipped and inconclusive rows)."""
        undecided = self.verdict in ("skipped", "inconclusive")
        return dataclasses.replace(self, duration_s=round(duration_s, 3), device=device, run=run,
                                   inputs=dict(inputs or {}),
                                   as_expected=None if undecided else self.verdict == self.expected_verdict)

    def with_history(self, readings: list[Reading], note: str) -> Row:
        """This row with the suite's record of its earlier readings (oldest first) and what of them no committed
        report shows."""
        return dataclasses.replace(self, readings=[jsonable(dataclasses.asdict(r)) for r in readings],
                                   readings_note=note)

    def to_dict(self) -> dict:
        """The row as plain JSON types, keys in field order (nested types as objects)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Row:
        """The row a :meth:`to_dict` dict holds.

        Raises:
            TypeError / ValueError: a field is missing or malformed.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown row fields {sorted(unknown)}")
        tol = data.get("tolerance")
        if not isinstance(tol, dict):
            raise ValueError(f"row {data.get('id')!r}: tolerance must be an object, got {tol!r}")
        nested = {"tolerance": Tolerance(**tol),
                  "revision": Revision(**data["revision"]) if data.get("revision") else None,
                  "quote": Quote(**data["quote"]) if data.get("quote") else None}
        return cls(**{**data, **nested})


def readings_of(records: Mapping[str, Any]) -> dict[str, tuple[list[Reading], str]]:
    """A suite's record of earlier readings (the ``pytest_claims_readings`` hook's answer), checked: each row id's
    :class:`Reading` list and note.

    Raises:
        ValueError: a record is not the shape the hook's documentation gives, naming the row.
    """
    out = {}
    for rid, record in dict(records).items():
        try:
            readings = [Reading(**r) for r in record.get("readings", [])]
            note = record.get("note", "")
            if not isinstance(note, str):
                raise ValueError(f"note must be text, got {note!r}")
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"the record of {rid!r}: {exc}") from None
        out[rid] = (readings, note)
    return out


def fields_doc() -> list[tuple[str, str]]:
    """``(name, description)`` of every row field, in order: the schema's one statement."""
    return [(f.name, f.metadata["doc"]) for f in dataclasses.fields(Row)]
