"""Synthetic report rows and readers of the rendered pages, shared by the report's page tests
(``test_report_layout.py``, ``test_report_glance.py``): rows built with :func:`make`, documents merged as a run merges
them, a page's table lines and their cells by column."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from claims.posts import POSTS
from llm_claims_harness import markdown, report, results
from llm_claims_harness.posts import Registry
from llm_claims_harness.row import Quote, Row
from llm_claims_harness.tolerance import exact

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = Registry.of(POSTS)
ENV = {"date": "2026-12-01T00:00:00+00:00", "git_commit": "abc123def456", "git_tree": "0123456789ab",
       "python": "3.11", "platform": "linux", "device": "cpu: test", "seed": 42, "seeds": [42], "xdist_workers": 0,
       "command": "pytest", "wall_s": 1.0, "suite": {"torch": "2.x"}}
RUN = "0123456789abcdef"
DEVIATION = "Evaluated on a held-out stream of 16,384 sequences rather than the post's 4,096. " + "More words. " * 20
SKIP = "weights not available: set CLAIMS_TOY_DIR to a directory holding them. " + "Or run once with network. " * 10
QUOTE = Quote("위치 정보는 완벽하게 학습하지만 | *별* <표> 새 위치는 바닥을 칩니다", "positions are learned perfectly, new ones hit the floor")
UNQUOTED = Quote("", "")  # make(): a row that quotes nothing


def make(rid: str, *, kind: str = "post", post: str | None = "A", section: str | None = "exp1", topic: str = "Toy topic",
         version: int = 1, verdict: str = "holds", deviation: str = "", reason: str = "",
         figures: list[str] | None = None, measured: object = 1.0, nodeid: str | None = None, run: str = RUN,
         quote: Quote | None = None, expect: str = "holds") -> Row:
    """A row; a ``post`` or ``literal`` row quotes :data:`QUOTE` unless ``quote`` is given (:data:`UNQUOTED`: none)."""
    claim_id, _, case = rid.partition("[")
    quote = None if quote is UNQUOTED else quote or (QUOTE if kind in report.JUDGED else None)
    return Row(id=rid, claim_id=claim_id, case=case.rstrip("]") or None, post=post, section=section, kind=kind,
               topic=topic, nodeid=nodeid or f"claims/test_toy.py::test_{claim_id.split('.')[-1]}", source="a source",
               statement=f"statement of {rid}, " + "long words " * 30, post_value=1.0, unit="",
               measured=None if verdict == "skipped" else measured, reference=1.0, tolerance=exact(reason="a reason " * 20),
               verdict=verdict, expected_verdict=expect, expect_source="the post " * 20, preregistered_expect=expect,
               preregistered_source="the post", revision=None, quote=quote, reason=reason, version=version,
               version_note="" if version == 1 else "why it changed " * 10, deviation=deviation, duration_s=0.1,
               as_expected=None if verdict in ("skipped", "inconclusive") else verdict == expect, figures=figures or [],
               run=run)


def synthetic() -> dict[str, Row]:
    """Rows declared out of the posts' order: controls, then beyond, post B, post A; cases of one claim."""
    rows = [make("toy.control[a]", kind="control", section="exp3"),
            make("toy.beyond", kind="beyond", post="B", section="rope", version=2),
            make("toy.b_formula", post="B", section="formula", topic="Another topic"),
            make("toy.b_opening", post="B", section="opening", topic="Another topic"),
            make("toy.a_literal", kind="literal", section="exp3"),
            make("toy.a_last", section="add-concat")]
    rows += [make(f"toy.a_exp3[gap{g}]", section="exp3", deviation=DEVIATION,
                  figures=["figures/toy_heatmap.png"] if g == 1 else None) for g in (1, 3, 10, 30)]
    rows += [make(f"toy.a_intro[s{i}]", section="intro", verdict="skipped", reason=SKIP) for i in range(10)]
    return {r.id: r for r in rows}


def document(rows: dict[str, Row], previous: results.Document | None = None,
             collected: results.Collected | None = None) -> results.Document:
    return results.merge(previous, results.Measured(RUN, ENV, rows, {}, collected or {}))


def table(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(f"| {' | '.join(markdown.COLUMNS)} |") + 2
    return lines[start:lines.index("", start)]


def cells(line: str) -> dict[str, str]:
    """A table line's cells by column name (``\\|`` inside a cell is the cell's text, not a border)."""
    parts = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
    assert len(parts) == len(markdown.COLUMNS), line
    return dict(zip(markdown.COLUMNS, parts))


def table_ids(text: str) -> list[str]:
    """Row ids in table order (``[claim](#topic) [case]``, and ``↳ [case]`` lines completed from the claim above)."""
    ids, claim = [], ""
    for line in table(text):
        first = re.sub(r'<a id="[^"]*"></a>|<wbr>', "", cells(line)["claim"])
        match = re.match(r"\[(.+?)\]\(#[^)]*\)(?: (\[.+\]))?$", first)
        if match:
            claim = match.group(1)
            ids.append(claim + (match.group(2) or ""))
        else:
            ids.append(claim + first.removeprefix("↳ "))
    return ids


def doubled(rows: list[Row]) -> dict[str, Row]:
    """Twice the rows: each once more under a new claim id, in the same post and section."""
    twins = [dataclasses.replace(r, id=r.id.replace(r.claim_id, r.claim_id + "_twin", 1),
                                 claim_id=r.claim_id + "_twin") for r in rows]
    return {r.id: r for r in [*rows, *twins]}
