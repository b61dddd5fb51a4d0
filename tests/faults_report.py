"""Fault scenarios (tests/faults_common.py) of the report: a previous results.json, the report directory, option
values; an unwritable directory is simulated (root writes anyway)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from faults_common import TRUNCATIONS, leftovers, scenario
from faults_state import FORMATS, ROOT, damage, run


def committed_report(out: Path):
    """The committed report's fourth row, measured again by a run, and ``out`` made to hold the report's first three
    rows as the previous report."""
    from claims.posts import POSTS
    from llm_claims_harness import results
    from llm_claims_harness.posts import Registry

    data = json.loads((ROOT / "reports" / "results.json").read_text(encoding="utf-8"))
    out.mkdir()
    (out / "results.json").write_text(json.dumps({**data, "claims": data["claims"][:3]}), encoding="utf-8")
    row = results.read(ROOT / "reports" / "results.json").rows[3]
    return results.Measured("a-run", {"date": "now"}, {row.id: row}, {}, {}), Registry.of(POSTS)


def previous_fails(tmp_path: Path, fault: str, way: str) -> None:
    """A damaged previous results.json: compare names it (exit 2, one line); the report is written without it."""
    from llm_claims_harness import results

    (run_, registry), out = committed_report(tmp_path / "reports"), tmp_path / "reports"
    (good := tmp_path / "good.json").write_bytes((previous := out / "results.json").read_bytes())
    damage(previous, fault, way, {"schema": {"name": "llm-claims-catalogue"}, "claims": {}})
    proc = run("-m", "llm_claims_harness.compare", str(previous), str(good))
    assert (proc.returncode, proc.stdout, proc.stderr.count("\n")) == (2, "", 1) and str(previous) in proc.stderr
    _, warning = results.write(out, run_, registry)
    assert (str(previous) in warning) == (fault != "missing") and "\n" not in warning, warning
    written = json.loads(previous.read_text(encoding="utf-8"))
    assert [r["id"] for r in written["claims"]] == list(run_.rows) and written["warning"] == warning
    assert not leftovers(out)


for _fault, _ways in {"missing": ("",), "empty": ("",), "truncated": TRUNCATIONS, "wrong format": FORMATS}.items():
    scenario("previous results.json", _fault, _ways)(
        lambda tmp_path, way, fault=_fault: previous_fails(tmp_path, fault, way))

TOY = '''from llm_claims_harness.declare import claim, exact
@claim(id="toy.sum", source="test", kind="beyond", expect_source="arithmetic", statement="1 + 1 is 2",
       post_value=2, tolerance=exact(reason="integers"))
def test_sum(verify):
    verify(1 + 1)
'''
LOCK = '''import os
access, LOCKED = os.access, os.environ["LOCKED"]  # root writes anyway: a directory it cannot write, simulated
os.access = lambda p, mode, **kw: (os.path.abspath(p) != LOCKED or not mode & os.W_OK) and access(p, mode, **kw)
'''


def pytest_in(tmp_path: Path, conftest: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """pytest run in a fresh root holding ``conftest`` and a one-claim suite."""
    for name, text in {"pytest.ini": "[pytest]\n", "conftest.py": conftest, "test_toy.py": TOY}.items():
        (tmp_path / name).write_text(text)
    return run("-m", "pytest", "-p", "no:cacheprovider", *args, cwd=tmp_path, env=env)


@scenario("report directory", "read-only target", variants=("named", "default"))
def _(tmp_path: Path, how: str) -> None:
    locked = tmp_path / ("out" if how == "named" else ".claims/report")
    locked.mkdir(parents=True)
    proc = pytest_in(tmp_path, LOCK, *(["--claims-report-dir", str(locked)] if how == "named" else []),
                     env={"LOCKED": str(locked)})
    said = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR and "Traceback" not in said, said
    assert any(str(locked) in line and "not writable" in line for line in said.splitlines()), said


FULL = '''import errno
from llm_claims_harness import results
def full(directory, texts):  # a disk that fills as the report is written, simulated
    raise OSError(errno.ENOSPC, "No space left on device")
results.write_texts_atomic = full
'''


@scenario("report directory", "full disk")
def _(tmp_path: Path, _variant: str) -> None:
    proc = pytest_in(tmp_path, FULL, "-p", "no:randomly")
    said = proc.stdout + proc.stderr
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED and "Traceback" not in said, said
    out = tmp_path / ".claims" / "report"
    assert f"report: the report could not be written to {out} (No space left on device)" in said
    assert "1 passed" in said and not leftovers(out)


@scenario("report directory", "stale leftover")
def _(tmp_path: Path, _variant: str) -> None:
    from llm_claims_harness import results

    (run_, registry), out = committed_report(tmp_path / "reports"), tmp_path / "reports"
    for name in ("CLAIMS.md", "results.json", "SCHEMA.md"):
        stale = out / f".{name}.killed.tmp"
        stale.write_text('{"claims": [')  # a killed run's partial writes, an hour old
        os.utime(stale, (time.time() - 3600,) * 2)
    (out / ".CLAIMS.md.running.tmp").write_text("# half")  # another run's, being written now: kept
    results.write(out, run_, registry)
    assert leftovers(out) == [".CLAIMS.md.running.tmp"]
    assert len(json.loads((out / "results.json").read_text())["claims"]) == 4


@scenario("option values", "wrong format", variants=("--claims-seed=abc", "--claims-seed=-1", "--claims-seeds=0",
                                                     "--claims-device=tpu", "--claims-w2v-kernels=slow"))
def _(tmp_path: Path, option: str) -> None:
    proc = pytest_in(tmp_path, 'pytest_plugins = ["fixtures.options"]\n', "--co", option)
    said = [line for line in proc.stderr.splitlines() if f"argument {option.split('=')[0]}:" in line]
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR and said and "Traceback" not in proc.stderr, proc.stderr
