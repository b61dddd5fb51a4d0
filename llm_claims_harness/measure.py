"""What a claim test touches: the ``verify`` fixture that judges its measurement and keeps the row, the
seeds, and the figures it may draw for the report (``figures_dir``, ``figure``). Registered by the plugin
(:mod:`llm_claims_harness.plugin`), which imports these fixtures.
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from llm_claims_harness import provenance, report
from llm_claims_harness.declare import (DECISION_SIGMAS, INCONCLUSIVE, Claim, ClaimDeclarationError,
                                        Tolerance, flatten)
from llm_claims_harness.place import make_report_dir, report_dir
from llm_claims_harness.plan import RunPlan, plan
from llm_claims_harness.row import Row
from llm_claims_harness.samples import Sample

ROW = pytest.StashKey[Row]()
SAMPLES = pytest.StashKey[list]()  # the per-item log of a row that scores items (verify(..., samples=...))
FAILED_BY_VERDICT = pytest.StashKey[bool]()
# what the run's own output could not write (a figure): {"path", "error", "errno"}, forwarded to the controller with the
# report of the test that met it, and said in one line there
OUTPUT_FAULTS = pytest.StashKey[list[dict[str, Any]]]()  # verify() itself failed the test: the verdict is not the expected one
DECISION_LEVEL = math.erf(DECISION_SIGMAS / math.sqrt(2))  # 0.9973: the level of a value judged by its interval
_FIGURE = re.compile(r"^(?!/)(?!.*(^|/)\.\.(/|$))[\w./-]+$")  # a relative path inside the report directory


class ClaimError(AssertionError):
    """A claim test misused the harness (e.g. returned without calling ``verify``)."""


class ClaimInconclusiveWarning(pytest.PytestWarning):
    """A stochastic claim's value lies within its noise of a tolerance bound: neither holds nor refuted.
    The test passes with this warning; ``--claims-strict`` fails it instead."""


@pytest.fixture(scope="session")
def run_plan(pytestconfig: pytest.Config) -> RunPlan:
    """The run's plan: seeds and device, decided once at configure time (:class:`~llm_claims_harness.plan.RunPlan`)."""
    return plan(pytestconfig)


@pytest.fixture(scope="session")
def seed(run_plan: RunPlan) -> int:
    """The run's seed (``--claims-seed``; default 42)."""
    return run_plan.seed


@pytest.fixture(scope="session")
def seeds(run_plan: RunPlan) -> list[int]:
    """Seeds of trained claims: ``--claims-seed`` and the ``--claims-seeds`` − 1 after it (default: [42])."""
    return list(run_plan.seeds)


@pytest.fixture(scope="session")
def figures_dir(pytestconfig: pytest.Config) -> Path | None:
    """``<report dir>/figures``, where figures that report rows link to as ``figures/<name>`` go (created when the
    first figure is drawn, so a run that writes none leaves no empty directory); ``None`` under
    ``--no-claims-report``, when nothing may be written."""
    if pytestconfig.getoption("no_claims_report"):
        return None
    return report_dir(pytestconfig) / "figures"


@pytest.fixture(scope="session")
def figure(figures_dir: Path | None, pytestconfig: pytest.Config) -> Callable[[str, Callable[[Path], None]], list[str]]:
    """``figure(name, draw)``: call ``draw(path)`` to write ``<report dir>/figures/<name>`` (once per process:
    the cases of a claim share a figure) and return the link ``["figures/<name>"]`` to pass as
    ``verify(..., figures=...)``; under ``--no-claims-report`` nothing is drawn and the list is empty. Draw
    from what was measured, after measuring, so that a figure never changes a value, and write atomically
    (a temporary file moved onto the name). A figure that cannot be written (an ``OSError``: a full disk, a
    read-only or unwritable directory) is no error of the row: the link is left out (``[]``), the fault recorded
    for the run's one line about it (:data:`OUTPUT_FAULTS`), and a ``figures/`` made for it and left empty removed."""
    drawn: set[str] = set()
    failed: set[str] = set()  # tried once and not written: the claim's other cases link no figure either

    def _figure(name: str, draw: Callable[[Path], None]) -> list[str]:
        if not _FIGURE.match(name) or "/" in name:
            raise ClaimError(f"figure name {name!r}: expected a plain file name such as 'pe_heatmap.png'")
        if figures_dir is None or name in failed:
            return []
        if name not in drawn:
            made = not figures_dir.exists()
            try:
                make_report_dir(pytestconfig)
                figures_dir.mkdir(exist_ok=True)
                draw(figures_dir / name)
            except OSError as exc:
                if made:
                    with contextlib.suppress(OSError):  # only when empty: another figure may be there by now
                        figures_dir.rmdir()
                pytestconfig.stash.setdefault(OUTPUT_FAULTS, []).append(
                    {"path": str(figures_dir / name), "error": exc.strerror or str(exc), "errno": exc.errno})
                failed.add(name)
                return []
            drawn.add(name)
        return [f"figures/{name}"]

    return _figure


def spec_of(item: pytest.Item) -> Claim | None:
    """The item's declared :class:`Claim` (``None`` for a plain test).

    Raises:
        pytest.UsageError: a bare ``claim`` marker without a declaration.
    """
    marker = item.get_closest_marker("claim")
    if marker is None:
        return None
    if not marker.args or not isinstance(marker.args[0], Claim):
        raise pytest.UsageError(f"{item.nodeid}: declare claims with llm_claims_harness.declare.claim(...), not a bare marker")
    return marker.args[0]


def case_id(item: pytest.Item) -> str | None:
    """The item's parameter id (its sub-case), ``None`` when it is not parametrised."""
    callspec = getattr(item, "callspec", None)
    return callspec.id if callspec is not None else None


def row_id(item: pytest.Item) -> str:
    """The report's id of the row a claim item measures: the claim id, with ``[case]`` for a sub-case.

    Raises:
        pytest.UsageError: the item is not a claim, or its parameter id is not a declared case.
    """
    spec = spec_of(item)
    if spec is None:
        raise pytest.UsageError(f"{item.nodeid} is not a declared claim")
    try:
        return spec.resolve(case_id(item)).id
    except ClaimDeclarationError as exc:
        raise pytest.UsageError(f"{item.nodeid}: {exc}") from None


def topic_of(item: pytest.Item) -> str:
    """The report topic of a claim item: its module docstring's first line (else its file)."""
    doc = (getattr(getattr(item, "module", None), "__doc__", None) or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else item.nodeid.split("::")[0]


@pytest.fixture
def verify(request: pytest.FixtureRequest):
    """Judge a measurement against the test's declared claim.

    ``verify(measured, reference=None, details=None, noise=None, interval=None, figures=(), samples=None)``:
    ``measured`` is a
    number, a bool, a string or a nested list of them; ``reference`` is what a ``close`` tolerance compares against
    when the test computes it, given exactly when the row declares ``reference=`` in words (default: the post's
    value); ``details`` is a dict of further measured values shown in the report;
    ``noise`` is the standard deviation of a stochastic ``measured`` (one number, its unit), from which
    the row's ``margin_sigma`` (signed distance to the nearest bound in SDs, positive on the holding
    side) is computed: within ``DECISION_SIGMAS`` of a bound the verdict is ``inconclusive``, which
    passes with a :class:`ClaimInconclusiveWarning` (fails under ``--claims-strict``); ``interval`` is instead
    the ``(low, high)`` interval of ``measured`` at :data:`DECISION_LEVEL` (a share:
    an exact binomial interval, which a symmetric SD would misstate near 0 or 1), and the verdict is
    ``inconclusive`` when a bound lies inside it; ``figures`` are the
    row's figures, paths relative to the report directory (``figures/<name>``, as :func:`figure` returns them),
    which the report links from the row; ``samples`` is the per-item log of a row that scores items (one
    :class:`~llm_claims_harness.samples.Sample` per item: its id, input, target, prediction and score, e.g. a word
    pair, its human score and its cosine), written to ``samples.jsonl`` beside ``results.json``
    (lm-evaluation-harness's ``--log_samples``). Fails the test when a decided verdict differs from the declared ``expect``; returns the verdict.

    Raises:
        ClaimError: the test is not a declared claim, ``verify`` is called twice, the value does not
            fit the tolerance (e.g. a list given to ``at_most``), ``noise`` is not a positive number, an
            ``interval`` is given with ``noise``, to a ``close`` tolerance or without ``measured`` inside it, a
            figure path is not relative to the report directory, ``samples`` is not a list of ``Sample`` or repeats an item id, or
            ``reference`` is given to a row that declares none, or missing from one that declares it.
    """
    item = request.node
    spec = spec_of(item)
    if spec is None:
        raise ClaimError(f"{item.nodeid} uses `verify` but is not declared with @claim(...)")
    fields = spec.resolve(case_id(item))
    provenance.track(request)  # the row names the inputs of the fixtures the test asks for as it runs, too

    def _verify(measured: Any, *, reference: Any = None, details: dict | None = None,
                noise: float | None = None, interval: tuple[float, float] | None = None,
                figures: list[str] | tuple[str, ...] = (), samples: list[Sample] | None = None) -> str:
        __tracebackhide__ = True  # a misuse is reported in one line, at the test's own call
        if ROW in item.stash:
            raise ClaimError(f"claim {fields.id!r}: verify() called twice; one test, one measurement")
        if samples is not None and (not isinstance(samples, (list, tuple))
                                    or not all(isinstance(s, Sample) for s in samples)):
            raise ClaimError(f"claim {fields.id!r}: samples must be a list of Sample(item_id=, input=, target=, "
                             "prediction=, score=), one per scored item (llm_claims_harness.samples)")
        repeated = [k for k, n in Counter(s.item_id for s in samples or ()).items() if n > 1]
        if repeated:
            raise ClaimError(f"claim {fields.id!r}: samples repeat item_id {repeated[0]!r}; each item's id is unique "
                             "within its row")
        if isinstance(figures, str):
            raise ClaimError(f"claim {fields.id!r}: figures must be a list of paths, got the string {figures!r}")
        bad = [f for f in figures if not isinstance(f, str) or not _FIGURE.match(f)]
        if bad:
            raise ClaimError(f"claim {fields.id!r}: figures must be paths relative to the report directory, "
                             f"e.g. 'figures/x.png'; got {bad[0]!r}")
        if any(isinstance(v, float) and math.isnan(v) for v in flatten(measured)):
            raise ClaimError(f"claim {fields.id!r}: the measured value is NaN: a broken measurement is an error, "
                             "never a verdict")
        if (reference is None) == bool(fields.reference_source):
            raise ClaimError(f"claim {fields.id!r} declares reference={fields.reference_source!r} but verify() got "
                             "none" if fields.reference_source else f"claim {fields.id!r}: verify() got reference={reference!r}, and the "
                             "declaration says of none: declare reference='what the test computes' beside the tolerance")
        tolerance = fields.tolerance
        ref = reference if reference is not None else fields.post_value
        margin_sigma = None
        try:
            holds, gap = tolerance.judge(measured, ref)
            if noise is not None:
                if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not noise > 0:
                    raise ValueError(f"noise must be a positive standard deviation, got {noise!r}")
                margin_sigma = tolerance.margin(measured, ref) / noise
            undecided = interval is not None and not _interval_decides(tolerance, measured, interval, noise)
        except ValueError as exc:
            raise ClaimError(f"claim {fields.id!r}: {exc}") from None
        verdict = "holds" if holds else "refuted"
        if margin_sigma is not None and math.isfinite(margin_sigma) and abs(margin_sigma) < DECISION_SIGMAS:
            verdict = INCONCLUSIVE
        verdict = INCONCLUSIVE if undecided else verdict
        why = ""
        if verdict == INCONCLUSIVE and interval is not None:
            why = (f"measured {report.show(measured)}, {100 * DECISION_LEVEL:.2f} % interval "
                   f"[{report.show(interval[0])}, {report.show(interval[1])}], contains a bound of {tolerance.describe()}")
        elif verdict == INCONCLUSIVE:
            why = (f"measured {report.show(measured)} ± {report.show(noise)} (1 SD) lies {margin_sigma:+.2f} SD from "
                   f"a bound of {tolerance.describe()}; decided only beyond ±{DECISION_SIGMAS:g} SD")
        item.stash[ROW] = Row.made(fields, nodeid=item.nodeid, topic=topic_of(item), verdict=verdict,
                                   measured=measured, reference=ref, max_abs_diff=gap, details=details or {},
                                   noise_sd=noise, reason=why, figures=list(figures), interval=interval,
                                   margin_sigma=None if margin_sigma is None else round(margin_sigma, 3))
        if samples is not None:
            item.stash[SAMPLES] = [s.fields() for s in samples]
        if verdict == INCONCLUSIVE:
            message = (f"claim {fields.id!r} is inconclusive: {why} (more seeds narrow a "
                       "seed noise, more items an evaluation set's)")
            if request.config.getoption("claims_strict"):
                item.stash[FAILED_BY_VERDICT] = True
                pytest.fail(message + " [--claims-strict]", pytrace=False)
            warnings.warn(ClaimInconclusiveWarning(message), stacklevel=2)
        elif verdict != fields.expected_verdict:
            item.stash[FAILED_BY_VERDICT] = True
            pytest.fail(
                f"claim {fields.id!r} was expected to be {fields.expected_verdict} but the measurement "
                f"says {verdict}: measured {report.show(measured)}"
                + (f", reference {report.show(ref)}" if ref is not None else "")
                + (f", max |Δ| {gap:.3g}" if gap is not None else "")
                + f"; tolerance {tolerance.describe()} ({tolerance.reason})",
                pytrace=False,
            )
        return verdict

    _verify.decides = lambda low, high: decides(fields.tolerance, low, high)  # type: ignore[attr-defined]  # asked before measuring
    return _verify


def decides(tolerance: Tolerance, low: float, high: float) -> bool:
    """Whether every value of ``[low, high]`` gets the same verdict from the tolerance's bound (``at_most`` /
    ``at_least``), i.e. the bound lies outside it. A claim test asks it as ``verify.decides(low, high)``, e.g.
    whether its n items could decide even at 0 % or 100 %. Unit: the measured value's.

    Raises:
        ValueError: a ``close`` tolerance (an interval is judged against a bound), or ``low > high``.
    """
    if tolerance.kind == "close":
        raise ValueError("an interval is judged against a bound (at_most / at_least), not a 'close' tolerance")
    if low > high:
        raise ValueError(f"interval [{low}, {high}] has its low end above its high end")
    return tolerance.judge(low)[0] == tolerance.judge(high)[0]


def _interval_decides(tolerance: Tolerance, measured: Any, interval: Any, noise: Any) -> bool:
    """Whether ``interval`` (``(low, high)`` around ``measured``) lies wholly on one side of the tolerance's bound.

    Raises:
        ValueError: ``noise`` given too, not two numbers, ``measured`` outside the interval, or as :func:`decides`.
    """
    if noise is not None:
        raise ValueError("give a value's noise as an SD (noise=) or as an interval (interval=), not both")
    if (not isinstance(interval, (tuple, list)) or len(interval) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in interval)):
        raise ValueError(f"interval must be (low, high), two numbers; got {interval!r}")
    decided = decides(tolerance, *interval)
    if not interval[0] <= measured <= interval[1]:
        raise ValueError(f"interval [{interval[0]}, {interval[1]}] does not contain the measured value {measured}")
    return decided
