"""The CI workflow (``.github/workflows/claims.yml``) keeps its promises: both jobs install through the one install
step ``.ci/run`` runs (``.ci/install``), on a pinned Python; runs of one job do not overlap and a push elsewhere never
displaces main's GPU run; the token can only read; the CPU job's weights cache saves whatever a run retrained; the
GPU job keeps its virtual environment and caches outside the workspace, compares with main's last GPU report for its
GPU model and keeps each main run's report as the next baseline; the CPU job's caches are saved even after a red\nrun, and pushes install at the pins the weekly run refreshes; both jobs summarise through ``.ci/summarize`` (what
was built, the counts, the comparison) and upload the build log and timings. The linters: ``test_workflow_lint.py``;
the install step itself: ``test_install.py``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "claims.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def jobs(workflow) -> dict:
    return workflow["jobs"]


def _step(job: dict, name: str) -> dict:
    return next(s for s in job["steps"] if name in (s.get("name") or ""))


def _runs(job: dict) -> list[str]:
    return [s["run"] for s in job["steps"] if "run" in s]


def test_every_job_installs_through_the_install_step_ci_runs(jobs) -> None:
    """Today's fault: the jobs' own pip lines left out the harness. No job runs pip itself; each runs .ci/install,
    which .ci/run runs too."""
    for name, job in jobs.items():
        assert not [r for r in _runs(job) if "pip install" in r], f"{name}: a pip line of its own"
        assert any("bash .ci/install" in r for r in _runs(job)), name
    assert "bash .ci/install" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_job_runs_a_pinned_python(jobs) -> None:
    assert any(s.get("with", {}).get("python-version") == "3.11" for s in jobs["cpu"]["steps"])
    assert "python3.11 -m venv" in _step(jobs["gpu"], "Install")["run"]


def test_the_token_only_reads_and_every_action_is_pinned_by_commit(workflow, jobs) -> None:
    assert workflow["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in jobs.values())
    uses = [s["uses"] for job in jobs.values() for s in job["steps"] if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w-]+/[\w/-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert all(s.get("with", {}).get("persist-credentials") is False
               for job in jobs.values() for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))


def test_runs_do_not_overlap_and_main_gpu_run_is_never_displaced(workflow, jobs) -> None:
    assert all(job.get("concurrency", {}).get("group") for job in jobs.values())
    gpu = jobs["gpu"]["concurrency"]
    assert gpu["cancel-in-progress"] is False  # a GPU run is never cut off halfway
    assert "github.ref" in gpu["group"]  # one group per ref: another branch's pending run cannot replace main's
    assert workflow[True]["push"] == {"branches": ["main"]}  # a pull request's branch runs once (YAML reads on: as True)


def test_cpu_weights_are_saved_under_a_run_unique_key_and_restored_by_prefix(jobs) -> None:
    """A key built from a list of source files misses the ones the list forgets (a fingerprinted module edited,
    its retrained entries never saved): the key is unique per run and restore-keys takes the newest."""
    cache = _step(jobs["cpu"], "Restore trained weights")["with"]
    assert "github.run_id" in cache["key"] and "hashFiles" not in cache["key"]
    assert cache["key"].startswith(cache["restore-keys"])


def test_every_cache_is_saved_even_when_tests_fail(jobs) -> None:
    """Issue 41: actions/cache saves only when the job succeeds, so after one red test every later run was cold.
    Each restore has a save of the same path and key, after the tests, under always() (skipped on an exact hit)."""
    steps = jobs["cpu"]["steps"]
    assert not [s["uses"] for s in steps if s.get("uses", "").split("@")[0] == "actions/cache"]
    restores = [s for s in steps if s.get("uses", "").startswith("actions/cache/restore@")]
    saves = [s for s in steps if s.get("uses", "").startswith("actions/cache/save@")]
    tests_at = steps.index(_step(jobs["cpu"], "Run every claim"))
    assert len(restores) == 3 and len(saves) == 3
    for restore in restores:
        save = next(s for s in saves if s["with"]["path"] == restore["with"]["path"])
        assert save["with"]["key"] == restore["with"]["key"] and steps.index(save) > tests_at
        assert save["if"].startswith("always()"), save
        if "id" in restore:
            assert f"steps.{restore['id']}.outputs.cache-hit != 'true'" in save["if"]


def test_pushes_install_at_the_pins_and_the_weekly_run_refreshes_them(workflow, jobs) -> None:
    """Issue 41: a red CI is the change under review, not a new release of a dependency."""
    install = (ROOT / ".ci" / "install").read_text(encoding="utf-8")
    assert 'pins=(-c .ci/constraints.txt)' in install and '"${pins[@]}" "$torch_spec"' in install and "bash .ci/lock --upgrade" in install
    assert workflow["env"]["REFRESH_PINS"] == "${{ github.event_name == 'schedule' && '1' || '0' }}"
    diff = _step(jobs["cpu"], "What the weekly refresh changed in the pins")
    assert diff["if"] == "github.event_name == 'schedule'" and "git diff" in diff["run"]


def test_the_hub_cache_key_names_every_module_that_downloads_from_the_hub(jobs) -> None:
    """A module that asks the hub for files (and pins which) changes what the cache must hold: its key names each."""
    key = _step(jobs["cpu"], "Restore Hugging Face downloads")["with"]["key"]
    asking = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "llm_claims_lab").rglob("*.py"))
              if re.search(r"hf_hub_download|from_pretrained|snapshot_download", p.read_text(encoding="utf-8"))]
    assert asking and all(f"'{path}'" in key for path in asking), asking


def test_the_gpu_job_keeps_its_state_outside_the_workspace(jobs) -> None:
    dirs = _step(jobs["gpu"], "Directories outside the workspace")["run"]
    for var in ("VENV", "CLAIMS_DATA_DIR", "HF_HOME", "CLAIMS_CACHE_DIR"):
        assert re.search(rf"echo \"{var}=\$state/", dirs), var
    assert 'state="$HOME/' in dirs and "github.workspace" not in str(jobs["gpu"])


def test_the_gpu_job_is_compared_with_main_s_last_gpu_report_for_its_gpu_model(jobs) -> None:
    gpu = jobs["gpu"]
    restore = next(s for s in gpu["steps"] if s.get("uses", "").startswith("actions/cache/restore@"))["with"]
    save_step = next(s for s in gpu["steps"] if s.get("uses", "").startswith("actions/cache/save@"))
    assert "env.GPU_NAME" in restore["key"] and restore["key"].startswith(restore["restore-keys"])
    assert save_step["with"]["key"] == restore["key"] and save_step["with"]["path"] == restore["path"]
    assert "refs/heads/main" in save_step["if"] and "success()" in save_step["if"]
    assert '"$BASELINE_DIR/results.json"' in _step(gpu, "comparison with main's last GPU report")["run"]
    assert ".base/reports/results.json" in _step(jobs["cpu"], "comparison with the base branch")["run"]
    command = _step(gpu, "Run every claim on the GPU")["run"].split()
    assert command[:4] == ["pytest", "-n", "2", "claims"] and "tests/test_device.py" in command
    assert "tests" not in command  # the CPU-only harness tests run in the CPU job


def test_both_jobs_summarise_and_upload_the_build_log_and_timings(jobs) -> None:
    for job in jobs.values():
        run = next(s["run"] for s in job["steps"] if "pytest" in str(s.get("run", "")) and "Run every" in s["name"])
        assert '--junitxml="$REPORT_DIR/junit.xml"' in run and "--durations" in run
        summarize = next(s for s in job["steps"] if "bash .ci/summarize" in str(s.get("run", "")))
        assert summarize["if"] == "always()" and summarize["run"].endswith('"$EVENTS_BEFORE"')
        upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
        assert upload["if"] == "always()" and upload["with"]["path"] == "${{ env.REPORT_DIR }}/"


def _summarize(tmp_path: Path, baseline: Path) -> tuple[int, str]:
    """Run .ci/summarize as a job does, on the committed report: its exit status and the job summary it wrote."""
    report = tmp_path / "report"
    report.mkdir(exist_ok=True)
    shutil.copy(ROOT / "reports" / "results.json", report / "results.json")
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "CLAIMS_CACHE_DIR": str(tmp_path / "no-cache")}
    done = subprocess.run(["bash", str(ROOT / ".ci" / "summarize"), str(report), str(baseline), "0"], env=env,
                          cwd=ROOT, capture_output=True, text=True)
    return done.returncode, summary.read_text(encoding="utf-8")


def test_the_summary_compares_with_a_baseline_and_says_when_there_is_none(tmp_path: Path) -> None:
    code, text = _summarize(tmp_path, ROOT / "reports" / "results.json")
    assert code == 0 and "## Claims report:" in text and "**No change**" in text
    assert (tmp_path / "report" / "COMPARE.md").is_file()
    code, text = _summarize(tmp_path, tmp_path / "absent.json")
    assert code == 0 and "## Claims report:" in text and "No baseline report at" in text
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    code, text = _summarize(tmp_path, tmp_path / "bad.json")
    assert code == 2  # an unreadable baseline fails the step


def test_the_harness_alone_is_tested_where_ci_and_the_workflow_run(jobs) -> None:
    """Issue 33: the harness's own tests run with pytest and its wheel alone, in .ci/run and in the CPU job."""
    assert any(r.strip() == "bash .ci/harness-alone" for r in _runs(jobs["cpu"]))
    assert "bash .ci/harness-alone" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
