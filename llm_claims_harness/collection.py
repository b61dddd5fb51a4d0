"""What the test files a run imported declare, read from their declarations (never from which of their items the run
collected: a node id, ``--lf`` or ``-k`` collects or keeps a part of them), for the report's merge and for the
catalogue, which is written whole or refused."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from typing import Any

import pytest

from llm_claims_harness import catalogue
from llm_claims_harness.declare import Claim
from llm_claims_harness.place import committed_dir, make_report_dir, report_dir
from llm_claims_harness.posts import Registry
from llm_claims_harness.row import Declared
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
