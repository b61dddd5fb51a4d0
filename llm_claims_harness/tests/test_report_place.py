"""Ad-hoc runs leave tracked files alone (issue 41): a run writes the committed report, ``<rootdir>/reports``, only
under ``--claims-regenerate`` (pytest-regressions' ``--force-regen`` convention); otherwise its report lands in
``<rootdir>/.claims/report``, which git ignores by a ``.gitignore`` of its own, and starts from the committed report,
so a partial run still gives a whole report."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness_toy import LOCAL_REPORT

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, check=True).stdout


def _committed(suite: pytest.Pytester) -> dict[str, bytes]:
    suite.runpytest("--claims-regenerate", "--claims-catalogue").assert_outcomes()
    suite.runpytest("--claims-regenerate").assert_outcomes(passed=6, skipped=1)
    return {str(p.relative_to(suite.path)): p.read_bytes() for p in (suite.path / "reports").rglob("*") if p.is_file()}


@needs_git
def test_an_ad_hoc_run_leaves_git_status_clean(suite: pytest.Pytester) -> None:
    committed = _committed(suite)
    _git(suite.path, "init", "-q")
    _git(suite.path, "add", "-A")
    _git(suite.path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "the suite and its report")
    for args in ((), ("test_toy.py::test_holds",), ("-k", "toy.cases"), ("--claims-catalogue",)):
        result = suite.runpytest(*args)
        assert _git(suite.path, "status", "--porcelain") == "", args
        assert {str(p.relative_to(suite.path)): p.read_bytes()
                for p in (suite.path / "reports").rglob("*") if p.is_file()} == committed
    result.stdout.fnmatch_lines([f"claims catalogue: 6 rows written to *{LOCAL_REPORT / 'CATALOGUE.md'}"])
    assert (suite.path / ".claims" / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"


def test_the_local_report_starts_from_the_committed_one(suite: pytest.Pytester) -> None:
    _committed(suite)
    whole = json.loads((suite.path / "reports" / "results.json").read_text(encoding="utf-8"))
    result = suite.runpytest("test_toy.py::test_holds")
    result.stdout.fnmatch_lines([f"report: *{LOCAL_REPORT / 'CLAIMS.md'}"])
    local = json.loads((suite.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in local["claims"]] == [r["id"] for r in whole["claims"]]
    assert {r["id"] for r in local["claims"] if r["run"] == local["latest_run"]} == {"toy.holds"}
    assert {r["id"]: r for r in local["claims"] if r["id"] != "toy.holds"} == {
        r["id"]: r for r in whole["claims"] if r["id"] != "toy.holds"}
    assert (suite.path / LOCAL_REPORT / "CATALOGUE.md").exists()  # the pages link the catalogue it carried


def test_regenerate_rewrites_the_committed_report(suite: pytest.Pytester) -> None:
    _committed(suite)
    before = json.loads((suite.path / "reports" / "results.json").read_text(encoding="utf-8"))
    result = suite.runpytest("--claims-regenerate", "-k", "toy.holds")
    result.stdout.fnmatch_lines(["report: */reports/CLAIMS.md"])
    after = json.loads((suite.path / "reports" / "results.json").read_text(encoding="utf-8"))
    assert after["latest_run"] != before["latest_run"] and after["measured_this_run"] == 1
    assert not (suite.path / LOCAL_REPORT).exists()


def test_regenerate_and_a_named_directory_are_one_or_the_other(suite: pytest.Pytester, tmp_path: Path) -> None:
    result = suite.runpytest("--claims-regenerate", f"--claims-report-dir={tmp_path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-regenerate writes the committed report*give one of them*"])


def test_a_named_directory_starts_empty(suite: pytest.Pytester, tmp_path: Path) -> None:
    """``--claims-report-dir`` is the user's own place: nothing is carried into it from the committed report."""
    _committed(suite)
    suite.runpytest(f"--claims-report-dir={tmp_path / 'mine'}", "-k", "toy.holds").assert_outcomes(passed=1)
    rows = json.loads((tmp_path / "mine" / "results.json").read_text(encoding="utf-8"))["claims"]
    assert [r["id"] for r in rows] == ["toy.holds"]



def test_the_local_report_starts_again_when_the_committed_one_changes(suite: pytest.Pytester) -> None:
    """After a pull or a regeneration, rows an earlier ad-hoc run measured are not shown beside the new committed
    ones as if current: the local report starts again from the committed one, and says so."""
    _committed(suite)
    local = suite.path / LOCAL_REPORT / "results.json"

    def rows() -> dict[str, str]:
        return {r["id"]: r["run"] for r in json.loads(local.read_text(encoding="utf-8"))["claims"]}

    suite.runpytest("-k", "toy.holds")
    first = rows()["toy.holds"]
    suite.runpytest("-k", "toy.skipped")  # the committed report unchanged: the earlier ad-hoc row stays
    assert rows()["toy.holds"] == first
    suite.runpytest("--claims-regenerate", "-k", "toy.cases")  # a regeneration (or a pull) changes reports/
    committed = {r["id"]: r["run"] for r in json.loads(
        (suite.path / "reports" / "results.json").read_text(encoding="utf-8"))["claims"]}
    result = suite.runpytest("-k", "toy.refuted_as_expected")
    result.stdout.fnmatch_lines(["report: the committed report changed since this report began: it starts again "
                                 "from */reports (rows measured by earlier ad-hoc runs were dropped)*"])
    now = rows()
    assert now["toy.holds"] == committed["toy.holds"] != first
    assert {rid: run for rid, run in now.items() if rid != "toy.refuted_as_expected"} == {
        rid: run for rid, run in committed.items() if rid != "toy.refuted_as_expected"}


@pytest.mark.parametrize("form", ["reports", "./reports/", "absolute", "link", "reports/mine"])
def test_the_committed_report_is_written_only_by_regenerate(suite: pytest.Pytester, form: str) -> None:
    """Naming the committed directory with --claims-report-dir (any spelling of it, a link to it, a directory in
    it) is a usage error before measuring, the committed report left byte for byte."""
    committed = _committed(suite)
    named = {"absolute": str(suite.path / "reports"), "link": "mine"}.get(form, form)
    if form == "link":
        (suite.path / "mine").symlink_to(suite.path / "reports", target_is_directory=True)
    result = suite.runpytest(f"--claims-report-dir={named}", "-k", "toy.holds")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*report: --claims-report-dir={named} is the committed report (*reports), which a "
                                 "run writes only under --claims-regenerate*"])
    assert {str(p.relative_to(suite.path)): p.read_bytes()
            for p in (suite.path / "reports").rglob("*") if p.is_file()} == committed


@pytest.mark.parametrize("damage", ["truncated", "not_json", "another_schema"])
def test_a_damaged_local_report_starts_again_from_the_committed_one(suite: pytest.Pytester, damage: str) -> None:
    """A local results.json that cannot be read is kept aside, and the report starts again from the committed
    one: every row is there again at once, and in every run after it (not a report of this run's rows alone)."""
    _committed(suite)
    whole = [r["id"] for r in json.loads((suite.path / "reports" / "results.json").read_text())["claims"]]
    suite.runpytest("-k", "toy.holds")
    local = suite.path / LOCAL_REPORT / "results.json"
    text = local.read_text(encoding="utf-8")
    broken = {"truncated": text[: len(text) // 2], "not_json": "<<<<<<< HEAD\n",
              "another_schema": '{"claims": [{"id": "x", "extra_field": 1}]}'}[damage]
    local.write_text(broken, encoding="utf-8")
    result = suite.runpytest("-k", "toy.skipped")
    result.stdout.fnmatch_lines(["report: the previous results.json was unreadable (*); nothing was carried over from "
                                 "it; it is kept as results.json.unreadable, and the report starts again from "
                                 "*reports (rows measured by earlier ad-hoc runs were dropped)*"])
    assert (suite.path / LOCAL_REPORT / "results.json.unreadable").read_text(encoding="utf-8") == broken
    for _ in range(2):  # and the run after it, which says nothing more
        rows = json.loads(local.read_text(encoding="utf-8"))
        assert [r["id"] for r in rows["claims"]] == whole and not rows["warning"]
        assert {r["id"] for r in rows["claims"] if r["run"] == rows["latest_run"]} == {"toy.skipped"}
        result = suite.runpytest("-k", "toy.skipped")
        assert "unreadable" not in result.stdout.str()
