"""The cost ledger: a cold build of every trained model the claims use, then a warm run, CPU-seconds per model and
phase.

Run: ``python benchmarks/cost_ledger.py [--workers 2] [--cache-dir DIR] [--readme docs/running.md]``. It runs
``pytest claims`` twice in subprocesses with the report off: first on a fresh weight cache (``--cache-dir``, else a
temporary directory; its ``events.jsonl`` gives every build's CPU-seconds: training, evaluation, segmentation, see
:mod:`llm_claims_lab.core.build_log`), then again on the now warm cache, whose per-test times are the claims' own
measuring (bootstraps, timing rows, pretrained tables), listed for the ten slowest tests. ``--readme FILE``
rewrites the cost paragraph of FILE between ``<!-- cost-ledger -->`` and ``<!-- /cost-ledger -->`` from what it
measured. Data comes from the usual data directory or mirror (``CLAIMS_DATA_DIR``, ``CLAIMS_DATA_MIRROR``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from llm_claims_lab.core import build_log

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- cost-ledger -->", "<!-- /cost-ledger -->"


def run_claims(cache: Path, workers: int, junit: Path, select: str | None) -> float:
    """``pytest claims`` (``-k select`` when given) on ``cache`` with ``workers`` xdist workers (0: serial); its
    wall seconds."""
    command = [sys.executable, "-m", "pytest", "claims", "-q", "-p", "no:cacheprovider", "--no-claims-report",
               f"--claims-cache-dir={cache}", f"--junitxml={junit}", "-n", str(workers),
               *(["-k", select] if select else [])]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, check=False)
    if done.returncode not in (0, 1):  # 1: some rows failed, still measured; else nothing ran as it should
        sys.exit(f"cost_ledger: `{' '.join(command[2:])}` exited {done.returncode} (its output is above)")
    return time.perf_counter() - start


def test_times(junit: Path) -> list[tuple[float, str]]:
    """(seconds, test id) of every test case in a JUnit XML file, slowest first."""
    cases = ET.parse(junit).getroot().iter("testcase")
    return sorted(((float(c.get("time", 0)), f"{c.get('classname')}::{c.get('name')}") for c in cases), reverse=True)


def paragraph(entries: dict[str, build_log.EntryLog], cold_s: float, warm_s: float, workers: int,
              warm: list[tuple[float, str]]) -> str:
    """README's cost paragraph from the measured ledger."""
    by_phase: dict[str, float] = {}
    for log in entries.values():
        by_phase[build_log.phase(log.entry)] = by_phase.get(build_log.phase(log.entry), 0.0) + log.cpu_s
    models: dict[str, float] = {}
    for log in entries.values():
        if build_log.phase(log.entry) == "training":
            kind = re.sub(r"-seed\d+.*$", "", build_log.model(log.entry))
            models[kind] = models.get(kind, 0.0) + log.cpu_s
    top = ", ".join(f"{name} {cpu:.0f}" for name, cpu in sorted(models.items(), key=lambda kv: -kv[1]))
    return (f"Cost of `pytest claims -n {workers}` on this machine ({platform.machine()}, measured "
            f"{dt.date.today().isoformat()} by `python benchmarks/cost_ledger.py`): cold (a fresh weight cache) "
            f"{cold_s / 60:.1f} min wall, warm {warm_s / 60:.1f} min. CPU-seconds of the cold builds: training "
            f"{by_phase.get('training', 0):.0f} ({top}), evaluation {by_phase.get('evaluation', 0):.0f}, "
            f"segmentation {by_phase.get('segmentation', 0):.0f}; the claims' own measuring (bootstraps, timings, "
            f"pretrained tables) is the warm run, slowest test {warm[0][1]} {warm[0][0]:.0f} s.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="xdist workers (0: serial; default 2)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="a fresh directory for the weight cache")
    parser.add_argument("--readme", type=Path, default=None, help="rewrite this file's cost paragraph")
    parser.add_argument("-k", dest="select", default=None, help="only the claims this -k expression selects")
    args = parser.parse_args()
    if args.readme and args.select:
        sys.exit("cost_ledger: --readme rewrites the cost of the whole suite; drop -k")
    if args.readme and (not args.readme.is_file() or START not in args.readme.read_text(encoding="utf-8")
                        or END not in args.readme.read_text(encoding="utf-8")):
        sys.exit(f"cost_ledger: {args.readme} is not a file with a {START} … {END} block to rewrite")
    if args.cache_dir and args.cache_dir.exists() and (not args.cache_dir.is_dir() or any(args.cache_dir.iterdir())):
        sys.exit(f"cost_ledger: {args.cache_dir} is not an empty directory; a cold build needs a fresh cache directory")
    with tempfile.TemporaryDirectory(prefix="cost-ledger-") as tmp:
        cache = args.cache_dir or Path(tmp) / "cache"
        cold_s = run_claims(cache, args.workers, Path(tmp) / "cold.xml", args.select)
        warm_s = run_claims(cache, args.workers, Path(tmp) / "warm.xml", args.select)
        events = cache / "events.jsonl"
        entries = build_log.read(events) if events.exists() else {}
        warm = test_times(Path(tmp) / "warm.xml")
    print(build_log.ledger(entries))
    print(f"\ncold run {cold_s:.0f} s wall, warm run {warm_s:.0f} s wall ({args.workers} workers)")
    print("slowest tests of the warm run (the claims' own measuring):")
    for seconds, test in warm[:10]:
        print(f"  {seconds:7.1f} s  {test}")
    text = paragraph(entries, cold_s, warm_s, args.workers, warm)
    print("\n" + text)
    if args.readme:
        head, rest = args.readme.read_text(encoding="utf-8").split(START, 1)
        args.readme.write_text(f"{head}{START}\n{text}\n{END}{rest.split(END, 1)[1]}", encoding="utf-8")


if __name__ == "__main__":
    main()
