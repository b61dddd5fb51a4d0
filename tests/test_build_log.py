"""``llm_claims_lab.core.build_log`` reads the cache's events: CPU-seconds per model and phase, and what was built twice."""

from __future__ import annotations

import json

import torch

from llm_claims_lab.core import build_log
from llm_claims_lab.core.cache import Entry, WeightCache


def test_phases_and_models_from_entry_keys() -> None:
    assert build_log.phase("extrapolation-rope-seed42-curve-step750-eval40-0123456789abcdef") == "evaluation"
    assert build_log.model("extrapolation-rope-seed42-curve-step750-eval40-0123456789abcdef") == \
        "extrapolation-rope-seed42-curve"
    assert build_log.phase("corpus-kiwi-0123456789abcdef") == "segmentation"
    assert build_log.phase("skipgram-shuffled-0123456789abcdef") == "training"


def test_a_second_build_of_an_entry_is_reported(tmp_path, capsys) -> None:
    entry = Entry("toy", {"v": 1}, lambda progress: {"w": torch.ones(2)})
    WeightCache(tmp_path, run_id="a").fetch(entry)
    WeightCache(tmp_path, run_id="b", retrain=True).fetch(entry)  # built again
    assert build_log.main([str(tmp_path / "events.jsonl")]) == 0
    assert build_log.main([str(tmp_path / "events.jsonl"), "--check-once"]) == 1
    out = capsys.readouterr().out
    assert "| toy | training |" in out and f"{entry.key} (2x)" in out
    built = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert all("cpu_s" in e for e in built if e["event"] == "build")


def test_earlier_runs_events_are_skipped(tmp_path) -> None:
    entry = Entry("toy", {"v": 1}, lambda progress: {"w": torch.ones(2)})
    WeightCache(tmp_path, run_id="a").fetch(entry)
    before = len((tmp_path / "events.jsonl").read_text().splitlines())
    WeightCache(tmp_path, run_id="b", retrain=True).fetch(entry)  # the next run builds it again, once
    assert build_log.main([str(tmp_path / "events.jsonl"), "--skip", str(before), "--check-once"]) == 0


def test_an_unreadable_log_is_one_line(tmp_path, capsys) -> None:
    (tmp_path / "events.jsonl").write_text("not json\n")
    assert build_log.main([str(tmp_path / "events.jsonl")]) == 2
    (tmp_path / "other.jsonl").write_text("[1, 2]\n")
    assert build_log.main([str(tmp_path / "other.jsonl")]) == 2
    assert build_log.main([str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 3


def test_a_line_cut_by_a_killed_process_is_said_and_skipped(tmp_path) -> None:
    entry = Entry("toy", {"v": 1}, lambda progress: {"w": torch.ones(2)})
    WeightCache(tmp_path, run_id="a").fetch(entry)
    log = tmp_path / "events.jsonl"
    whole = log.read_bytes()
    log.write_bytes(whole + b'{"time": "2026-')  # a process killed while appending its event
    said: list[str] = []
    assert build_log.read(log, say=said.append)[entry.key].builds == 1
    assert len(said) == 1 and f"{log}: skipped 1 line(s)" in said[0] and f"line {len(whole.splitlines()) + 1};" in said[0]
    log.write_bytes(b'{"time": "2026-')  # nothing else: an empty ledger, said
    assert build_log.read(log, say=said.append) == {} and len(said) == 2


def test_each_workers_builds_show_how_they_were_packed(tmp_path, capsys) -> None:
    """Per worker: its builds' span from the log's first event, the seconds it built and those it did not (the
    gap between two builds, where it ran tests or waited); a build's time is its end, its seconds its length."""
    def event(kind, second, worker, **extra):
        return json.dumps({"time": f"2026-12-04T10:00:{second:02d}.000+00:00", "event": kind, "entry": "e",
                           "worker": worker, **extra})
    log = tmp_path / "events.jsonl"
    log.write_text("\n".join([event("build-start", 0, "gw0"), event("build", 10, "gw0", seconds=10.0),
                              event("build", 30, "gw0", seconds=5.0),  # built from 25 s: idle 10 to 25
                              event("build", 20, "gw1", seconds=18.0), event("load", 40, "gw1")]) + "\n")
    workers = build_log.worker_builds(build_log.events(log))
    assert [(w.worker, w.first_start, w.last_end, w.busy_s, w.idle_s) for w in workers] == [
        ("gw0", 0.0, 30.0, 15.0, 15.0), ("gw1", 2.0, 20.0, 18.0, 0.0)]
    assert build_log.main([str(log)]) == 0
    assert "gw0: builds from 0 s to 30 s, building 15 s, not building 15 s" in capsys.readouterr().out
