"""Write ``claims/readings.json``: the readings each row of the posts had before its current one, reconstructed from
the repository's history of the committed report (``git log -- reports/results.json``) and its working copy.

A reading is what a row tests: its kind, its tolerance (bound and direction), its expected verdict, and, where the
claim's version changed with it, its statement (a statement reworded without a version bump is the same reading).
For every row whose kind is, or once was, ``post`` or ``literal``, the record lists each earlier reading with the date
and commit of the first committed report that shows it, the verdict and value of the last report under it, and why it
was replaced (the next reading's version note, or that no note says why). It also says which of the row's versions no
committed report shows (their readings cannot be reconstructed). Rows of those kinds at version 2 or later always
have a record, even with no earlier reading (their version changed the protocol, not the reading):
``tests/test_reading_history.py`` holds the record against the claims' declared versions.

    python tools/reading_history.py            # rewrite claims/readings.json
    python tools/reading_history.py --check    # exit 1 when the file is not what the history gives

Run it after a run that regenerated the report (``--claims-regenerate``) with a claim's new reading. It needs the
repository's full history (a shallow clone: exit 2).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from claims import readings  # noqa: E402
from llm_claims_harness import results  # noqa: E402
from llm_claims_harness.atomic import write_text_atomic  # noqa: E402
from llm_claims_harness.report import show  # noqa: E402
from llm_claims_harness.row import UNNAMED_KIND, Row  # noqa: E402
from llm_claims_harness.text import cut  # noqa: E402

REPORT = "reports/results.json"
QUOTED = ("post", "literal")  # the kinds whose rows judge a post
MEASURED_CHARS = 60  # a reading's measured value, as the report shows it, cut


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def snapshots() -> list[tuple[str, str, dict[str, Row]]]:
    """``(commit, date, rows by id)`` of every committed report, oldest first, each read by the harness's loader
    (any schema), then the working copy's when it differs from the last commit's (commit ``""``).

    Raises:
        SystemExit: the clone is shallow (its history is cut).
    """
    if _git("rev-parse", "--is-shallow-repository").strip() == "true":
        sys.exit("tools/reading_history.py: this clone is shallow; the history needs every commit (git fetch --unshallow)")
    out = []
    for line in _git("log", "--reverse", "--format=%h %as", "--", REPORT).splitlines():
        commit, date = line.split()
        doc = results.parse(_git("show", f"{commit}:{REPORT}"), f"{commit}:{REPORT}")
        out.append((commit, date, {r.id: r for r in doc.rows}))
    working = (ROOT / REPORT).read_text(encoding="utf-8")
    if not out or working != _git("show", f"HEAD:{REPORT}"):
        out.append(("", "", {r.id: r for r in results.parse(working, REPORT).rows}))
    return out


def _reading(row: Row) -> dict[str, Any]:
    return {"version": row.version, "kind": row.kind, "statement": row.statement,
            "tolerance": row.tolerance.describe(), "expected": row.expected_verdict}


def _changed(old: dict, new: dict) -> bool:
    """Whether ``new`` reads the row otherwise than ``old``: kind (where both name one), tolerance, expectation, or
    the statement with a new version."""
    named = UNNAMED_KIND not in (old["kind"], new["kind"])
    return ((named and old["kind"] != new["kind"]) or old["tolerance"] != new["tolerance"]
            or old["expected"] != new["expected"]
            or (old["version"] != new["version"] and old["statement"] != new["statement"]))


def history(shots: list[tuple[str, str, dict[str, Row]]]) -> dict[str, dict[str, Any]]:
    """The record of every current row whose kind is or was post or literal and that has an earlier reading or a
    version above 1 (see the module's docstring), by row id."""
    current = shots[-1][2]
    records = {}
    for rid, now in current.items():
        spans: list[dict[str, Any]] = []  # one per reading: its first and last report
        seen_versions = set()
        for commit, date, rows in shots:
            row = rows.get(rid)
            if row is None:
                continue
            reading = _reading(row)
            seen_versions.add(reading["version"])
            if spans and not _changed(spans[-1]["reading"], reading):
                kind = spans[-1]["reading"]["kind"] if reading["kind"] == UNNAMED_KIND else reading["kind"]
                spans[-1].update(last=row, last_commit=commit or spans[-1]["last_commit"], reading={**reading, "kind": kind})
                continue
            if spans and reading["version"] == spans[-1]["reading"]["version"]:
                why = (f"changed without a version bump after the report of {spans[-1]['last_commit']}: no version "
                       "note says why")
            else:
                why = row.version_note
            if spans:
                spans[-1]["why"] = why
            spans.append({"reading": reading, "since": date, "commit": commit, "last": row, "last_commit": commit,
                          "why": ""})
        kinds = {s["reading"]["kind"] for s in spans}
        version = now.version
        if not kinds & set(QUOTED) or (len(spans) == 1 and version == 1):
            continue
        missing = [v for v in range(1, version + 1) if v not in seen_versions]
        note = (f"{_versions(missing)} {'is' if len(missing) == 1 else 'are'} in no committed report: "
                f"{'its reading' if len(missing) == 1 else 'their readings'} cannot be reconstructed" if missing else "")
        earlier = [{"version": s["reading"]["version"], "since": s["since"], "commit": s["commit"],
                    "kind": s["reading"]["kind"], "statement": s["reading"]["statement"],
                    "tolerance": s["reading"]["tolerance"], "expected": s["reading"]["expected"],
                    "verdict": s["last"].verdict, "measured": cut(show(s["last"].measured), MEASURED_CHARS),
                    "why": s["why"]}
                   for s in spans[:-1]]
        records[rid] = {"version": version, "readings": earlier, "note": note}
    return dict(sorted(records.items()))


def _versions(numbers: list[int]) -> str:
    return ", ".join(f"v{n}" for n in numbers)


def document() -> dict[str, Any]:
    return {"about": readings.ABOUT, "rows": history(snapshots())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when claims/readings.json is not what the "
                                                             "history gives (writes nothing)")
    args = parser.parse_args(argv)
    text = json.dumps(document(), ensure_ascii=False, indent=1) + "\n"
    if args.check:
        if readings.PATH.read_text(encoding="utf-8") != text:
            print(f"{readings.PATH.relative_to(ROOT)} is not what the report's history gives: run "
                  "python tools/reading_history.py", file=sys.stderr)
            return 1
        print(f"{readings.PATH.relative_to(ROOT)} matches the report's history")
        return 0
    write_text_atomic(readings.PATH, text)
    rows = json.loads(text)["rows"]
    print(f"wrote {readings.PATH.relative_to(ROOT)}: {len(rows)} rows, "
          f"{sum(1 for r in rows.values() if r['readings'])} re-read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
