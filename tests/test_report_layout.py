"""The report's layout (llm_claims_harness.markdown, .order) and results.json's schema and version-aware merge
(llm_claims_harness.results), on synthetic rows: no pytest run, no measurement."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from llm_claims_harness import markdown, order, results
from llm_claims_harness.compare import compare, load
from llm_claims_harness.row import Row

ROOT = Path(__file__).resolve().parents[1]
ENV = {"date": "2026-12-01T00:00:00+00:00", "git_commit": "abc123def456", "git_tree": "0123456789ab",
       "python": "3.11", "torch": "2.x", "transformers": "5.x", "numpy": "2.x", "platform": "linux",
       "device": "cpu: test", "seed": 42, "seeds": [42], "xdist_workers": 0, "command": "pytest", "wall_s": 1.0}
DEVIATION = "Evaluated on a held-out stream of 16,384 sequences rather than the post's 4,096. " + "More words. " * 20
SKIP = "weights not available: set CLAIMS_TOY_DIR to a directory holding them. " + "Or run once with network. " * 10


def make(rid: str, *, kind: str = "post", source: str = "Post A, exp. 1", topic: str = "Toy topic", version: int = 1,
         verdict: str = "holds", deviation: str = "", reason: str = "", figures: list[str] | None = None,
         measured: object = 1.0, nodeid: str | None = None) -> dict:
    claim_id, _, case = rid.partition("[")
    row = Row(id=rid, claim_id=claim_id, case=case.rstrip("]") or None, kind=kind, topic=topic,
              nodeid=nodeid or f"claims/test_toy.py::test_{claim_id.split('.')[-1]}", source=source,
              statement=f"statement of {rid}, " + "long words " * 30, post_value=1.0, unit="",
              measured=None if verdict == "skipped" else measured, reference=1.0, max_abs_diff=None, details={},
              noise_sd=None, margin_sigma=None, tolerance="exact", tolerance_reason="a reason " * 20,
              verdict=verdict, expected_verdict="holds", expect_source="the post " * 20, reason=reason,
              version=version, version_note="" if version == 1 else "why it changed " * 10, deviation=deviation,
              duration_s=0.1, device="cpu", as_expected=None if verdict == "skipped" else verdict == "holds",
              figures=figures or [])
    return row.to_dict()


def synthetic() -> dict[str, dict]:
    """Rows declared out of the posts' order: controls, then beyond, post B, post A; cases of one claim."""
    rows = [make("toy.control[a]", kind="control", source="Post A, exp. 3 'pe_probe.py --exp extrapolate'"),
            make("toy.beyond", kind="beyond", source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다'", version=2),
            make("toy.b_formula", source="Post B, '공식 읽기'", topic="Another topic"),
            make("toy.b_opening", source="Post B, opening", topic="Another topic"),
            make("toy.a_unplaced", source="Post A, somewhere no section table names")]
    rows += [make(f"toy.a_exp3[gap{g}]", source="Post A, exp. 3 'pe_probe.py --exp property'", deviation=DEVIATION,
                  figures=["figures/toy_heatmap.png"] if g == 1 else None) for g in (1, 3, 10, 30)]
    rows += [make(f"toy.a_intro[s{i}]", source="Post A, introduction ('...')", verdict="skipped", reason=SKIP)
             for i in range(10)]
    return {r["id"]: r for r in rows}


def table(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("| id | § | post | measured | verdict | v | fig |") + 2
    return lines[start:lines.index("", start)]


def table_ids(text: str) -> list[str]:
    """Row ids in table order (``↳ [case]`` lines completed from the claim above)."""
    ids, claim = [], ""
    for line in table(text):
        first = line.split(" | ")[0].removeprefix("| ")
        match = re.match(r"\[(.+?)\]\(#", first)
        if match:
            ids.append(match.group(1))
            claim = match.group(1).split("[")[0]
        else:
            ids.append(claim + first.removeprefix("↳ "))
    return ids


@pytest.fixture
def rendered() -> tuple[dict, str]:
    data = results.build({}, synthetic(), {}, ENV)
    return data, markdown.render(data)


def test_one_table_line_per_row_in_the_posts_order(rendered) -> None:
    data, text = rendered
    assert len(table(text)) == len(data["claims"])
    assert table_ids(text) == [
        *(f"toy.a_intro[s{i}]" for i in range(10)),                  # post A, introduction
        *(f"toy.a_exp3[gap{g}]" for g in (1, 3, 10, 30)),            # post A, exp. 3 (natural case order)
        "toy.a_unplaced",                                            # post A, no known section: last in post A
        "toy.b_opening", "toy.b_formula",                            # post B, in its order
        "toy.beyond", "toy.control[a]"]                              # then beyond the posts, then controls


def test_version_column_and_figure_links(rendered) -> None:
    data, text = rendered
    lines = dict(zip(table_ids(text), table(text)))
    version = {rid: line.split(" | ")[5].strip(" |") for rid, line in lines.items()}
    assert version["toy.beyond"] == "2" and version["toy.b_opening"] == "1"
    assert "[plot](figures/toy_heatmap.png)" in lines["toy.a_exp3[gap1]"]
    assert "figures/" not in lines["toy.a_exp3[gap3]"]


def test_deviation_and_skip_text_written_once(rendered) -> None:
    _, text = rendered
    assert text.count("Evaluated on a held-out stream") == 1       # 4 rows share it
    assert text.count("weights not available: set CLAIMS_TOY_DIR") == 1  # 10 rows share it
    assert all(line.endswith("| ⏭ S1 | 1 |") for line in table(text)[:10])


def test_header_names_commit_and_tree(rendered) -> None:
    _, text = rendered
    assert "commit `abc123def456` · tree `0123456789ab`" in text.split("## ")[0]


def test_lines_and_size_stay_within_limits() -> None:
    """Many long rows: lines stay within MAX_LINE and prose is cut until the file fits the budget."""
    rows = {}
    for n in range(60):
        for case in range(4):
            r = make(f"toy.claim{n}[case{case}]", topic=f"Topic {n % 12}", deviation=f"deviation {n} " * 60,
                     version=1 + n % 3, measured=[float(i) for i in range(50)])
            rows[r["id"]] = r
    text = markdown.render(results.build({}, rows, {}, ENV))
    assert max(map(len, text.splitlines())) <= markdown.MAX_LINE
    assert len(text.encode("utf-8")) <= markdown.BUDGET
    assert len(table(text)) == 240


def test_committed_report_renders_within_limits() -> None:
    """Today's committed results.json: CLAIMS.md under 40 KB, or, when even the leanest prose does not fit (240 rows:
    44.6 KB, as README says; issue 21 splits the report per post), the leanest prose; no line over 400 characters."""
    data = json.loads((ROOT / "reports" / "results.json").read_text(encoding="utf-8"))
    text = markdown.render(data)
    leanest = markdown._render(data, order.ordered(list(data["claims"])), markdown.LEVELS[-1])
    assert len(text.encode("utf-8")) < 40_000 or text == leanest
    assert max(map(len, text.splitlines())) <= 400
    assert len(table(text)) == len(data["claims"])


def test_every_section_pattern_is_reachable() -> None:
    """Each section of the ordering table is the one a source naming it lands in."""
    for index, (post, label, _) in enumerate(order.SECTIONS):
        assert order.SECTIONS[index][1] == label and post in order.POST_NAMES
    assert order.section("Post A, exp. 3 'pe_probe.py --exp extrapolate', relative bias (`--pe rel`)")[2] == \
        "A rel. bias"
    assert order.section("Post A, '5편 실험 1' (recalled in '위치: 순환을 버린 대가'); post B, introduction")[2] == \
        "A position"
    assert order.section("a paper, no post")[:2] == (len(order.POST_NAMES), len(order.SECTIONS))


# ---- results.json: schema and the version-aware merge -----------------------------------------------------

def previous() -> dict:
    rows = [make("toy.same", version=1), make("toy.bumped", version=1), make("toy.removed", version=1),
            make("toy.elsewhere", version=1, nodeid="claims/test_other.py::test_elsewhere")]
    return results.build({}, {r["id"]: r for r in rows}, {}, ENV)


def test_merge_keeps_only_rows_of_the_declared_version() -> None:
    now = make("toy.measured")
    collected = {"claims/test_toy.py": {"toy.measured": 1, "toy.same": 1, "toy.bumped": 2}}  # toy.removed: gone
    data = results.build(previous(), {"toy.measured": now}, collected, ENV)
    rows = {r["id"]: r for r in data["claims"]}
    assert set(rows) == {"toy.measured", "toy.same", "toy.elsewhere"}
    assert rows["toy.same"]["carried"] and rows["toy.elsewhere"]["carried"]  # its file was not collected
    assert not rows["toy.measured"]["carried"]
    assert data["not_carried"] == [{"id": "toy.bumped", "version": 1, "declared_version": 2,
                                    "measured_at": {"date": ENV["date"], "git_commit": ENV["git_commit"]}}]
    assert "toy.bumped (v1 → v2)" in markdown.render(data)


def test_schema_is_written_and_old_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    old = previous()
    old.pop("schema")
    path.write_text(json.dumps(old), encoding="utf-8")  # a version-1 file: no schema
    assert results.load(path) == (old, "")
    results.write(tmp_path, {"toy.same": make("toy.same")}, {"claims/test_toy.py": {"toy.same": 1}}, ENV)
    new = json.loads(path.read_text(encoding="utf-8"))
    assert new["schema"] == results.SCHEMA == {"name": "llm-claims-results", "version": 4}
    assert all("figures" in r for r in new["claims"])
    diff = compare(load(path), old | {"claims": old["claims"]})  # compare reads both generations
    assert not diff.flips and not diff.moved
    path.write_text(json.dumps({**new, "schema": {"name": "other", "version": 9}}), encoding="utf-8")
    data, warning = results.load(path)
    assert data == {} and "schema" in warning


def test_rows_round_trip_through_the_typed_row() -> None:
    for r in previous()["claims"]:
        assert Row.from_dict(r).to_dict() == {k: v for k, v in r.items() if k not in ("carried", "measured_at")}


# ---- end to end, through pytester: versions reach the merge, figures reach the row -------------------------

CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n'
SUITE = '''
"""Toy topic."""
from llm_claims_harness.declare import claim, exact

@claim(id="toy.kept", source="Post A, exp. 1", kind="beyond", expect_source="arithmetic", statement="s",
       post_value=1, tolerance=exact("integers"))
def test_kept(verify):
    verify(1)

@claim(id="toy.bumped", source="Post A, exp. 1", kind="beyond", expect_source="arithmetic", statement="s",
       post_value=1, tolerance=exact("integers"){version})
def test_bumped(verify, figure):
    verify(1, figures=figure("toy.txt", lambda path: path.write_text("a figure")))
'''


def test_partial_run_does_not_carry_a_row_of_another_version(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=SUITE.format(version=""))
    pytester.runpytest().assert_outcomes(passed=2)
    first = {r["id"]: r for r in json.loads((pytester.path / "reports" / "results.json").read_text())["claims"]}
    assert first["toy.bumped"]["figures"] == ["figures/toy.txt"] and first["toy.kept"]["figures"] == []
    assert (pytester.path / "reports" / "figures" / "toy.txt").read_text() == "a figure"
    assert "[plot](figures/toy.txt)" in (pytester.path / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    pytester.makepyfile(test_toy=SUITE.format(version=', version=2, version_note="a new protocol"'))
    pytester.runpytest("-k", "toy.kept").assert_outcomes(passed=1)
    data = json.loads((pytester.path / "reports" / "results.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in data["claims"]] == ["toy.kept"]
    assert [(n["id"], n["version"], n["declared_version"]) for n in data["not_carried"]] == [("toy.bumped", 1, 2)]


def test_a_figure_outside_the_report_directory_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=SUITE.format(version="").replace(
        'figures=figure("toy.txt", lambda path: path.write_text("a figure"))', 'figures=["../../etc/passwd"]'))
    pytester.runpytest().assert_outcomes(passed=1, failed=1)
    rows = {r["id"]: r for r in json.loads((pytester.path / "reports" / "results.json").read_text())["claims"]}
    assert rows["toy.bumped"]["verdict"] == "error" and "relative to the report directory" in rows["toy.bumped"]["reason"]
