"""``reports/results.json``: the complete, machine-first record of a run (``CLAIMS.md`` is drawn from it).

Schema ``llm-claims-results``, version 4 (version 3 lacks the rows' ``quote``; version 2 also the expectation
ledger, ``preregistered_expect``, ``preregistered_source`` and ``revision``; rows are carried without them; a
file without ``schema`` is version 1: version 2 less ``schema``, ``not_carried`` and the rows'
``figures``). Top level:

- ``schema``: ``{"name": "llm-claims-results", "version": 4}``.
- ``environment``: ``date`` (UTC, ISO 8601), ``git_commit`` (12 hex digits, `` (uncommitted changes)``
  appended when tracked files differ), ``git_tree`` (the tree hash ``HEAD^{tree}``: the code measured,
  unchanged by a rebase), ``python``, ``torch``, ``transformers``, ``numpy``, ``platform``, ``device``,
  ``seed``, ``seeds``, ``xdist_workers``, ``command``, ``wall_s``.
- ``summary``: per kind (``post``, ``literal``, ``beyond``, ``control``) the count of each verdict (``holds``,
  ``refuted``, ``inconclusive``, ``skipped``, ``error``).
- ``measured_this_run``, ``carried_over``: row counts; ``not_carried``: previous rows left out because the
  claim's declared version changed (``id``, ``version`` measured, ``declared_version``, ``measured_at``).
- ``warning``: why nothing was carried from the previous file (empty when all is well).
- ``claims``: the rows, by test file then id. Each row (:class:`llm_claims_harness.row.Row`):
  ``id`` (``claim_id`` or ``claim_id[case]``), ``claim_id``, ``case``, ``kind``, ``topic``, ``nodeid``,
  ``source`` (post and section), ``statement``, ``post_value``, ``unit``, ``measured``, ``reference``
  (what a ``close`` tolerance compared against), ``max_abs_diff``, ``details`` (further measured values),
  ``noise_sd`` (SD of a stochastic value, else ``null``), ``margin_sigma`` (signed distance to the nearest
  bound in SDs, positive on the holding side), ``interval`` (``[low, high]`` at the 99.73 % level for a value
  judged by its interval, a share's exact binomial interval; else ``null``), ``tolerance`` (short text, e.g. ``|Δ| ≤ 5e-05``),
  ``tolerance_reason``, ``verdict``, ``expected_verdict``, ``expect_source``, ``preregistered_expect`` and
  ``preregistered_source`` (the expectation registered before any measurement, and where it came from: the
  same as ``expected_verdict`` and ``expect_source`` unless the claim revised it), ``revision`` (``null``, or
  why the expectation changed: ``why``, ``evidence`` (a committed file), ``code`` (the digest of the code
  that evidence was measured under)), ``quote`` (``null``, or for a ``post`` or ``literal`` row the post's sentence
  it tests: ``text``, its own words shortened, and ``gloss``, in English), ``reason`` (skip, error or
  inconclusive explanation), ``version``, ``version_note``, ``deviation``, ``duration_s``, ``device``,
  ``as_expected`` (``null`` when undecided or skipped), ``figures`` (paths relative to the report
  directory), ``carried`` (true: measured by an earlier run) and ``measured_at`` (``date``, ``git_commit``).

Partial runs (``-k``, ``-m``, a file path) **merge by id**: a row this run measured replaces the old one; a
row it did not measure is carried over from the previous file, marked ``carried`` with the commit and date
that measured it, unless (a) its id is no longer declared in its test file, which this run collected (dropped
as stale), or (b) this run collected its claim under another ``version`` (not carried, listed in
``not_carried``: its value answered another protocol). Files are written atomically; an unreadable previous
file is not merged, and ``warning`` says so.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from llm_claims_harness import markdown
from llm_claims_harness.order import natural
from llm_claims_harness.report import count
from llm_claims_lab.atomic import temporary_files, write_text_atomic

SCHEMA = {"name": "llm-claims-results", "version": 4}
STALE_S = 60  # a report's temporary file older than this is a killed run's (writing one takes milliseconds)
# collected: test file -> {row id: the claim's declared version} for every claim item this run collected
Collected = dict[str, dict[str, int]]

# What a previous row must hold to be carried into a new report (what merge() and the Markdown read).
_CARRIED_KEYS = frozenset({"id", "nodeid", "topic", "verdict", "statement", "source", "kind", "version", "post_value",
                           "unit", "measured", "reference", "max_abs_diff", "details", "tolerance",
                           "tolerance_reason", "expected_verdict", "reason", "deviation", "as_expected", "measured_at"})


def load(path: Path) -> tuple[dict, str]:
    """The previous ``results.json`` in ``path`` (schema 1 or 2) and a warning: ``({}, "")`` when there is
    none, ``({}, why)`` when it cannot be merged (unreadable, another schema, a row lacking what a row holds)."""
    if not path.exists():
        return {}, ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
            raise ValueError("no 'claims' list")
        schema = data.get("schema", {"name": SCHEMA["name"], "version": 1})
        if not isinstance(schema, dict) or schema.get("name") != SCHEMA["name"] \
                or schema.get("version") not in range(1, SCHEMA["version"] + 1):
            raise ValueError(f"schema {schema!r} is not {SCHEMA['name']} 1 to {SCHEMA['version']}")
        bad = next((r for r in data["claims"] if not isinstance(r, dict) or not _CARRIED_KEYS <= r.keys()
                    or not all(isinstance(r[k], str) for k in ("id", "nodeid", "topic", "verdict"))), None)
        if bad is not None:
            raise ValueError(f"a row lacks what a report row holds ({', '.join(sorted(_CARRIED_KEYS))}): "
                             f"{str(bad)[:80]}")
        return data, ""
    except (OSError, ValueError) as exc:
        return {}, f"the previous {path.name} was unreadable ({path}: {exc}); nothing was carried over from it"


def merge(previous: dict, rows: dict[str, dict], collected: Collected, env: dict) -> tuple[list[dict], list[dict]]:
    """This run's rows plus the previous report's rows that this run neither measured nor made stale, by test
    file then id; and the previous rows left out because their claim is now declared at another version."""
    stamp = {"date": env["date"], "git_commit": env["git_commit"]}
    merged = {rid: {**r, "carried": False, "measured_at": stamp} for rid, r in rows.items()}
    declared = {rid: version for ids in collected.values() for rid, version in ids.items()}
    not_carried = []
    for old in previous.get("claims", []):
        rid, file = old.get("id"), str(old.get("nodeid", "")).split("::")[0]
        if rid in merged:
            continue
        if rid in declared and declared[rid] != old.get("version"):
            not_carried.append({"id": rid, "version": old.get("version"), "declared_version": declared[rid],
                                "measured_at": old.get("measured_at")})
            continue
        if rid not in declared and file in collected:
            continue  # its file was collected and no longer declares it: stale
        kept = {k: v for k, v in old.items() if k not in ("carried", "measured_at")}
        kept.setdefault("figures", [])  # a schema-1 row
        merged[rid] = {**kept, "carried": True, "measured_at": old.get("measured_at")}
    return sorted(merged.values(), key=lambda r: (r["nodeid"].split("::")[0], natural(r["id"]))), not_carried


def build(previous: dict, rows: dict[str, dict], collected: Collected, env: dict, warning: str = "") -> dict:
    """The whole ``results.json`` document (see the module docstring)."""
    claims, not_carried = merge(previous, rows, collected, env)
    return {"schema": dict(SCHEMA), "environment": env, "summary": count(claims), "measured_this_run": len(rows),
            "carried_over": sum(r["carried"] for r in claims), "not_carried": not_carried, "warning": warning,
            "claims": claims}


def write(out: Path, rows: dict[str, dict], collected: Collected, env: dict) -> tuple[Path, str]:
    """Merge with the previous report in ``out`` and write ``results.json``, ``CLAIMS.md`` and ``SCHEMA.md``.

    Returns the path of ``CLAIMS.md`` and a warning (empty when none: e.g. the previous ``results.json`` was
    unreadable and nothing was carried over). The temporary files of a run killed while writing them are removed.
    Raises ``OSError`` when ``out`` cannot be created.
    """
    out.mkdir(parents=True, exist_ok=True)
    for name in ("results.json", "CLAIMS.md", "SCHEMA.md"):
        for stale in temporary_files(out, name):  # left by a killed run; never read
            if time.time() - stale.stat().st_mtime > STALE_S:  # a younger one may be another run's, being written
                stale.unlink(missing_ok=True)
    previous, warning = load(out / "results.json")
    data = build(previous, rows, collected, env, warning)
    write_text_atomic(out / "results.json", json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    write_text_atomic(out / "CLAIMS.md", markdown.render(data))
    write_text_atomic(out / "SCHEMA.md", schema_markdown())
    return out / "CLAIMS.md", warning


def schema_markdown() -> str:
    """``SCHEMA.md``, written beside ``results.json``: this module's docstring, the schema's one description."""
    body = (__doc__ or "").replace("``", "`").replace(":class:", "").strip()
    return f"# {SCHEMA['name']}, version {SCHEMA['version']}\n\n{body}\n"
