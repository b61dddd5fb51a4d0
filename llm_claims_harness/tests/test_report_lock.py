"""Two runs that share one report directory never lose a row (issue 32): the report's read, merge and writes
(``results.json``, ``samples.jsonl``, the pages) hold the directory's lock (:mod:`llm_claims_harness.lock`), so the
second run waits for the first and merges on top of it.

The overlap is forced, not hoped for: a plugin in the runs' conftest makes each run, once it has read the previous
``results.json``, wait until the other run has reached its own report writing (and a little more, long enough for
an unlocked reader to read), so that without the lock both runs read the same old file and the second write drops
the first run's row. The planted bug (the lock removed) shows that this test catches exactly that."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness_toy import TOY_POSTS

# Two claims, each logging its scored items; each run measures one of them.
CLAIMS = '''
"""Rows of two runs."""
from llm_claims_harness.declare import claim, exact
from llm_claims_harness.samples import Sample

@claim(id="lock.first", source="test", kind="control", expect_source="design", statement="one is one",
       post_value=1, tolerance=exact(reason="integers"))
def test_first(verify):
    verify(1, samples=[Sample("first", input="first", target=1, prediction=1, score=True)])

@claim(id="lock.second", source="test", kind="control", expect_source="design", statement="two is two",
       post_value=2, tolerance=exact(reason="integers"))
def test_second(verify):
    verify(2, samples=[Sample("second", input="second", target=2, prediction=2, score=True)])
'''

# Each run marks when it reaches its report (before any lock) and when it has read the previous results.json;
# after reading, it waits for the other run to arrive, then GRACE_S more (an unlocked reader reads in milliseconds;
# a locked one is blocked until this run has written), then writes. MAX_WAIT_S only ends a wait for a run that died.
OVERLAP = '''
import os, time
from pathlib import Path
from llm_claims_harness import lock, results

GRACE_S, MAX_WAIT_S = 2.0, 120.0
ME, OTHER, MARKS = os.environ["RUN_NAME"], os.environ["OTHER_RUN"], Path(os.environ["MARKS"])
_write, _load = results.write, results.load

def _mark(what):
    (MARKS / f"{ME}.{what}").touch()

def write(out, run, registry, **options):
    _mark("arrived")
    return _write(out, run, registry, **options)

def load(path):
    found = _load(path)
    _mark("read")
    start = time.monotonic()
    while not (MARKS / f"{OTHER}.arrived").exists() and time.monotonic() - start < MAX_WAIT_S:
        time.sleep(0.05)
    time.sleep(GRACE_S)
    return found

results.write, results.load = write, load
if os.environ.get("PLANT_NO_LOCK"):
    import contextlib
    lock.writing = lambda directory, wait_s=0: contextlib.nullcontext()
'''


def _two_runs(pytester: pytest.Pytester, plant: bool) -> tuple[list[subprocess.CompletedProcess], Path]:
    """Start two pytest runs together on one report directory, one measuring each claim; their results and the
    directory."""
    pytester.makeconftest(TOY_POSTS + OVERLAP)
    pytester.makepyfile(test_lock=CLAIMS)
    out, marks = pytester.path / "shared-report", pytester.path / "marks"
    out.mkdir()
    marks.mkdir()
    runs = []
    for me, other, row in (("a", "b", "lock.first"), ("b", "a", "lock.second")):
        env = {"RUN_NAME": me, "OTHER_RUN": other, "MARKS": str(marks), **({"PLANT_NO_LOCK": "1"} if plant else {})}
        runs.append(subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-k", row, f"--claims-report-dir={out}"],
            cwd=pytester.path, env={**_environ(), **env},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    done = [subprocess.CompletedProcess(p.args, p.wait(timeout=300), p.stdout.read()) for p in runs]
    for p in runs:
        p.stdout.close()
    assert {m.name for m in marks.iterdir()} >= {"a.read", "b.read"}, [d.stdout[-2000:] for d in done]
    return done, out


def _environ() -> dict[str, str]:
    """This process's environment (pytester's isolated one) less pytest's own variables (an xdist worker's id)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


def _rows_and_items(out: Path) -> tuple[set[str], set[str]]:
    rows = {r["id"] for r in json.loads((out / "results.json").read_text(encoding="utf-8"))["claims"]}
    lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return rows, {json.loads(line)["item_id"] for line in lines}


def test_two_runs_on_one_report_directory_keep_both_rows(pytester: pytest.Pytester) -> None:
    done, out = _two_runs(pytester, plant=False)
    assert [d.returncode for d in done] == [0, 0], [d.stdout[-2000:] for d in done]
    assert all("1 claim row measured" in d.stdout for d in done)  # each run measured one row (said in the singular)
    rows, items = _rows_and_items(out)
    assert rows == {"lock.first", "lock.second"}
    assert items == {"first", "second"}
    index = (out / "CLAIMS.md").read_text(encoding="utf-8")
    assert index.count("- **Run `") == 2  # both runs are in the index, each with its row


def test_without_the_lock_a_row_is_lost(pytester: pytest.Pytester) -> None:
    """The planted bug: the same overlap with the lock removed loses one run's row and its items, and both runs
    still exit 0 (the failure this issue found)."""
    done, out = _two_runs(pytester, plant=True)
    assert [d.returncode for d in done] == [0, 0], [d.stdout[-2000:] for d in done]
    rows, items = _rows_and_items(out)
    assert len(rows) == 1 and len(items) == 1, (rows, items)


def test_a_stuck_holder_is_an_error_naming_the_lock(tmp_path: Path) -> None:
    """A run that cannot take the lock within its wait writes nothing and says which lock (the plugin reports
    the OSError as the report not written)."""
    from filelock import FileLock

    from llm_claims_harness import lock

    with FileLock(tmp_path / lock.LOCK), pytest.raises(OSError, match=r"held the report lock .*\.claims-report\.lock"):
        with lock.writing(tmp_path, wait_s=0):
            pytest.fail("the body ran without the lock")
