"""The CI workflow (``.github/workflows/claims.yml``) keeps its promises: runs of one job do not overlap, the
weights cache saves whatever a run retrained, the GPU job is compared with a GPU baseline only, runs only what
uses a device, and both jobs upload the build log and timings."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "claims.yml"


@pytest.fixture(scope="module")
def jobs() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]


def _step(job: dict, name: str) -> dict:
    return next(s for s in job["steps"] if name in (s.get("name") or ""))


def test_every_job_has_a_concurrency_group(jobs) -> None:
    assert all(job.get("concurrency", {}).get("group") for job in jobs.values())
    assert jobs["gpu"]["concurrency"]["cancel-in-progress"] is False  # a GPU run is never cut off halfway


def test_weights_are_saved_under_a_run_unique_key_and_restored_by_prefix(jobs) -> None:
    """A key built from a list of source files misses the ones the list forgets (a fingerprinted module edited,
    its retrained entries never saved): the key is unique per run and restore-keys takes the newest."""
    for job in jobs.values():
        cache = _step(job, "Cache trained weights")["with"]
        assert "github.run_id" in cache["key"] and "hashFiles" not in cache["key"]
        assert cache["key"].startswith(cache["restore-keys"])


def test_the_gpu_job_is_compared_with_a_gpu_baseline_and_runs_what_uses_a_device(jobs) -> None:
    assert jobs["cpu"]["env"]["BASELINE"] == "reports/results.json"
    assert jobs["gpu"]["env"]["BASELINE"] != jobs["cpu"]["env"]["BASELINE"]
    compare = _step(jobs["gpu"], "Compare")["run"]
    assert "$BASELINE" in compare and "reports/results.json" not in compare
    command = _step(jobs["gpu"], "Run every claim on the GPU")["run"].split()
    assert command[:4] == ["pytest", "-n", "2", "claims"] and "tests/test_device.py" in command
    assert "tests" not in command  # the CPU-only harness tests run in the CPU job


def test_both_jobs_upload_the_build_log_and_timings(jobs) -> None:
    for job in jobs.values():
        run = next(s["run"] for s in job["steps"] if "pytest" in str(s.get("run", "")) and "Run every" in s["name"])
        assert "--junitxml=\"$REPORT_DIR/junit.xml\"" in run and "--durations" in run
        ledger = _step(job, "What the run built")["run"]
        assert "events.jsonl\" \"$REPORT_DIR/events.jsonl\"" in ledger
        assert '--skip "$EVENTS_BEFORE" --check-once' in ledger  # this run's builds only, each once
