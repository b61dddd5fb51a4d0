"""The pytest plugin that turns measurements into verdicts and verdicts into a report.

Flow: a claim test (declared with :func:`llm_claims_harness.declare.claim`) calls ``verify(measured)``; the verdict
and the row are stored on the item; ``pytest_runtest_makereport`` puts the row on the test report's
``user_properties`` (which pytest-xdist ships to the controller), with the row's items when it logs them, and its
facts on the item's ``user_properties`` (for JUnit XML, as ``record_property``); the controller's :class:`RunState`
collects rows and writes the report at session end (:mod:`llm_claims_harness.results`: ``results.json``,
``samples.jsonl``, ``SCHEMA.md``, the pages of :mod:`llm_claims_harness.pages`). Serial and ``-n N`` runs thus give
the same rows. What the harness cannot know, the suite tells it through hooks (:mod:`llm_claims_harness.hooks`): its
posts (checked against every claim at collection), its device (for the run plan, :mod:`llm_claims_harness.plan`), its
environment, its rows' earlier readings. The fixtures a claim test uses (``verify``, ``seed``, ``seeds``,
``run_plan``, ``figures_dir``, ``figure``) live in :mod:`llm_claims_harness.measure`.
"""

from __future__ import annotations

import errno
import functools
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from llm_claims_harness import collection, environment, hooks, options, provenance, report, results, selection
from llm_claims_harness.declare import ClaimDeclarationError
from llm_claims_harness.measure import (  # noqa: F401  (fixtures and names the plugin registers and exports)
    FAILED_BY_VERDICT, OUTPUT_FAULTS, ROW, SAMPLES, ClaimError, ClaimInconclusiveWarning, case_id, figure, figures_dir,
    row_id, run_plan, seed, seeds, spec_of, topic_of, verify)
from llm_claims_harness.pages import ReportBudgetError
from llm_claims_harness.place import (check_report_dir, committed_dir, make_report_dir, output_fault_lines,
                                      report_dir, start_from)
from llm_claims_harness.plan import PLAN, RunPlan, plan
from llm_claims_harness.posts import PostRegistryError, Registry
from llm_claims_harness.row import Row
from llm_claims_harness.text import plural

STATE = pytest.StashKey["RunState"]()
RUN_ID = pytest.StashKey[str]()
REGISTRY = pytest.StashKey[Registry]()
_PROPERTY, _SAMPLES, _FAULT = "claim_row", "claim_samples", "claim_output_fault"  # what a test report carries
# of an error row's exception, kept as its reason: a suite's one-line input fault (file, both hashes, the fix: about
# 600 characters) whole; a long assertion diff cut
ERROR_CHARS = 1000
# the row's facts that reach JUnit XML as properties (what record_property writes), each prefixed "claim."
JUNIT_FIELDS = ("id", "kind", "post", "section", "verdict", "expected_verdict", "as_expected", "measured", "unit",
                "noise_sd", "interval", "reason", "run")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add(parser)


class RunState:
    """The controller's view of a run (a plugin object, one per config): rows measured, claims
    collected; writes the report at the end. On an xdist worker it only forwards what it collected."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.rows: dict[str, Row] = {}
        self.samples: dict[str, list[dict]] = {}  # row id -> its per-item log, for rows that score items
        self.collected: results.Collected = {}  # test file -> {claim row id declared there: its claim's version}
        self.started = time.time()
        self.written: Path | None = None
        self.warning = ""
        self.unwritten = ""  # why the report could not be written, when it could not
        self.signal = ""  # the Ctrl-C or pytest.exit() that ended the run, when one did
        self.output_faults: list[dict[str, Any]] = []  # what the run's own output could not write (OUTPUT_FAULTS)
        self.history = collection.readings(config)  # the suite's record of earlier readings, checked before measuring

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == _PROPERTY and isinstance(value, dict):
                row = Row.from_dict(value)
                self.rows[row.id] = row
            elif name == _SAMPLES and isinstance(value, dict):
                self.samples[value["id"]] = value["samples"]
            elif name == _FAULT and isinstance(value, dict):
                self.output_faults.append(value)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """xdist controller: learn what the workers collected (each worker collects everything)."""
        self.collected.update(getattr(node, "workeroutput", {}).get("claims_collected", {}))

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo) -> None:
        self.signal = f"{excinfo.typename}: {excinfo.value}".removesuffix(": ")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        config = self.config
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and collection.only_listed(config):
            session.exitstatus = pytest.ExitCode.OK
        if hasattr(config, "workerinput") or config.getoption("no_claims_report") or not self.rows:
            return
        if self.output_faults:  # the rows were measured; the report lacks their figures
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        out = report_dir(config)
        env = environment.describe(config, plan(config), wall_s=time.time() - self.started,
                                   interrupted=environment.interruption(session, exitstatus, self.signal))
        try:
            committed = committed_dir(config)
            self.written, self.warning = results.write(make_report_dir(config), results.Measured(
                run=run_id(config), environment=env, rows=self.rows, samples=self.samples, collected=self.collected,
                root=config.rootpath, history=self.history), config.stash[REGISTRY], prepare=functools.partial(
                    start_from, committed, started=self.started) if committed else None)
        except OSError as exc:  # all files are written or none (write_texts_atomic)
            fix = "free space on its disk, or name" if exc.errno == errno.ENOSPC else "name"
            self.unwritten = (f"the report could not be written to {out} ({exc.strerror or exc}); the rows above "
                              f"were measured. Fix: {fix} a writable --claims-report-dir")
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        except ReportBudgetError as exc:
            self.unwritten = f"the report was not written to {out}: {exc}"
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        notes = {rid: d.get("version_note", "") for ids in self.collected.values() for rid, d in ids.items()}
        hints = selection.unmatched_hints(self.config.option.keyword, notes) if notes else []
        if hints or self.rows:
            terminalreporter.section("claims")
        for line in hints:
            terminalreporter.write_line(line, yellow=True)
        if not self.rows:
            return
        unexpected = sorted(r.id for r in self.rows.values() if r.as_expected is False)
        terminalreporter.write_line(f"{plural(len(self.rows), 'claim row')} measured")
        for line in report.summary_lines(self.rows.values()):
            terminalreporter.write_line("  " + line)
        if revised := report.revised(self.rows.values()):
            terminalreporter.write_line(f"{report.REVISED} rows whose expectation was set after an earlier measurement "
                                        "(findings and regression checks, counted apart; not changes made by this "
                                        "run): " + ", ".join(revised))
        inconclusive = report.inconclusive(self.rows.values())
        if inconclusive:
            terminalreporter.write_line("inconclusive (value within its noise of a bound, or a bound inside its "
                                        "interval; more seeds narrow a seed noise, more items an evaluation set's): "
                                        + ", ".join(inconclusive), yellow=True)
        if unexpected:
            terminalreporter.write_line("not as expected: " + ", ".join(unexpected), red=True)
        if self.warning:
            terminalreporter.write_line(f"report: {self.warning}", yellow=True)
        if self.written:
            terminalreporter.write_line(f"report: {self.written}")
        if self.unwritten:
            terminalreporter.write_line(f"report: {self.unwritten}", red=True)
        for line in output_fault_lines(self.output_faults) if not self.unwritten else ():  # else said above
            terminalreporter.write_line(f"report: {line}", red=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand this run's id to each worker."""
    node.workerinput["claims_run_id"] = node.config.stash[RUN_ID]


@pytest.hookimpl(tryfirst=True)  # the run plan exists before the suite's own pytest_configure runs
def pytest_configure(config: pytest.Config) -> None:
    """Set up the run: its id, the suite's posts, the run plan, the run state. Nothing a user sees happens in a
    suite that uses no claim (issue 33: inert until used): the report directory is checked here only for a suite
    that declares posts or a run that names the directory, else when collection finds a claim."""
    config.addinivalue_line("markers", "claim(spec): a declared claim (added by llm_claims_harness.declare.claim); "
                                       "select all with -m claim, one row with -k '<row id>'")
    if config.getoption("claims_regenerate") and config.getoption("claims_report_dir"):
        raise pytest.UsageError("--claims-regenerate writes the committed report (<rootdir>/reports); "
                                "--claims-report-dir names another place: give one of them")
    for only_collects in ("claims_catalogue", "claims_list"):
        if config.getoption(only_collects):
            if config.getoption("numprocesses", None):
                raise pytest.UsageError(f"--{only_collects.replace('_', '-')} only collects; run it without -n")
            config.option.collectonly = True
    workerinput = getattr(config, "workerinput", {})
    config.stash[RUN_ID] = workerinput.get("claims_run_id") or uuid.uuid4().hex
    try:
        config.stash[REGISTRY] = Registry.of(config.hook.pytest_claims_posts(config=config))
    except PostRegistryError as exc:
        raise pytest.UsageError(f"pytest_claims_posts: {exc}") from None
    collection.check_posts(config, config.stash[REGISTRY])
    config.stash[PLAN] = RunPlan.of(config)
    state = RunState(config)
    config.stash[STATE] = state
    config.pluginmanager.register(state, "claims-run-state")
    config.pluginmanager.register(collection, "claims-collection")  # its --claims-list
    if config.stash[REGISTRY].posts or config.getoption("claims_report_dir"):
        check_report_dir(config)


def pytest_report_header(config: pytest.Config) -> str | None:
    """The run plan in pytest's header, as pytest-randomly prints its seed: what reproduces the run. Only for a suite
    that declares posts (inert elsewhere)."""
    if hasattr(config, "workerinput") or not config.stash[REGISTRY].posts:
        return None
    run = plan(config)
    drawn = f"seeds {run.seeds[0]}–{run.seeds[-1]}" if len(run.seeds) > 1 else f"seed {run.seed}"
    out = "no report" if config.getoption("no_claims_report") else f"report {report_dir(config)}"
    return f"claims: {drawn} (--claims-seed, --claims-seeds), device {run.device_name}, {out}"


def run_id(config: pytest.Config) -> str:
    """This run's id, the same on the xdist controller and every worker."""
    return config.stash[RUN_ID]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse duplicate ids, make claim ids selectable with ``-k``, and remember every row the test files this run
    imported declare (read from their declarations, whatever pytest collected or deselects of them: a node id,
    ``--lf``, ``-k``), so the report can tell a stale row from an unrun one."""
    owner: dict[str, str] = {}
    state, registry = config.stash[STATE], config.stash[REGISTRY]
    modules: dict[str, pytest.Module] = {}  # test file -> its module, for every file some item came from
    for item in items:
        module = item.getparent(pytest.Module)
        if module is not None:
            modules.setdefault(item.nodeid.split("::")[0], module)
        spec = spec_of(item)
        if spec is None:
            continue
        function = item.nodeid.split("[")[0]
        if owner.setdefault(spec.id, function) != function:
            raise pytest.UsageError(f"claim id {spec.id!r} is declared twice: {owner[spec.id]} and {function}")
        rid = row_id(item)  # a usage error for a parameter id that is not a declared case
        section = (resolved := spec.resolve(case_id(item))).section
        if spec.post is not None:
            try:
                registry.post(spec.post)[1].section(section or "")
            except PostRegistryError as exc:
                hint = "" if registry.posts else (f" (no conftest.py or plugin of this run answered it: rootdir "
                                                  f"{config.rootpath}; run pytest where the suite's conftest.py is)")
                raise pytest.UsageError(f"{function}: {ClaimDeclarationError.__name__}: claim {spec.id!r}: {exc}"
                                        f"{hint}") from None
        item.extra_keyword_matches.update((spec.id, rid))  # `-k 'pe.sin.shift_is_linear_map[k1]'`
        state.collected.setdefault(item.nodeid.split("::")[0], {})[rid] = collection.declared(resolved)  # see below
    for file, module in modules.items():  # every row its file declares (a test's own parametrisation: above)
        declared = {row.id: collection.declared(row) for row in collection.rows_declared(module)}
        if declared:
            state.collected[file] = {**declared, **state.collected.get(file, {})}
    if state.collected and not (registry.posts or config.getoption("claims_report_dir")):
        check_report_dir(config)  # claims in a suite that declares no post: checked now, before measuring
    if hasattr(config, "workeroutput"):  # xdist worker: the controller reads this when we finish
        config.workeroutput["claims_collected"] = state.collected
    collection.select_posts(config, items)
    if not session.testsfailed:  # not after a collection error
        collection.catalogue_only(config, items, modules, registry)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    provenance.call_started(item)
    result = yield
    if spec_of(item) is not None and ROW not in item.stash:
        pytest.fail(f"{item.nodeid}: a claim test must end by calling verify(measured)", pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    rep = yield
    faults = item.config.stash.get(OUTPUT_FAULTS, [])
    while faults:  # met while this test (or a fixture it set up) drew: to the controller with its report
        rep.user_properties.append((_FAULT, faults.pop(0)))
    spec = spec_of(item)
    if spec is None or rep.when == "teardown" or (rep.when == "setup" and rep.passed):
        return rep
    if ROW in item.stash and (rep.passed or item.stash.get(FAILED_BY_VERDICT, False)):
        row = item.stash[ROW]
    else:  # skipped, or raised before measuring, or after (a row whose test then failed is no verdict)
        after = "the test failed after verify(): " if ROW in item.stash else ""
        if rep.skipped:
            verdict, reason = "skipped", _skip_reason(rep)
        else:
            excinfo = call.excinfo
            text = f"{excinfo.typename}: {excinfo.value}" if excinfo else rep.longreprtext
            verdict, reason = "error", after + " ".join(text.split())[:ERROR_CHARS]
        row = Row.made(spec.resolve(case_id(item)), nodeid=item.nodeid, topic=topic_of(item), verdict=verdict,
                       reason=reason)
    device = item.config.hook.pytest_claims_item_device(item=item, device=plan(item.config).device) or "cpu"
    row = row.finished(duration_s=rep.duration, device=device, run=run_id(item.config),
                       inputs=provenance.inputs_of(item))
    rep.user_properties.append((_PROPERTY, row.to_dict()))
    if SAMPLES in item.stash and row.verdict not in ("error", "skipped"):
        rep.user_properties.append((_SAMPLES, {"id": row.id, "samples": item.stash[SAMPLES]}))
    # JUnit XML writes the properties of the item's later reports (record_property's route): the row's facts
    item.user_properties.extend((f"claim.{name}", _junit(getattr(row, name))) for name in JUNIT_FIELDS)
    return rep


def _junit(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _skip_reason(rep: pytest.TestReport) -> str:
    if isinstance(rep.longrepr, tuple) and len(rep.longrepr) == 3:
        return str(rep.longrepr[2]).removeprefix("Skipped: ")
    return str(rep.longrepr)
