"""The report's pages (llm_claims_harness.pages, .markdown, .order) and results.json's schema and version-aware merge
(llm_claims_harness.results), on synthetic rows: no pytest run, no measurement. What a post's reader sees at a
glance (kinds, sentences, counts per sentence): ``test_report_glance.py``."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from harness_toy import LOCAL_REPORT
from report_rows import ENV, REGISTRY, ROOT, RUN, cells, document, doubled, make, synthetic, table, table_ids

from claims.posts import POSTS
from llm_claims_harness import markdown, pages, results
from llm_claims_harness.compare import compare
from llm_claims_harness.row import UNNAMED_KIND, Row
from llm_claims_harness.tolerance import exact


@pytest.fixture
def rendered() -> dict[str, str]:
    return pages.pages(document(synthetic()), REGISTRY)


def test_one_page_per_post_in_its_sections_order(rendered) -> None:
    assert list(rendered) == ["CLAIMS.md", "CLAIMS-A.md", "CLAIMS-B.md", "CLAIMS-beyond.md"]
    assert table_ids(rendered["CLAIMS-A.md"]) == [
        *(f"toy.a_intro[s{i}]" for i in range(10)),                  # the post's first section
        *(f"toy.a_exp3[gap{g}]" for g in (1, 3, 10, 30)),            # exp. 3 (natural case order)
        "toy.a_literal",                                             # a literal reading after the claims of its section
        "toy.a_last"]                                                # the post's last section
    assert table_ids(rendered["CLAIMS-B.md"]) == ["toy.b_opening", "toy.b_formula"]
    assert table_ids(rendered["CLAIMS-beyond.md"]) == ["toy.beyond", "toy.control[a]"]  # beyond, then controls
    where = [cells(line)["§"] for line in table(rendered["CLAIMS-A.md"])]
    assert where[0] == "intro" and where[10] == "exp. 3" and where[-1] == "add/concat"  # the registry's labels
    assert [(cells(line)["§"], cells(line)["verdict"]) for line in table(rendered["CLAIMS-beyond.md"])] == [
        ("B RoPE", "✅ holds · *beyond the posts*"), ("A exp. 3", "☑ holds, as designed · *control*")]


def test_version_in_the_details_and_figures_linked_and_shown(rendered) -> None:
    lines = {p: dict(zip(table_ids(text), table(text))) for p, text in rendered.items() if p != "CLAIMS.md"}
    assert "- `toy.beyond` v2 (" in rendered["CLAIMS-beyond.md"]
    assert cells(lines["CLAIMS-A.md"]["toy.a_exp3[gap1]"])["measured"].endswith("[plot](figures/toy_heatmap.png)")
    assert "figures/" not in lines["CLAIMS-A.md"]["toy.a_exp3[gap3]"]
    # shown inline below the table, once, captioned with the rows that drew it
    assert rendered["CLAIMS-A.md"].count("![toy.a_exp3[gap1]](figures/toy_heatmap.png)") == 1


def test_deviation_and_skip_text_written_once(rendered) -> None:
    text = rendered["CLAIMS-A.md"]
    assert text.count("Evaluated on a held-out stream") == 1       # 4 rows share it
    assert text.count("weights not available: set CLAIMS_TOY_DIR") == 1  # 10 rows share it
    assert all(cells(line)["verdict"] == "⏭ skipped S1" for line in table(text)[:10])


def test_index_names_the_posts_pages_and_runs(rendered) -> None:
    index = rendered["CLAIMS.md"]
    assert "commit `abc123def456` · tree `0123456789ab`" in index
    assert POSTS[0].title in index and "[page](CLAIMS-A.md)" in index and "[page](CLAIMS-beyond.md)" in index
    assert "**Run `01234567`**: 20 rows" in index and "torch 2.x" in index


@pytest.mark.parametrize("which", ["today", "twice today"])
def test_every_page_stays_within_its_budget(which: str) -> None:
    """Today's committed rows, and twice as many: every page under the budget (split into parts where it must), every
    line within MAX_LINE bytes, every row on exactly one page."""
    rows = list(results.read(ROOT / "reports" / "results.json").rows)
    wanted = {r.id: r for r in rows} if which == "today" else doubled(rows)
    texts = pages.pages(document(wanted), REGISTRY)
    for name, text in texts.items():
        assert len(text.encode("utf-8")) <= markdown.BUDGET, name
        assert max(len(line.encode("utf-8")) for line in text.splitlines()) <= markdown.MAX_LINE, name
    shown = [rid for name, text in texts.items() if name != "CLAIMS.md" for rid in table_ids(text)]
    assert sorted(shown) == sorted(wanted)
    if which == "twice today":
        assert any(re.fullmatch(r"CLAIMS-[^.]+\.\d+\.md", name) for name in texts)  # a page split into parts


def test_many_long_rows_fit_by_leaner_prose_and_parts() -> None:
    rows = {}
    for n in range(60):
        for case in range(4):
            r = make(f"toy.claim{n}[case{case}]", topic=f"Topic {n % 12}", deviation=f"deviation {n} " * 60,
                     version=1 + n % 3, measured=[float(i) for i in range(50)], section=POSTS[0].sections[n % 11].id)
            rows[r.id] = r
    texts = pages.pages(document(rows), REGISTRY)
    assert all(len(t.encode("utf-8")) <= markdown.BUDGET for t in texts.values())
    assert sum(len(table(t)) for name, t in texts.items() if name != "CLAIMS.md") == 240


def test_a_row_too_big_for_any_page_is_an_error_not_an_overflow() -> None:
    with pytest.raises(pages.ReportBudgetError, match="alone does not fit"):
        pages.pages(document({"toy.x": make("toy.x")}), REGISTRY, budget=2_000)


# ---- results.json: schema and the version-aware merge -----------------------------------------------------

OLD_RUN = "fedcba9876543210"


def previous() -> results.Document:
    rows = [make("toy.same", run=OLD_RUN), make("toy.bumped", run=OLD_RUN), make("toy.removed", run=OLD_RUN),
            make("toy.elsewhere", nodeid="claims/test_other.py::test_elsewhere", run=OLD_RUN)]
    return results.Document({OLD_RUN: {**ENV, "git_commit": "old"}}, OLD_RUN, tuple(rows))


def declared(**versions: int) -> results.Collected:
    return {"claims/test_toy.py": {f"toy.{k}": {"version": v, "post": "A", "section": "exp1"}
                                   for k, v in versions.items()}}


def test_merge_keeps_only_rows_of_the_declared_version() -> None:
    doc = document({"toy.measured": make("toy.measured")}, previous(), declared(measured=1, same=1, bumped=2))
    rows = {r.id: r for r in doc.rows}
    assert set(rows) == {"toy.measured", "toy.same", "toy.elsewhere"}  # toy.removed: no longer declared
    assert rows["toy.same"].run == rows["toy.elsewhere"].run == OLD_RUN  # kept, pointing at the run that measured it
    assert rows["toy.measured"].run == RUN and set(doc.runs) == {RUN, OLD_RUN}
    assert list(doc.not_carried) == [{"id": "toy.bumped", "version": 1, "declared_version": 2, "run": OLD_RUN}]
    assert "toy.bumped (v1 → v2)" in pages.pages(doc, REGISTRY)["CLAIMS.md"]


def test_runs_no_row_points_at_are_dropped() -> None:
    doc = document({r.id: dataclasses.replace(r, run=RUN) for r in previous().rows}, previous())
    assert set(doc.runs) == {RUN}


V4_ROW = {"id": "toy.old[a]", "claim_id": "toy.old", "case": "a", "kind": "post", "topic": "Toy topic",
          "nodeid": "claims/test_toy.py::test_old[a]", "source": "Post A, exp. 1", "statement": "s", "post_value": 1.0,
          "unit": "", "measured": 1.00001, "reference": 1.0, "max_abs_diff": 1e-05, "details": {}, "noise_sd": None,
          "margin_sigma": None, "tolerance": "|Δ| ≤ 5e-05 + 0.01·|ref|", "tolerance_reason": "float32",
          "verdict": "holds", "expected_verdict": "holds", "expect_source": "the post", "reason": "", "version": 1,
          "version_note": "", "deviation": "", "duration_s": 0.1, "device": "cpu", "as_expected": True, "figures": [],
          "interval": None, "preregistered_expect": "holds", "preregistered_source": "the post", "revision": None,
          "quote": {"text": "문장", "gloss": "a sentence"}, "carried": True,
          "measured_at": {"date": "2026-11-30T00:00:00+00:00", "git_commit": "0ld0ld0ld0ld"}}


def test_schema_is_written_and_old_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema": {"name": "llm-claims-results", "version": 4}, "environment": ENV,
                                "claims": [V4_ROW]}), encoding="utf-8")
    old = results.read(path)
    (row,) = old.rows
    assert row.tolerance == dataclasses.replace(exact(reason="float32"), atol=5e-05, rtol=0.01)  # structured from its text
    assert row.run == "0ld0ld0ld0ld@2026-11-30T00:00:00+00:00" and row.run in old.runs
    collected = {"claims/test_toy.py": {**declared(same=1)["claims/test_toy.py"],
                                        "toy.old[a]": {"version": 1, "post": "A", "section": "exp1"}}}
    results.write(tmp_path, results.Measured(RUN, ENV, {"toy.same": make("toy.same")}, {}, collected), REGISTRY)
    new = results.read(path)
    assert json.loads(path.read_text(encoding="utf-8"))["schema"] == results.SCHEMA == {
        "name": "llm-claims-results", "version": 5}
    assert {r.id: (r.post, r.section) for r in new.rows}["toy.old[a]"] == ("A", "exp1")  # placed as declared now
    diff = compare(old, new)  # compare reads both generations
    assert not diff.flips and not diff.moved
    path.write_text(json.dumps({"schema": {"name": "other", "version": 9}, "claims": []}), encoding="utf-8")
    doc, warning = results.load(path)
    assert doc is None and "schema" in warning
    assert "## A row's fields" in (tmp_path / "SCHEMA.md").read_text(encoding="utf-8")


def test_rows_an_old_report_did_not_place_go_on_their_own_page(tmp_path: Path) -> None:
    """A schema-4 file records no post: its rows this run did not collect are shown apart, and the index says why
    (never under 'Beyond the posts')."""
    (tmp_path / "results.json").write_text(json.dumps({"schema": {"name": "llm-claims-results", "version": 4},
                                                       "environment": {**ENV, "torch": "2.x"},
                                                       "claims": [{**V4_ROW, "nodeid": "claims/test_b.py::test_old[a]"}]}),
                                           encoding="utf-8")
    results.write(tmp_path, results.Measured(RUN, ENV, {"toy.same": make("toy.same")}, {}, declared(same=1)), REGISTRY)
    texts = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("CLAIMS*.md")}
    assert '<a id="r-toy-old-a"></a>' in texts["CLAIMS-unplaced.md"] and "toy.old" not in texts.get("CLAIMS-beyond.md", "")
    assert "schema 4, read as schema 5: 1 of its rows record no post" in texts["CLAIMS.md"]
    assert "torch 2.x" in texts["CLAIMS.md"]  # the old environment's library versions, now the suite's facts


def test_rows_round_trip_through_the_typed_row() -> None:
    for r in previous().rows:
        assert Row.from_dict(json.loads(json.dumps(r.to_dict()))) == r


# ---- end to end, through pytester: versions reach the merge, figures reach the row -------------------------

CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n'
SUITE = '''
"""Toy topic."""
from llm_claims_harness.declare import claim, exact

@claim(id="toy.kept", source="Post A, exp. 1", kind="beyond", expect_source="arithmetic", statement="s",
       post_value=1, tolerance=exact(reason="integers"))
def test_kept(verify):
    verify(1)

@claim(id="toy.bumped", source="Post A, exp. 1", kind="beyond", expect_source="arithmetic", statement="s",
       post_value=1, tolerance=exact(reason="integers"){version})
def test_bumped(verify, figure):
    verify(1, figures=figure("toy.txt", lambda path: path.write_text("a figure")))
'''


def test_partial_run_does_not_carry_a_row_of_another_version(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=SUITE.format(version=""))
    pytester.runpytest().assert_outcomes(passed=2)
    first = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert first["toy.bumped"]["figures"] == ["figures/toy.txt"] and first["toy.kept"]["figures"] == []
    assert (pytester.path / LOCAL_REPORT / "figures" / "toy.txt").read_text() == "a figure"
    assert "[plot](figures/toy.txt)" in (pytester.path / LOCAL_REPORT / "CLAIMS-beyond.md").read_text(encoding="utf-8")
    pytester.makepyfile(test_toy=SUITE.format(version=', version=2, version_note="a new protocol"'))
    pytester.runpytest("-k", "toy.kept").assert_outcomes(passed=1)
    data = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in data["claims"]] == ["toy.kept"]
    assert [(n["id"], n["version"], n["declared_version"]) for n in data["not_carried"]] == [("toy.bumped", 1, 2)]


def test_a_figure_outside_the_report_directory_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=SUITE.format(version="").replace(
        'figures=figure("toy.txt", lambda path: path.write_text("a figure"))', 'figures=["../../etc/passwd"]'))
    pytester.runpytest().assert_outcomes(passed=1, failed=1)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert rows["toy.bumped"]["verdict"] == "error" and "relative to the report directory" in rows["toy.bumped"]["reason"]


def test_a_first_schema_report_without_kinds_reads_with_its_kind_unnamed() -> None:
    """The earliest committed reports (no ``schema``, rows without ``kind``) read through the one loader, from text
    as ``tools/reading_history.py`` reads them out of git: each row's kind is ``unnamed``, never a kind guessed."""
    first = {k: v for k, v in V4_ROW.items() if k not in ("kind", "quote", "preregistered_expect",
                                                           "preregistered_source", "revision")}
    doc = results.parse(json.dumps({"environment": ENV, "claims": [first]}), "abc1234:reports/results.json")
    assert doc.migrated_from == 1 and [(r.id, r.kind) for r in doc.rows] == [("toy.old[a]", UNNAMED_KIND)]
    with pytest.raises(results.InputError, match="^abc1234:reports/results.json: not JSON"):
        results.parse("{", "abc1234:reports/results.json")
