"""A run that says where its builds are (issue 42; fixtures/build_progress.py, fixtures/trained.py): the plan once,
then a line for the whole build phase at a steady interval with done/total, what each worker builds and an ETA,
an estimate that grows saying why, and the tests that use no trained model run before those that do. On the printed
lines of a small build: two workers (threads) sharing one task directory, as xdist's workers do."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from fixtures.build_progress import Board, Reporter, plan_line, progress_line, typical_costs

TASKS = [f"toy-{i}" for i in range(6)]


def build_on_two_workers(shared: Path, costs: dict[str, float], seconds: dict[str, float],
                         interval_s: float) -> list[tuple[float, str]]:
    """Each worker walks the tasks, taking those no other has taken (as ``_split_builds`` does); the lines said,
    with their times."""
    said: list[tuple[float, str]] = []
    taken: set[str] = set()
    guard = threading.Lock()
    board = Board(shared)

    def worker(name: str) -> None:
        with Reporter(board, TASKS, lambda line: said.append((time.monotonic(), line)), costs=costs, workers=2,
                      interval_s=interval_s):
            for task in TASKS:
                with guard:
                    if task in taken:
                        continue
                    taken.add(task)
                board.start(task, name)
                time.sleep(seconds[task])
                board.finish(task, name, seconds[task] * 10)  # CPU-s: ten times the wall time, for the check below

    threads = [threading.Thread(target=worker, args=(f"gw{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return said


def test_the_plan_then_steady_lines_for_the_whole_build_phase(tmp_path: Path) -> None:
    costs = {t: 6.0 for t in TASKS}  # typical CPU-s; each takes 0.6 s of wall here (reported as 6 CPU-s)
    start = time.monotonic()
    said = build_on_two_workers(tmp_path, costs, {t: 0.6 for t in TASKS}, interval_s=0.25)
    lines = [line for _, line in said]
    assert lines[0].startswith("6 build tasks for this run (toy 6): about 1 CPU-min") and "on 2 workers" in lines[0]
    assert sum("build tasks for this run" in line for line in lines) == 1  # the plan once, for all workers
    progress = [(at, line) for at, line in said[1:]]
    assert progress and all(re.match(r"builds \d/6 done \(", line) for _, line in progress)
    gaps = [b - a for (a, _), (b, _) in zip([(start, "")] + progress, progress)]
    assert max(gaps[:-1]) < 0.25 * 3  # steady: one printer at a time, every interval (here 0.25 s)
    assert any("building: gw0: toy-" in line and "gw1: toy-" in line for _, line in progress)  # each worker's task
    assert any(" left" in line for _, line in progress[:-1])  # an ETA while builds run
    assert progress[-1][1].startswith("builds 6/6 done (0.6 CPU-min)")  # the last line: all done, once
    assert sum(line.startswith("builds 6/6") for _, line in progress) == 1


def test_an_estimate_that_grows_says_why(tmp_path: Path) -> None:
    board = Board(tmp_path)
    costs = {t: 10.0 for t in TASKS}
    _, first = progress_line(TASKS, costs, board, workers=2, previous_eta=None)
    board.finish("toy-0", "gw0", 40.0)  # took four times its typical cost
    line, second = progress_line(TASKS, costs, board, workers=2, previous_eta=first)
    assert second > first and "(up from " in line and "4.0× their typical CPU time" in line
    steady, _ = progress_line(TASKS, costs, board, workers=2, previous_eta=second)
    assert "up from" not in steady


def test_the_committed_costs_name_every_build_task_of_the_suite() -> None:
    costs = typical_costs()
    assert costs, "fixtures/build_costs.json: the typical CPU-seconds of each build task, from a cold run"
    assert all(v >= 0 for v in costs.values())
    assert plan_line(list(costs), costs, 2).startswith(f"{len(costs)} build tasks for this run")


def test_claims_without_a_trained_model_run_first(pytester: pytest.Pytester) -> None:
    """The suite's ordering hook: the claims that use no lab, then the tests that use one, then the rest."""
    from fixtures import trained

    pytester.makeconftest("""
import pytest
@pytest.fixture
def word2vec():
    return None
""")
    pytester.makepyfile(test_order="""
import pytest
def test_trained_a(word2vec): pass
def test_plain_b(): pass
@pytest.mark.claim
def test_claim_c(): pass
def test_trained_d(word2vec): pass
@pytest.mark.claim
def test_claim_e(): pass
""")
    items, _ = pytester.inline_genitems()
    trained.pytest_collection_modifyitems(items)
    assert [item.name for item in items] == ["test_claim_c", "test_claim_e", "test_trained_a", "test_trained_d",
                                             "test_plain_b"]
