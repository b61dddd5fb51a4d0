"""Every re-reading on the record (issue 43, item 1): ``claims/readings.json`` is what the committed reports' history
gives (``tools/reading_history.py --check``), covers every post or literal row whose version moved past 1 at the
version declared now, and the report marks each re-read row, lists its earlier readings and counts the changes by
direction (toward the post, against it, neither)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from claims import readings
from llm_claims_harness import index, markdown, report
from llm_claims_harness.details import topic_lines
from llm_claims_harness.markdown import LEVELS
from llm_claims_harness.row import UNNAMED_KIND, Reading, Row
from report_rows import make

ROOT = Path(__file__).resolve().parents[1]
RECORD = readings.load()["rows"]


def _shallow() -> bool:
    out = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True)
    return out.returncode != 0 or out.stdout.strip() != "false"


@pytest.mark.skipif(_shallow(), reason="a shallow clone (or no git): the committed reports' history is not here "
                                       "(git fetch --unshallow, then python tools/reading_history.py --check)")
def test_the_record_is_what_the_history_gives() -> None:
    run = subprocess.run([sys.executable, "tools/reading_history.py", "--check"], cwd=ROOT, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr


def test_every_row_past_version_1_of_the_posts_is_recorded_at_its_version(declared_rows: list[dict]) -> None:
    """A post or literal row whose claim's version moved past 1 changed something after a measurement: its record says
    what (its earlier readings) or that nothing of its reading changed (none), at the version declared now: a new
    version without a new record fails here until the report is regenerated and the tool run."""
    declared = {r["id"]: r for r in declared_rows}
    due = {rid for rid, r in declared.items() if r["kind"] in ("post", "literal") and r["version"] > 1}
    assert len(due) > 60
    missing = sorted(due - set(RECORD))
    assert not missing, f"rows with no record of their readings (python tools/reading_history.py): {missing}"
    stale = sorted(rid for rid in due if RECORD[rid]["version"] != declared[rid]["version"])
    assert not stale, f"records of another version than the claim's (regenerate, then the tool): {stale}"
    unknown = sorted(set(RECORD) - set(declared))
    assert not unknown, f"records of rows no claim declares: {unknown}"
    for rid, record in RECORD.items():
        assert all(r["version"] <= declared[rid]["version"] for r in record["readings"]), rid


def test_the_records_load_as_readings() -> None:
    for rid, record in RECORD.items():
        for r in record["readings"]:
            Reading(**r)  # raises on a malformed one
        assert isinstance(record["note"], str)


def test_the_named_re_readings_are_on_the_record() -> None:
    """The re-readings the audit of issue 43 names: the Kiwi row's reversed hypothesis (> 0, then < 0.1), and the
    negative-sampling sentence's strict bound moved to a literal row (the post's row ≥ 2,000 refuted, then ≥ 1,000)."""
    kiwi = RECORD["w2v.tokenizer_choice[kiwi]"]["readings"]
    assert [(r["version"], r["tolerance"]) for r in kiwi] == [(1, "> 0")]
    flop = RECORD["ns.flop_ratio"]["readings"]
    assert flop[-1]["tolerance"] == "≥ 2000" and flop[-1]["expected"] == "refuted" and flop[-1]["kind"] == "post"


def _row(rid: str = "x.y", **fields) -> Row:
    """A post row (report_rows.make) at version 3, its fields as ``fields`` give them."""
    return dataclasses.replace(make(rid, version=3, measured=1111.1), version_note="v3: read as the order of magnitude",
                               **fields)


def _reading(version: int, kind: str, verdict: str, why: str = "") -> Reading:
    return Reading(version=version, since="2026-11-29", commit="abc1234", kind=kind, statement="an earlier reading",
                   tolerance="≥ 2000", expected="refuted", verdict=verdict, measured="1111.1", why=why)


def test_directions_follow_the_posts_count() -> None:
    """Refuted post row → holds: toward the post; post row holding → a beyond row: against it (a confirmation left
    the count); a reading without a kind takes the next one's; an unchanged count: neither."""
    toward = _row().with_history([_reading(1, UNNAMED_KIND, "refuted", "v2: kinds"), _reading(2, "post", "refuted")], "")
    assert [d for _, d in report.reading_steps(toward)] == [report.NEITHER, report.TOWARD]
    away = _row(kind="beyond").with_history([_reading(1, "post", "holds")], "")
    assert [d for _, d in report.reading_steps(away)] == [report.AGAINST]
    literal = _row(kind="literal", verdict="refuted").with_history([_reading(1, "post", "refuted")], "")
    assert [d for _, d in report.reading_steps(literal)] == [report.TOWARD]
    c = report.reading_counts([toward, away, literal, _row("z.z")])
    assert (c["rows"], c[report.TOWARD], c[report.AGAINST], c[report.NEITHER]) == (3, 2, 1, 1)


def test_an_undecided_post_row_holds_its_sentence_back() -> None:
    """A sentence holds only when every post row on it holds, so an inconclusive post row that leaves the post's rows
    (w2v.ws353[trained] → beyond, issue 43) moves the count toward the post, though no row's confirmation changed;
    a confirmation that becomes undecided moves it against; undecided under both readings: neither."""
    left = _row(kind="beyond", verdict="inconclusive").with_history([_reading(4, "post", "inconclusive")], "")
    assert [d for _, d in report.reading_steps(left)] == [report.TOWARD]
    slipped = _row(verdict="inconclusive").with_history([_reading(2, "post", "holds")], "")
    assert [d for _, d in report.reading_steps(slipped)] == [report.AGAINST]
    still = _row(verdict="inconclusive").with_history([_reading(1, "post", "inconclusive")], "")
    assert [d for _, d in report.reading_steps(still)] == [report.NEITHER]
    refuted = _row(verdict="refuted").with_history([_reading(1, "post", "inconclusive")], "")
    assert [d for _, d in report.reading_steps(refuted)] == [report.AGAINST]


def test_the_page_and_the_index_show_a_re_reading() -> None:
    row = _row().with_history([_reading(2, "post", "refuted", why="v3 said why")], "v1 is in no committed report")
    assert markdown.verdict_cell(row, {}).endswith(report.REREAD)
    details = "\n".join(topic_lines("T", [row], "t", LEVELS[0]))
    assert "read as v2 from 2026-11-29 (abc1234): kind post, `≥ 2000`, expected refuted" in details
    assert "gave refuted (1111.1); changed (toward the post): v3 said why" in details
    assert "v1 is in no committed report" in details
    lines = "\n".join(index.rereading_lines([row, _row("z.z")]))
    assert "1 row re-read" in lines and "1 toward the post" in lines and "0 against it" in lines
    assert "toward the post: x.y" in lines
    plain = dataclasses.replace(row, readings=[], readings_note="")
    assert report.REREAD not in markdown.verdict_cell(plain, {}) and index.rereading_lines([plain]) == []


def test_the_committed_report_marks_every_recorded_re_reading() -> None:
    rows = {r["id"]: r for r in json.loads((ROOT / "reports" / "results.json").read_text("utf-8"))["claims"]}
    reread = {rid for rid, rec in RECORD.items() if rec["readings"]}
    assert reread <= set(rows)
    assert {rid for rid, r in rows.items() if r["readings"]} == reread
    pages = "\n".join(p.read_text("utf-8") for p in (ROOT / "reports").glob("CLAIMS*.md"))
    assert "Re-readings:" in (ROOT / "reports" / "CLAIMS.md").read_text("utf-8")
    assert all(f"`{rid}` {report.REREAD} read as v" in pages for rid in reread)
