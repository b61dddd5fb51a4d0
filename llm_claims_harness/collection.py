"""What the test files a run imported declare, read from their declarations (never from which of their items the run
collected: a node id, ``--lf`` or ``-k`` collects or keeps a part of them), for the report's merge and for the
catalogue, which is written whole or refused; and the selections by post (``--claims-post``) and the listing
(``--claims-list``) of what a run collected."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from llm_claims_harness import catalogue, results
from llm_claims_harness.declare import Claim
from llm_claims_harness.measure import case_id, spec_of
from llm_claims_harness.place import committed_dir, make_report_dir, report_dir
from llm_claims_harness.posts import Registry
from llm_claims_harness.row import Declared, Reading, readings_of
from llm_claims_harness.text import plural


def declared_in(module: types.ModuleType) -> Iterator[Claim]:
    """Every :class:`Claim` declared in ``module``: on its functions and on the methods of its classes, defined there
    (not imported), in definition order. What a test file declares is read from here, never from which of its
    items a run collected (a node id, ``--lf`` or ``-k`` collects or keeps a part of them)."""
    def marked(obj: Any) -> Iterator[Claim]:
        for mark in getattr(obj, "pytestmark", ()):
            if getattr(mark, "name", None) == "claim" and mark.args and isinstance(mark.args[0], Claim):
                yield mark.args[0]

    for obj in vars(module).values():
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield from marked(obj)
        elif inspect.isclass(obj):
            for member in vars(obj).values():
                if inspect.isfunction(member):
                    yield from marked(member)


def rows_declared(module: pytest.Module) -> list[Declared]:
    """Every row the test file ``module`` declares: each claim, or each of its cases, in declaration order."""
    return [row for spec in declared_in(module.obj)
            for row in (map(spec.resolve, spec.cases) if spec.cases else [spec.resolve(None)])]


def declared(row: Declared) -> dict[str, Any]:
    """What the report needs of a declared row it did not measure (:data:`llm_claims_harness.results.Collected`)."""
    return {"version": row.version, "post": row.post, "section": row.section, "version_note": row.version_note}


def write_catalogue(config: pytest.Config, modules: dict[str, pytest.Module], registry: Registry) -> None:
    """Write the catalogue of every claim the collected test files declare, in their order, unless this run left
    out a test file the previous catalogue lists and the disk still holds (a path, ``--lf`` or ``--ignore``
    collected part of the suite): a catalogue is whole or not written.

    Raises:
        pytest.UsageError: the selection is partial, naming the files it left out.
    """
    out, committed = report_dir(config), committed_dir(config)
    listed_before = {*catalogue.listed_files(out), *(catalogue.listed_files(committed) if committed else ())}
    missing = sorted(f for f in listed_before if f not in modules and (config.rootpath / f).is_file())
    if missing:
        raise pytest.UsageError(
            f"--claims-catalogue: this selection leaves out {plural(len(missing), 'test file')} the catalogue in "
            f"{out} lists ({', '.join(missing[:3])}{', …' if len(missing) > 3 else ''}); a catalogue is written from "
            "the whole suite: run pytest --claims-catalogue without test paths, --lf or --ignore")
    listed = [(row, file) for file, module in modules.items() for row in rows_declared(module)]
    try:
        path = catalogue.write(make_report_dir(config), listed, registry)
    except OSError as exc:
        raise pytest.UsageError(f"--claims-catalogue: cannot write to {out} ({exc.strerror or exc}); name a writable "
                                "--claims-report-dir") from None
    config.get_terminal_writer().line(f"claims catalogue: {len(listed)} rows written to {path}")


def readings(config: pytest.Config) -> dict[str, tuple[list[Reading], str]]:
    """The suite's record of its rows' earlier readings (its ``pytest_claims_readings`` hook), checked.

    Raises:
        pytest.UsageError: a record is malformed, naming the row.
    """
    try:
        return readings_of(config.hook.pytest_claims_readings(config=config) or {})
    except ValueError as exc:
        raise pytest.UsageError(f"pytest_claims_readings: {exc}") from None


def check_posts(config: pytest.Config, registry: Registry) -> None:
    """``--claims-post`` names posts of the suite's registry.

    Raises:
        pytest.UsageError: naming the unknown one and the registered ones.
    """
    known = [p.id for p in registry.posts]
    unknown = [p for p in config.getoption("claims_post") if p not in known]
    if unknown:
        raise pytest.UsageError(f"--claims-post {unknown[0]}: no such post; the suite's posts are "
                                f"{', '.join(known) or 'none (its pytest_claims_posts hook registers them)'}")


def select_posts(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--claims-post``, keep the items of the named posts' rows and deselect the rest (rows of another post
    or of none, plain tests), as ``-k`` deselects; nothing otherwise."""
    wanted = set(config.getoption("claims_post"))
    if not wanted:
        return
    keep = [(spec := spec_of(item)) is not None and spec.post in wanted for item in items]
    config.hook.pytest_deselected(items=[item for item, kept in zip(items, keep) if not kept])
    items[:] = [item for item, kept in zip(items, keep) if kept]


def catalogue_only(config: pytest.Config, items: list[pytest.Item], modules: dict[str, pytest.Module],
                   registry: Registry) -> None:
    """``--claims-catalogue`` (:func:`write_catalogue`), said in its one line and the items deselected, so that pytest
    prints no tree of every test; nothing without the option."""
    if config.getoption("claims_catalogue"):
        write_catalogue(config, modules, registry)
        config.hook.pytest_deselected(items=list(items))
        items[:] = []


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """``--claims-list``, once every selection (``-k``, ``-m``, ``--claims-post``, ``--lf``) is made: the rows in
    their lines, and no tree of pytest's (the plugin registers this module)."""
    if session.config.getoption("claims_list") and not session.testsfailed:
        list_rows(session.config, session.items, last_verdicts(session.config))
        session.items[:] = []


def list_rows(config: pytest.Config, items: list[pytest.Item], verdicts: dict[str, str]) -> None:
    """``--claims-list``: one line per claim row of ``items``, with the verdict ``verdicts`` holds for it (the last
    report's), written to the terminal."""
    writer = config.get_terminal_writer()
    rows = [spec.resolve(case_id(item)) for item in items if (spec := spec_of(item)) is not None]
    width = max((len(row.id) for row in rows), default=0)
    for row in rows:
        writer.line(f"{row.id:<{width}}  {row.post or '-':<6} {row.kind:<8} {verdicts.get(row.id, 'not measured')}")
    writer.line(f"claims: {plural(len(rows), 'row')} listed (verdicts from {last_report(config) or 'no report'})")


def last_report(config: pytest.Config) -> Path | None:
    """The report a listing reads its verdicts from: this run's report directory's, else the committed one."""
    for where in (report_dir(config), committed_dir(config)):
        if where is not None and (where / "results.json").is_file():
            return where / "results.json"
    return None


def last_verdicts(config: pytest.Config) -> dict[str, str]:
    """Row id → verdict in :func:`last_report` (empty when there is none or it cannot be read)."""
    path = last_report(config)
    try:
        return {row.id: row.verdict for row in results.read(path).rows} if path else {}
    except results.InputError:
        return {}


def only_listed(config: pytest.Config) -> bool:
    """The run only lists (``--claims-catalogue``, ``--claims-list``): its lines are what was asked, so pytest's "no
    tests collected" (the items it deselected) is no failure."""
    return bool(config.getoption("claims_catalogue") or config.getoption("claims_list"))
