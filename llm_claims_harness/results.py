"""``results.json`` (schema ``llm-claims-results``, version 5): the complete, machine-first record of the claims
report, and the one loader every reader shares (the merge, the Markdown pages, the comparison).

The document holds ``schema``; ``runs``, each run's environment by run id (stored once, however many rows it
measured; its ``interrupted`` says why the run ended before measuring all it selected, empty when it did not: a row
of such a run is marked on the pages); ``latest_run``; ``summary``, verdict counts per kind; ``measured_this_run``;
``not_carried``, earlier rows left out because their claim's declared version changed; ``warning``, why nothing
was carried from the previous file (empty when all is well); ``claims``, the rows by test file then id, each pointing at the run that measured it.
The row's fields are stated once, in :mod:`llm_claims_harness.row`; ``SCHEMA.md`` is generated from them.
``samples.jsonl`` beside it holds the per-item logs of rows that score items, one JSON object per line with
fixed fields (``id``: the row, ``run``, then the item's: :mod:`llm_claims_harness.samples`); lines of an earlier
layout are dropped when the file is rewritten.

Partial runs (a file, a node id, ``-k``, ``-m``, ``--deselect``, ``--lf``, ``--sw``, ``-x``, an interrupted run)
**merge by id**: a row this run measured replaces the old one; a row it did not measure is kept as it was, still
pointing at the run that measured it, unless (a) its test file, which this run imported, no longer declares it
(dropped as stale: what a file declares is read from its declarations, never from which of its items the run
collected), or (b) its file declares its claim under another ``version`` now (listed in ``not_carried``: its value
answered another protocol). Files are written atomically,
the read, merge and writes under the report directory's lock (runs sharing it write in turn, none losing the other's
rows); an unreadable previous file is not merged, and ``warning`` says so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from llm_claims_harness import lock, migrate, pages, samples
from llm_claims_harness.atomic import remove_generated, temporary_files, write_texts_atomic
from llm_claims_harness.order import natural
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import ORDER, count
from llm_claims_harness.row import Reading, Row, fields_doc
from llm_claims_harness.text import utf8

SCHEMA: dict[str, Any] = {"name": "llm-claims-results", "version": 5}
STALE_S = 60  # a report's temporary file older than this is a killed run's (writing one takes milliseconds)
SAMPLES = "samples.jsonl"
UNREADABLE = "results.json.unreadable"  # where an unreadable previous results.json is kept
# collected: test file -> {row id: {"version", "post", "section", "version_note"} as declared} for every row a test
# file this run imported declares (llm_claims_harness.collection.declared_in), collected or not
Collected = dict[str, dict[str, dict[str, Any]]]


class InputError(ValueError):
    """A file that is not a readable claims report; the message is one line naming the file."""


History = Mapping[str, tuple[list[Reading], str]]  # a suite's record of earlier readings: row id → (readings, note)


@dataclasses.dataclass(frozen=True)
class Measured:
    """What one run hands to :func:`write`: its id and environment, the rows it measured (by id), the per-item
    samples of rows that score items (by row id), what it collected (:data:`Collected`), and its rootdir (``None``:
    unknown), under which an earlier row's test file must still exist for the row to be kept, and the suite's record
    of earlier readings (row id → its :class:`~llm_claims_harness.row.Reading` list and note), which every row written,
    measured or carried, takes."""

    run: str
    environment: dict
    rows: dict[str, Row]
    samples: dict[str, list[dict]]
    collected: Collected
    root: Path | None = None
    history: History = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Document:
    """A loaded or merged ``results.json`` (see the module docstring)."""

    runs: dict[str, dict]
    latest_run: str
    rows: tuple[Row, ...]
    not_carried: tuple[dict, ...] = ()
    warning: str = ""
    measured_this_run: int = 0
    migrated_from: int | None = None  # the schema version the file was written in, when older than SCHEMA's

    @property
    def environment(self) -> dict:
        """The latest run's environment."""
        return self.runs.get(self.latest_run, {})

    def to_dict(self) -> dict:
        return {"schema": dict(SCHEMA), "runs": self.runs, "latest_run": self.latest_run, "summary": count(self.rows),
                "measured_this_run": self.measured_this_run, "not_carried": list(self.not_carried),
                "warning": self.warning, "claims": [r.to_dict() for r in self.rows]}


def read(path: Path) -> Document:
    """The document in ``path``, any schema version (1 to 5; a file without ``schema`` is version 1).

    Raises:
        InputError: the file is missing or unreadable, not JSON, another schema, or a row is malformed or repeated.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: unreadable ({exc})") from None
    return parse(text, str(path))


def parse(text: str, path: str) -> Document:
    """The document ``text`` holds (a ``results.json``'s contents, any schema version), ``path`` naming it in errors
    (a file, or ``<commit>:reports/results.json`` of a repository's history).

    Raises:
        InputError: as :func:`read`, for what the text holds.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"{path}: not JSON ({exc}); expected a results.json the claims report wrote") from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise InputError(f"{path}: not a claims results file (no 'claims' list of rows)")
    schema = data.get("schema", {"name": SCHEMA["name"], "version": 1})
    if not isinstance(schema, dict) or schema.get("name") != SCHEMA["name"] \
            or schema.get("version") not in range(1, SCHEMA["version"] + 1):
        raise InputError(f"{path}: not a claims results file (schema {schema!r} is not {SCHEMA['name']} 1 to "
                         f"{SCHEMA['version']})")
    try:
        if schema["version"] < SCHEMA["version"]:
            data = migrate.document(data, schema["version"])
        rows = tuple(Row.from_dict(r) for r in data["claims"])
        runs, latest = dict(data["runs"]), str(data["latest_run"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"{path}: a row or run is malformed ({type(exc).__name__}: {str(exc)[:160]})") from None
    bad = next((r.id for r in rows if r.verdict not in ORDER), None)
    if bad is not None:
        raise InputError(f"{path}: row {bad!r} has a verdict that is not one of {', '.join(ORDER)}")
    ids = [r.id for r in rows]
    if len(set(ids)) != len(ids):
        raise InputError(f"{path}: a row id repeats ({min(i for i in ids if ids.count(i) > 1)})")
    return Document(runs, latest, rows, tuple(data.get("not_carried", ())), str(data.get("warning", "")),
                    int(data.get("measured_this_run", 0) or 0), data.get("migrated_from"))


def load(path: Path) -> tuple[Document | None, str]:
    """The previous document in ``path`` for merging, and a warning: ``(None, "")`` when there is none,
    ``(None, why)`` when it cannot be merged."""
    if not path.exists():
        return None, ""
    try:
        return read(path), ""
    except InputError as exc:
        return None, f"the previous {path.name} was unreadable ({exc}); nothing was carried over from it"


def merge(previous: Document | None, run: Measured, warning: str = "") -> Document:
    """This run's rows plus the previous document's rows that this run neither measured nor made stale (see the
    module docstring), by test file then id; runs no row points at any more are dropped."""
    merged = dict(run.rows)
    declared = {rid: d for ids in run.collected.values() for rid, d in ids.items()}
    not_carried = []
    for old in previous.rows if previous else ():
        file = old.nodeid.split("::")[0]
        if old.id in merged:
            continue
        if old.id not in declared and old.claim_id in declared:  # a claim without declared cases, parametrised by
            declared[old.id] = declared[old.claim_id]  # its test: one of its rows, maybe not collected this run
        if old.id in declared and declared[old.id]["version"] != old.version:
            not_carried.append({"id": old.id, "version": old.version, "declared_version": declared[old.id]["version"],
                                "run": old.run})
            continue
        if old.id not in declared and (file in run.collected or (run.root and not (run.root / file).is_file())):
            continue  # its file was collected and no longer declares it, or is gone: stale
        if old.post is None and old.id in declared:  # a row of schema 4 or earlier: its place, as declared now
            old = dataclasses.replace(old, post=declared[old.id]["post"], section=declared[old.id]["section"])
        merged[old.id] = old
    rows = tuple(sorted((r.with_history(*run.history.get(r.id, ([], ""))) for r in merged.values()),
                        key=lambda r: (r.nodeid.split("::")[0], natural(r.id))))
    runs = {**(previous.runs if previous else {}), run.run: run.environment}
    used = {r.run for r in rows}
    if previous and previous.migrated_from:
        unplaced = sum(r.post is None and r.kind in ("post", "literal") for r in rows)
        warning = "; ".join(filter(None, [warning, (
            f"the previous results.json was schema {previous.migrated_from}, read as schema {SCHEMA['version']}"
            + (f": {unplaced} of its rows record no post (run their test files again to place them)" if unplaced
               else ""))]))
    return Document({k: v for k, v in runs.items() if k in used}, run.run, rows, tuple(not_carried), warning,
                    len(run.rows))


def _samples(out: Path, doc: Document, run: Measured) -> tuple[str, str]:
    """``samples.jsonl``: this run's per-item logs, and the earlier lines of rows kept from an earlier run, sorted by
    row id then item id (a run's order of finishing never shows in a diff); and a warning when lines of the previous
    file did not parse (they are dropped, the others kept). A line of the layout that named its run (``"run"``) is
    kept without it when its row is still that run's."""
    kept = {r.id: r.run for r in doc.rows if r.id not in run.rows}
    lines = [{"id": rid, **item} for rid, items in run.samples.items() for item in items]
    bad = earlier = 0
    try:
        with open(out / SAMPLES, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    old = json.loads(line)
                    if old.get("id") not in kept or old.pop("run", kept[old["id"]]) != kept[old["id"]]:
                        continue
                    if samples.conforms(old):
                        lines.append(old)
                    else:
                        earlier += 1
                except (ValueError, AttributeError):
                    bad += bool(line.strip())
    except FileNotFoundError:
        pass
    except OSError as exc:
        return _jsonl(lines), f"the previous {SAMPLES} was unreadable ({exc}); its items were dropped"
    warning = "; ".join(filter(None, [
        f"{bad} lines of the previous {SAMPLES} did not parse and were dropped" if bad else "",
        f"{earlier} lines of the previous {SAMPLES} were in an earlier layout and were dropped" if earlier else ""]))
    warning += " (measure their rows again to log their items)" if warning else ""
    return _jsonl(lines), warning


def _jsonl(lines: list[dict]) -> str:
    ordered = sorted(lines, key=lambda line: (natural(line["id"]), natural(str(line["item_id"]))))
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in ordered)


def write(out: Path, run: Measured, registry: Registry,
          prepare: Callable[[Path], str] | None = None) -> tuple[Path, str]:
    """Merge with the previous report in ``out`` and write ``results.json``, ``samples.jsonl``, the Markdown pages
    (:func:`llm_claims_harness.pages.pages`; pages of an earlier layout are removed) and ``SCHEMA.md``, holding the
    directory's lock from the read to the last write (:func:`llm_claims_harness.lock.writing`): a run that shares
    ``out`` waits, then merges on top of this one. ``prepare(out)``, called first under the lock, readies the
    previous report and returns a warning (an ad-hoc report starting from the committed one:
    :func:`llm_claims_harness.place.start_from`).

    Returns the path of the index page and a warning (empty when none). Raises ``OSError`` when ``out`` cannot be
    written, or another run held its lock too long.
    """
    with lock.writing(out):
        said = prepare(out) if prepare is not None else ""
        index, warning = _write(out, run, registry)
        return index, "; ".join(filter(None, [said, warning]))


def _write(out: Path, run: Measured, registry: Registry) -> tuple[Path, str]:
    for stale in temporary_files(out):  # left by a killed run; never read
        with contextlib.suppress(FileNotFoundError):  # another writer's, moved onto its name meanwhile
            if time.time() - stale.stat().st_mtime > STALE_S:  # a younger one may be another writer's, being written
                stale.unlink(missing_ok=True)
    previous, warning = load(out / "results.json")
    if warning:  # kept for a person to look at: never overwritten with a report that could not carry its rows
        (out / "results.json").replace(out / UNREADABLE)
        warning += f"; it is kept as {UNREADABLE}"
    doc = merge(previous, run, warning)
    samples, lost = _samples(out, doc, run)
    # a warning names files, whose path may hold bytes the locale could not decode
    doc = dataclasses.replace(doc, warning=utf8("; ".join(filter(None, [doc.warning, lost]))))
    texts = pages.pages(doc, registry, catalogue=(out / "CATALOGUE.md").exists(), samples=bool(samples))
    # all or none: a full disk met while writing leaves the previous report as it was, every file of it
    write_texts_atomic(out, {"results.json": json.dumps(doc.to_dict(), indent=1, ensure_ascii=False) + "\n",
                             SAMPLES: samples, **texts, "SCHEMA.md": schema_markdown()})
    remove_generated(out, pages.PAGE_GLOB, pages.GENERATED, keep=set(texts))
    return out / pages.INDEX, doc.warning


def schema_markdown() -> str:
    """``SCHEMA.md``, written beside ``results.json``: this module's docstring and every row field's description."""
    body = (__doc__ or "").replace("``", "`").replace(":mod:", "").replace(":func:", "").strip()
    fields = "\n".join(f"- `{name}`: {doc}" for name, doc in fields_doc())
    items = "\n".join(f"- `{name}`: {doc}" for name, doc in samples.FIELDS.items())
    return (f"# {SCHEMA['name']}, version {SCHEMA['version']}\n\n{body}\n\n## A row's fields\n\n{fields}\n\n"
            f"## A line of `{SAMPLES}`\n\nSorted by row id, then item id; the run that scored an item is its row's `run`."
            f"\n\n- `id`: the row's id\n{items}\n\n"
            f"Its JSON Schema:\n\n```json\n{json.dumps(samples.LINE_SCHEMA, indent=2, ensure_ascii=False)}\n```\n")
