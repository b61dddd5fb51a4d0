"""Where a run's output goes, and what it says when it cannot write there.

The report goes to ``--claims-report-dir``; else, under ``--claims-regenerate``, to the committed
``<rootdir>/reports``; else to ``<rootdir>/.claims/report``, which git ignores (``.claims/.gitignore``) and which
starts from the committed report (:func:`start_from`, again whenever the committed report changed): a run asked
for nothing to be regenerated leaves tracked files alone, as pytest-regressions writes only under
``--force-regen``; naming the committed directory with ``--claims-report-dir`` does not get round that
(:func:`check_report_dir`). A damaged ad-hoc ``results.json`` is put aside and the report starts again from the
committed one (:func:`start_from`). A directory the run cannot write is a usage error before measuring; a figure it
could not write is one line at the end (:func:`output_fault_lines`).
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from llm_claims_harness import results
from llm_claims_harness.atomic import write_atomic, write_text_atomic
from llm_claims_harness.paths import not_writable_dir
from llm_claims_harness.provenance import sha256_of
from llm_claims_harness.text import plural

STARTED_FROM = ".started-from"  # in an ad-hoc report: the sha256 of the committed results.json it began from
COMMITTED = "reports"  # the report a repository keeps, under its rootdir: written only by --claims-regenerate
LOCAL = ".claims"  # under the rootdir: an ad-hoc run's report (LOCAL/report), which git ignores (LOCAL/.gitignore)
_IGNORE_ALL = "# written by llm-claims-harness: an ad-hoc run's report, never committed\n*\n"


def report_dir(config: pytest.Config) -> Path:
    """Where the report is written: ``--claims-report-dir``; else, under ``--claims-regenerate``, the committed
    ``<rootdir>/reports``; else ``<rootdir>/.claims/report``, which git ignores (a run asked for nothing to be
    regenerated leaves tracked files alone, as pytest-regressions writes only under ``--force-regen``)."""
    named = config.getoption("claims_report_dir")
    if named:
        return Path(named)
    return config.rootpath / (COMMITTED if config.getoption("claims_regenerate") else f"{LOCAL}/report")


def start_from(committed: Path, out: Path, started: float = 0.0) -> str:
    """Make the ad-hoc report in ``out`` begin from the committed report in ``committed``, so that a partial run still
    gives every row: where ``out`` holds no ``results.json`` yet, or began from another version of the committed one
    (a pull or a regeneration since: :data:`STARTED_FROM` records which), or holds one that cannot be read (a
    truncated or hand-edited file: kept aside as :data:`llm_claims_harness.results.UNREADABLE`), the committed files
    are copied in, each atomically, except figures this run drew (written since ``started``, a ``time.time()``).
    Nothing when ``committed`` holds no ``results.json``.

    Returns a warning when rows of earlier ad-hoc runs were dropped so (``""`` otherwise). Raises ``OSError``.
    """
    source = committed / "results.json"
    if not source.is_file():
        return ""
    digest = sha256_of(source)
    marker, began = out / STARTED_FROM, (out / "results.json").exists()
    damaged = results.load(out / "results.json")[1] if began else ""
    if began and not damaged and marker.is_file() and marker.read_text(encoding="utf-8") == digest:
        return ""
    if damaged:  # never merged into, never overwritten: kept for a person to look at
        (out / "results.json").replace(out / results.UNREADABLE)
    for path in sorted(committed.rglob("*")):
        relative = path.relative_to(committed)
        target = out / relative
        if not path.is_file() or any(part.startswith(".") for part in relative.parts) or (
                relative.parts[0] == "figures" and target.exists() and target.stat().st_mtime >= started):
            continue
        write_atomic(target, functools.partial(shutil.copyfile, path))
    write_text_atomic(marker, digest)
    if damaged:
        return (f"{damaged}; it is kept as {results.UNREADABLE}, and the report starts again from {committed} (rows "
                "measured by earlier ad-hoc runs were dropped)")
    return (f"the committed report changed since this report began: it starts again from {committed} (rows measured "
            "by earlier ad-hoc runs were dropped)" if began else "")


def committed_dir(config: pytest.Config) -> Path | None:
    """The committed report an ad-hoc run's report starts from (its rows not measured now are carried from it):
    ``<rootdir>/reports`` when this run writes the default local report, else ``None``."""
    if config.getoption("claims_report_dir") or config.getoption("claims_regenerate"):
        return None
    return config.rootpath / COMMITTED


def make_report_dir(config: pytest.Config) -> Path:
    """:func:`report_dir`, created; the local one with a ``.gitignore`` that ignores all of ``.claims/`` (as pytest's
    own cache directory has), so that no repository needs an entry for it.

    Raises:
        OSError: it cannot be created.
    """
    out = report_dir(config)
    out.mkdir(parents=True, exist_ok=True)
    if committed_dir(config) is not None and not (config.rootpath / LOCAL / ".gitignore").exists():
        write_text_atomic(config.rootpath / LOCAL / ".gitignore", _IGNORE_ALL)
    return out


def check_report_dir(config: pytest.Config) -> None:
    """The report directory (:func:`report_dir`) must be one this run can write to, unless no report is written:
    found before measuring, not when the report is due. Beside the permission checks of
    :func:`llm_claims_harness.paths.not_writable_dir`, a directory is tried: a temporary one is made and removed where
    the report directory would be created (or inside it, where it exists), which finds what permissions do not say
    (a pseudo-filesystem such as ``/proc``, a read-only mount).

    A named directory that is the committed report, or lies inside it (``reports``, ``./reports/``, its absolute
    path, a link to it), is refused: only ``--claims-regenerate`` writes there.

    Raises:
        pytest.UsageError: naming the path, what is wrong and what was expected.
    """
    named = config.getoption("claims_report_dir")
    committed = (config.rootpath / COMMITTED).resolve()
    if named and committed in (where := Path(named).resolve(), *where.parents):
        raise pytest.UsageError(f"report: --claims-report-dir={named} is the committed report ({committed}), which a "
                                "run writes only under --claims-regenerate; regenerate it with --claims-regenerate "
                                "(and no --claims-report-dir), or name another directory")
    if config.getoption("no_claims_report"):
        return
    problem = not_writable_dir(report_dir(config)) or _tried(report_dir(config))
    if problem:
        raise pytest.UsageError(f"report: {f'--claims-report-dir={named}' if named else 'the report directory'}: "
                                f"{problem}; expected a directory this run can create or write to (name one with "
                                "--claims-report-dir, or measure without a report: --no-claims-report)")


def _tried(path: Path) -> str | None:
    """Why a directory cannot be made where ``path`` is or would be created (``None`` when one can), trying it."""
    existing = next(p for p in (path.absolute(), *path.absolute().parents) if p.exists())
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".claims-probe-", dir=existing))
    except OSError as exc:
        return f"cannot be created: {existing} refuses a new directory ({exc.strerror or exc})"
    return None


def output_fault_lines(faults: list[dict[str, Any]]) -> list[str]:
    """One line per directory and error the run's own output met (figures not written), naming the files and the
    fix, never a library's traceback."""
    grouped: dict[tuple[str, str, Any], list[str]] = {}
    for fault in faults:
        path = Path(fault["path"])
        names = grouped.setdefault((str(path.parent), fault["error"], fault.get("errno")), [])
        if path.name not in names:  # the cases of a claim share a figure (and xdist's workers may each try it)
            names.append(path.name)
    lines = []
    for (directory, error, number), names in grouped.items():
        fix = "free space on its disk, or name" if number == errno.ENOSPC else "name"
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        lines.append(f"{plural(len(names), 'figure')} not written to {directory} ({error}: {shown}); their rows "
                     f"were measured and link no figure. Fix: {fix} a writable --claims-report-dir")
    return lines
