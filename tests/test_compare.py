"""The report comparison (llm_claims_harness/compare.py): flips, moves beyond a row's scale, added and gone rows,
the summary, exit codes and one-line errors on bad input."""

from __future__ import annotations

import copy
import fnmatch
import json
import subprocess
import sys
from pathlib import Path

import pytest

from llm_claims_harness.compare import compare, main, moved
from llm_claims_harness.declare import at_least, at_most, close, exact
from llm_claims_harness.migrate import tolerance_from_text
from llm_claims_harness.report import summary_lines
from llm_claims_harness.results import read
from llm_claims_harness.row import Row

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "reports" / "results.json"


@pytest.fixture(scope="module")
def committed() -> dict:
    """The committed results.json as JSON (tests change its rows as plain dicts, then compare through the CLI)."""
    return json.loads(COMMITTED.read_text(encoding="utf-8"))


def write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def rows(data: dict) -> dict[str, dict]:
    return {r["id"]: r for r in data["claims"]}


def first(data: dict, test) -> dict:
    """The first row of ``data`` that passes ``test`` (the committed report has every kind used here)."""
    return next(r for r in data["claims"] if test(r))


def noisy(r: dict) -> bool:
    return r["verdict"] == "holds" and isinstance(r["measured"], float) and r["noise_sd"] is not None


def plain(r: dict) -> bool:
    return r["verdict"] == "holds" and r["noise_sd"] is None and r["measured"] is not None


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_flip_and_move_are_named(tmp_path, committed, capsys):
    new = copy.deepcopy(committed)
    flip, move = first(new, plain), first(new, noisy)
    flip["verdict"] = "refuted"
    move["measured"] += 10 * move["noise_sd"]
    code, out, err = run(capsys, str(COMMITTED), str(write(tmp_path / "new.json", new)))
    assert (code, err) == (0, "")
    flips = out.split("### Verdict flips")[1].split("###")[0]
    moves = out.split("### Values moved beyond their scale")[1]
    assert f"`{flip['id']}` | holds → **refuted**" in flips and move["id"] not in flips
    assert f"`{move['id']}` | holds |" in moves and "3 SD(Δ) = " in moves
    assert "**1 verdict flips · 1 moved beyond their scale · 0 added · 0 gone · 0 moved post or kind**" in out
    assert "Moved beyond its scale: with noise" in out  # the rule, under the report


def test_identical_reports_show_no_change(committed, capsys):
    code, out, _ = run(capsys, str(COMMITTED), str(COMMITTED), "--fail-on-flip")
    assert code == 0
    assert f"**No change**: all {len(committed['claims'])} rows keep their verdicts" in out
    assert "###" not in out


def test_a_move_within_the_noise_is_listed_apart_largest_first(tmp_path, committed, capsys):
    """A value that moved within its scale is no flip or move, but is named, with how far on its scale (issue 42:
    ``ns.wallclock_speedup`` moving −61 % went unmentioned)."""
    new = copy.deepcopy(committed)
    noisy_rows = [r for r in new["claims"] if noisy(r)]
    small, large = noisy_rows[0], noisy_rows[1]
    small["measured"] += 0.5 * small["noise_sd"]
    large["measured"] += 2 * large["noise_sd"]  # < 3 × √2 SD: the difference of two equally noisy values
    _, out, _ = run(capsys, str(COMMITTED), str(write(tmp_path / "new.json", new)))
    assert "**No change**" in out and "(2 of them moved within their scale)" in out
    listed = out.split("### Values moved within their scale (largest first)")[1]
    assert listed.index(f"`{large['id']}`") < listed.index(f"`{small['id']}`")
    assert "+1.4 SD(Δ)" in listed and "+0.4 SD(Δ)" in listed  # 2/√2 and 0.5/√2


def test_a_changed_input_is_named_with_the_rows_that_read_it(tmp_path, committed, capsys):
    """An evaluation file with one score changed names a new sha256 in the rows that read it: the comparison says so,
    never "No change" (issue 42)."""
    new = copy.deepcopy(committed)
    readers = [r for r in new["claims"] if "WS353_korean.csv" in (r.get("inputs") or {})]
    assert readers
    old_digest = readers[0]["inputs"]["WS353_korean.csv"]
    for r in readers:
        r["inputs"]["WS353_korean.csv"] = "sha256:" + "0" * 64
    code, out, _ = run(capsys, str(COMMITTED), str(write(tmp_path / "new.json", new)))
    assert code == 0 and "No change" not in out
    section = out.split("### Inputs that changed")[1].split("###")[0]
    assert f"`WS353_korean.csv`: `{old_digest[:23]}…` → `sha256:0000000000000000…`" in section
    assert f"read by {len(readers)} rows" in section and all(f"`{r['id']}`" in section for r in readers[:12])


def test_added_and_gone_rows(tmp_path, committed, capsys):
    new = copy.deepcopy(committed)
    gone = new["claims"].pop(0)
    added = {**copy.deepcopy(new["claims"][0]), "id": "pe.sin.brand_new", "verdict": "holds", "measured": 1.5}
    new["claims"].append(added)
    code, out, _ = run(capsys, str(COMMITTED), str(write(tmp_path / "new.json", new)))
    assert code == 0
    assert "### Rows added\n\n- `pe.sin.brand_new`: holds, 1.5" in out
    assert f"### Rows gone\n\n- `{gone['id']}` (was {gone['verdict']}" in out


def test_a_row_that_moves_post_or_kind_is_named_whatever_its_verdict(tmp_path, committed, capsys):
    """A post's row that becomes a literal reading keeps its verdict yet stops counting against the post: named."""
    new = copy.deepcopy(committed)
    row = first(new, lambda r: r["kind"] == "post" and r["post"] == "A")
    row["kind"], other = "literal", first(new, lambda r: r["post"] == "A" and r["id"] != row["id"])
    other["post"] = "B"
    code, out, _ = run(capsys, str(COMMITTED), str(write(tmp_path / "new.json", new)))
    section = out.split("### Rows that moved post or kind")[1]
    assert code == 0 and "· 2 moved post or kind**" in out
    assert f"| `{row['id']}` | post A, kind post | **post A, kind literal** | {row['verdict']} → {row['verdict']} |" in section
    assert f"| `{other['id']}` | post A, kind {other['kind']} | **post B, kind {other['kind']}** |" in section


def test_environments_that_differ_are_named_above_the_counts(tmp_path, committed, capsys):
    new = copy.deepcopy(committed)
    env = new["runs"][new["latest_run"]]
    env["device"] = "cuda: a GPU"
    env["suite"] = {**env.get("suite", {}), "lib": "9.9", "CUDA runtime": "12.6"}
    _, out, _ = run(capsys, str(COMMITTED), str(write(tmp_path / "new.json", new)))
    warning = out.split("> ⚠ **The two runs' environments differ**")[1].split("\n")[0]
    old_env = committed["runs"][committed["latest_run"]]
    assert f"device: {old_env['device']} → cuda: a GPU" in warning
    assert "CUDA runtime: — → 12.6" in warning and "lib: — → 9.9" in warning
    assert out.index("⚠") < out.index("**No change**" if "**No change**" in out else "verdict flips")
    _, same, _ = run(capsys, str(COMMITTED), str(COMMITTED))
    assert "⚠" not in same


def test_fail_on_flip_exit_codes(tmp_path, committed, capsys):
    flipped = copy.deepcopy(committed)
    first(flipped, plain)["verdict"] = "refuted"
    shrunk = copy.deepcopy(committed)
    shrunk["claims"].pop()
    grown = copy.deepcopy(committed)
    grown["claims"].append({**copy.deepcopy(grown["claims"][0]), "id": "pe.sin.brand_new"})
    for name, data, code in (("flipped", flipped, 1), ("shrunk", shrunk, 1), ("grown", grown, 0)):
        path = str(write(tmp_path / f"{name}.json", data))
        assert run(capsys, str(COMMITTED), path, "--fail-on-flip")[0] == code, name
        assert run(capsys, str(COMMITTED), path)[0] == 0, name  # without the option: a report, never a failure


def test_output_is_written_instead_of_printed(tmp_path, capsys):
    target = tmp_path / "deep" / "compare.md"
    code, out, _ = run(capsys, str(COMMITTED), str(COMMITTED), "--output", str(target))
    assert (code, out) == (0, "")
    assert target.read_text(encoding="utf-8").startswith("## Claims: what changed")


def test_summary_reuses_the_report_counts(committed, capsys):
    code, out, _ = run(capsys, "--summary", str(COMMITTED))
    assert code == 0
    assert out.startswith(f"## Claims report: {len(committed['claims'])} rows")
    for line in summary_lines(read(COMMITTED).rows):
        assert f"- {line}\n" in out


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("{not json", "not JSON"),
    ("[1, 2]", "not a claims results file"),
    ('{"claims": [{"id": "a.b"}]}', "a row or run is malformed"),
    ('{"schema": {"name": "llm-claims-results", "version": 99}, "claims": []}', "not a claims results file"),
    ("twice", "a row id repeats"),
    ("verdict", "row * has a verdict that is not one of"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, committed, content, message):
    bad = tmp_path / "bad.json"
    if content == "twice":
        write(bad, {**committed, "claims": committed["claims"][:1] * 2})
    elif content == "verdict":
        write(bad, {**committed, "claims": [{**committed["claims"][0], "verdict": "maybe"}]})
    elif content is not None:
        bad.write_text(content, encoding="utf-8")
    for argv in ((str(bad), str(COMMITTED)), (str(COMMITTED), str(bad)), ("--summary", str(bad))):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, "")
        assert fnmatch.fnmatch(err, f"compare: error: {bad}: {message}*") and err.count("\n") == 1


def test_wrong_number_of_files_is_a_usage_error(capsys):
    for argv in ((str(COMMITTED),), ("--summary", str(COMMITTED), str(COMMITTED))):
        with pytest.raises(SystemExit) as exc:
            main(list(argv))
        assert exc.value.code == 2
    assert "expected" in capsys.readouterr().err


def test_module_entry_point_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "llm_claims_harness.compare", str(tmp_path / "none.json"), str(COMMITTED)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stderr == f"compare: error: {tmp_path / 'none.json'}: no such file\n"


@pytest.mark.parametrize("tolerance", [
    exact(reason="r"), close(reason="r", atol=5.1e-5), close(reason="r", atol=1e-3, rtol=0.01), close(reason="r", rtol=0.05),
    at_most(1e-9, reason="r"), at_most(0.02, reason="r", strict=True), at_least(-5, reason="r"), at_least(0, reason="r", strict=True),
])
def test_a_version_4_tolerance_text_is_read_back(tolerance):
    back = tolerance_from_text(tolerance.describe())
    assert (back.kind, back.atol, back.rtol, back.bound, back.strict) == (
        tolerance.kind, tolerance.atol, tolerance.rtol, tolerance.bound, tolerance.strict)


def row(measured, tolerance: str, reference=None, noise_sd=None) -> Row:
    return Row(id="x.y", claim_id="x.y", case=None, post=None, section=None, kind="beyond", source="s", statement="s",
               post_value=None, unit="", tolerance=tolerance_from_text(tolerance), expected_verdict="holds",
               expect_source="e", preregistered_expect="holds", preregistered_source="e", revision=None, quote=None,
               version=1, version_note="", deviation="", verdict="holds", measured=measured, reference=reference,
               noise_sd=noise_sd)


@pytest.mark.parametrize("old, new, beyond", [
    (row(6.6e-16, "≤ 1e-09"), row(7.1e-15, "≤ 1e-09"), False),     # float rounding far from its bound
    (row(0.4, "≤ 1"), row(0.65, "≤ 1"), False),                    # room 0.6: half is 0.3
    (row(0.4, "≤ 1"), row(0.75, "≤ 1"), True),
    (row(1, "exact", 1), row(2, "exact", 1), True),                # on its bound: any change
    (row(62.0937, "|Δ| ≤ 0.001", 62.0936), row(62.0939, "|Δ| ≤ 0.001", 62.0936), False),  # room 9e-4
    (row(62.0937, "|Δ| ≤ 0.001", 62.0936), row(62.0945, "|Δ| ≤ 0.001", 62.0936), True),
    (row([0.0, 1.0], "|Δ| ≤ 0.1", [0.0, 1.0]), row([0.01, 1.0], "|Δ| ≤ 0.1", [0.0, 1.0]), False),
    (row([0.0, 1.0], "|Δ| ≤ 0.1", [0.0, 1.0]), row([0.0, 1.06], "|Δ| ≤ 0.1", [0.0, 1.0]), True),
    (row([1, 2], "exact", [1, 2]), row([1, 2, 3], "exact", [1, 2]), True),
    (row("queen", "exact", "queen"), row("king", "exact", "queen"), True),
    (row(50.0, "≥ 95", noise_sd=1.0), row(54.0, "≥ 95", noise_sd=1.0), False),  # 4 < 3·√2
    (row(50.0, "≥ 95", noise_sd=1.0), row(55.0, "≥ 95", noise_sd=1.0), True),
    (row(50.0, "≥ 95", noise_sd=1.0), row(52.0, "≥ 95"), False),                  # 2 < 3 × the one SD
])
def test_move_rule(old, new, beyond):
    assert (moved(old, new) is not None) is beyond


def test_compare_counts_every_row_once(committed):
    doc = read(COMMITTED)
    diff = compare(doc, doc)
    assert (diff.flips, diff.moved, diff.added, diff.gone, diff.within) == ([], [], [], [], 0)
    assert diff.unchanged == len(rows(committed)) and not diff.breaks


def test_unreadable_tolerance_text_of_an_old_report_is_an_input_error():
    with pytest.raises(ValueError, match="not one the report writes"):
        tolerance_from_text("within reason")
