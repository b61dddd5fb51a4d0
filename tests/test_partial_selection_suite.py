"""A partial run of the real suite keeps every row it did not measure (issue 41): the selections pytest offers, each
run on post B's sinusoidal claims (no training, a few seconds) against a copy of the committed report, leave its
263 rows whole, the unmeasured ones as they were (value, verdict, run id). The toy suite's matrix, with ``-x``,
``--sw`` and an interrupted run, is ``llm_claims_harness/tests/test_partial_selection.py``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import child_pytest
import pytest

ROOT = Path(__file__).resolve().parents[1]
FILE = "claims/test_sinusoidal.py"
GAP = [f"pe.sin.dot_depends_only_on_gap[gap{g}-{c}]" for c in ("vs_post", "vs_closed_form", "spread")
       for g in (1, 3, 10, 30)]
LASTFAILED = {f"{FILE}::test_position0": True}


def _declared_in_file() -> int:
    return sum(r["nodeid"].startswith(FILE + "::") for r in _rows(ROOT / "reports")[1].values())


def _rows(out: Path) -> tuple[dict, dict[str, dict]]:
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return data, {r["id"]: r for r in data["claims"]}


@pytest.mark.parametrize(("args", "lastfailed", "measured"), [
    pytest.param([FILE], None, None, id="file"),
    pytest.param([f"{FILE}::test_table_8x6"], None, ["pe.sin.table_8x6"], id="node_id"),
    pytest.param([f"{FILE}::test_shift_is_linear_map[k3]"], None, ["pe.sin.shift_is_linear_map[k3]"],
                 id="parametrised_node_id"),
    pytest.param([FILE, "-k", "pe.sin.dot_depends_only_on_gap"], None, GAP, id="k"),
    pytest.param([FILE, "-m", "claim", "-k", "position0"], None, ["pe.sin.position0"], id="m"),
    pytest.param([f"{FILE}::test_wavelength_spread", "--deselect", f"{FILE}::test_wavelength_spread[monotone]"],
                 None, ["pe.sin.wavelength_spread[fast_pair]", "pe.sin.wavelength_spread[slow_pair]"], id="deselect"),
    pytest.param(["claims", "--lf"], LASTFAILED, ["pe.sin.position0"], id="lf"),
    pytest.param(["-n", "2", f"{FILE}::test_table_8x6", f"{FILE}::test_position0"], None,
                 ["pe.sin.table_8x6", "pe.sin.position0"], id="n2_node_ids"),
    pytest.param([FILE, "--co"], None, [], id="collect_only"),
])
def test_a_selection_of_the_suite_keeps_the_committed_rows(tmp_path: Path, args: list[str], lastfailed: dict | None,
                                                           measured: list[str] | None) -> None:
    out = tmp_path / "report"
    shutil.copytree(ROOT / "reports", out, ignore=shutil.ignore_patterns(".*"))
    before, committed = _rows(out)
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    cache = tmp_path / "cache"
    if lastfailed is not None:
        (cache / "v" / "cache").mkdir(parents=True)
        (cache / "v" / "cache" / "lastfailed").write_text(json.dumps(lastfailed), encoding="utf-8")
    result = child_pytest.run([*args, f"--claims-report-dir={out}", "-o", f"cache_dir={cache}"], cwd=ROOT,
                              timeout=600)
    assert result.ret == 0, "\n".join(result.outlines[-30:] + result.errlines[-30:])
    if measured == []:
        assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files  # nothing written
        return
    after, rows = _rows(out)
    assert set(rows) == set(committed) and len(rows) >= 263
    now = sorted(rid for rid, r in rows.items() if r["run"] == after["latest_run"])
    if measured is None:  # the whole file
        assert len(now) == _declared_in_file() == 26 and all(rows[rid]["nodeid"].startswith(FILE) for rid in now)
    else:
        assert now == sorted(measured)
    assert {rid: r for rid, r in rows.items() if rid not in now} == {
        rid: r for rid, r in committed.items() if rid not in now}
    assert after["latest_run"] != before["latest_run"]
