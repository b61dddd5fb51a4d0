"""Reading a ``results.json`` of an earlier schema (versions 1 to 4) as today's (version 5), in one place.

What changed at version 5: the tolerance is structured (it was display text, ``|Δ| ≤ 5e-05 + 0.01·|ref|``, plus
``tolerance_reason``); a revision holds its pre-registered verdict and source; rows name their ``post`` and
``section``; a row points at the run that measured it (``run``, a key of the document's ``runs``) instead of
``carried`` and ``measured_at``; the one ``environment`` became ``runs``. An old tolerance is read back from its
text with the precision the text kept (bounds to 4 significant digits): enough to compare reports, never to judge.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from llm_claims_harness.row import UNNAMED_KIND
from llm_claims_harness.tolerance import Tolerance

# Tolerance.describe()'s text: "exact", "|Δ| ≤ 5e-05 + 0.01·|ref|", "≤ 1e-09", "> 0", ...
_TOLERANCE = re.compile(r"^(?:exact|\|Δ\| ≤ (?P<band>.+)|(?P<op>[≤≥<>]) (?P<bound>\S+))$")


def tolerance_from_text(text: str, reason: str = "") -> Tolerance:
    """The :class:`Tolerance` a version-4 row's ``tolerance`` text stands for.

    Raises:
        ValueError: the text is not one :meth:`Tolerance.describe` writes.
    """
    match = _TOLERANCE.match(text or "")
    if not match:
        raise ValueError(f"tolerance {text!r} is not one the report writes")
    if match["op"]:
        kind = "at_most" if match["op"] in "≤<" else "at_least"
        return Tolerance(kind, reason, bound=float(match["bound"]), strict=match["op"] in "<>")
    atol = rtol = 0.0
    for part in match["band"].split(" + ") if match["band"] else ():
        if part.endswith("·|ref|"):
            rtol = float(part.removesuffix("·|ref|"))
        else:
            atol = float(part)
    return Tolerance("close", reason, atol=atol, rtol=rtol)


# what the harness itself records of a run; an old environment's other facts (library versions) were the suite's
_HARNESS_FACTS = {"date", "git_commit", "git_tree", "python", "platform", "device", "seed", "seeds", "xdist_workers",
                  "command", "wall_s"}


def _run_of(stamp: Any) -> tuple[str, dict]:
    """A run id and its environment for an old ``measured_at`` / ``environment`` (commit and date, and the facts the
    suite now reports under ``suite``)."""
    stamp = stamp if isinstance(stamp, dict) else {}
    commit, date = str(stamp.get("git_commit", "unknown")), str(stamp.get("date", "unknown"))
    env = {k: v for k, v in stamp.items() if k in _HARNESS_FACTS}
    suite = {k: str(v) for k, v in stamp.items() if k not in _HARNESS_FACTS}
    return f"{(commit.split() or ['unknown'])[0]}@{date}", {**env, **({"suite": suite} if suite else {})}


def document(data: dict, version: int) -> dict:
    """A version-5 document's dict from a version ``version`` (1 to 4) one: rows, runs and ``not_carried``."""
    runs: dict[str, dict] = {}
    latest, env = _run_of(data.get("environment"))
    runs[latest] = env
    rows = []
    for old in data["claims"]:
        row = {k: v for k, v in old.items() if k not in ("carried", "measured_at", "tolerance_reason")}
        row["tolerance"] = dataclasses.asdict(tolerance_from_text(old["tolerance"], old.get("tolerance_reason", "")))
        if old.get("carried"):
            row["run"], runs_env = _run_of(old.get("measured_at"))
            runs.setdefault(row["run"], runs_env)
        else:
            row["run"] = latest
        revision = old.get("revision")
        if revision:
            row["revision"] = {"preregistered": old.get("preregistered_expect", ""),
                               "source": old.get("preregistered_source", ""), **revision}
        rid = str(old.get("id", ""))
        defaults = {"claim_id": rid.split("[")[0], "case": rid[len(rid.split("[")[0]) + 1:-1] or None, "post": None,
                    "kind": UNNAMED_KIND,
                    "section": None, "expect_source": "", "preregistered_expect": old.get("expected_verdict"),
                    "preregistered_source": old.get("expect_source", ""), "revision": None, "quote": None,
                    "version_note": "", "deviation": "", "figures": []}
        rows.append({**defaults, **row})
    not_carried = [{**{k: v for k, v in n.items() if k != "measured_at"}, "run": _run_of(n.get("measured_at"))[0]}
                   for n in data.get("not_carried", [])]
    return {"runs": runs, "latest_run": latest, "claims": rows, "not_carried": not_carried,
            "warning": data.get("warning", ""), "migrated_from": version}
