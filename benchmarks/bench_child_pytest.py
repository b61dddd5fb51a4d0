"""Time the tests' pytest runs as a new interpreter and as a child of the preloaded forkserver, and check the rows.

Run: ``python benchmarks/bench_child_pytest.py [--rounds 3]``. Each round runs the claim modules that a typical
planted-bug test runs (``claims/test_position_tables.py`` and ``claims/test_attention.py``; one trains a small
model with Adam, so ``torch._dynamo`` is imported as in the trained claims) in a fresh directory, once as
``python -m pytest`` (what ``pytester.runpytest_subprocess`` starts) and once through ``tests/child_pytest.py``,
alternating. Prints per way the median wall seconds and CPU seconds of the run (the child's own, from its
``getrusage`` at the end of the session: a fork starts at zero), the forkserver's one-off start, and whether both
ways wrote the same rows (ids, verdicts, measured values).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import child_pytest  # noqa: E402

MODULES = ("test_position_tables.py", "test_attention.py")
PROBE = """
import json, os, resource
def pytest_unconfigure(config):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["BENCH_CPU_OUT"], "w") as fh:
        json.dump({"cpu_s": usage.ru_utime + usage.ru_stime}, fh)
"""


def _suite(where: Path) -> None:
    where.mkdir()
    for name in MODULES:
        shutil.copy(ROOT / "claims" / name, where / name)
    shutil.copy(ROOT / "conftest.py", where / "conftest.py")
    (where / "cpu_probe.py").write_text(PROBE, encoding="utf-8")


def _rows(where: Path) -> list[tuple]:
    rows = json.loads((where / ".claims" / "report" / "results.json").read_text(encoding="utf-8"))["claims"]
    return sorted((r["id"], r["verdict"], json.dumps(r.get("measured"), sort_keys=True)) for r in rows)


def _once(way: str, where: Path) -> dict:
    _suite(where)
    cpu_out = where / "cpu.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(where), str(ROOT)]), "BENCH_CPU_OUT": str(cpu_out)}
    args = ["-p", "no:cacheprovider", "-p", "cpu_probe", "-q"]
    start = time.perf_counter()
    if way == "new interpreter":
        done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=where, env=env, capture_output=True)
        code = done.returncode
    else:
        code = child_pytest.run(args, cwd=where, env=env).ret
    wall = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"{way}: pytest exited {code} in {where}")
    return {"wall_s": wall, "cpu_s": json.loads(cpu_out.read_text())["cpu_s"], "rows": _rows(where)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be ≥ 1")
    ways = ("new interpreter", "forkserver child")
    runs: dict[str, list[dict]] = {way: [] for way in ways}
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        child_pytest.run(["--version"], cwd=tmp)  # starts the forkserver (imports child_pytest.PRELOAD once)
        server_s = time.perf_counter() - start
        for r in range(args.rounds):
            for way in ways if r % 2 == 0 else ways[::-1]:
                runs[way].append(_once(way, Path(tmp) / f"{r}-{way.split()[0]}"))
    for way in ways:
        print(f"{way:17s} wall {statistics.median(x['wall_s'] for x in runs[way]):5.2f} s   "
              f"CPU {statistics.median(x['cpu_s'] for x in runs[way]):5.2f} s (median of {args.rounds})")
    print(f"forkserver start (once per test process, with its first child): {server_s:.2f} s wall")
    rows = {way: {tuple(x["rows"]) for x in runs[way]} for way in ways}
    same = len(rows[ways[0]] | rows[ways[1]]) == 1
    print(f"rows: {len(runs[ways[0]][0]['rows'])} per run, {'identical' if same else 'DIFFERENT'} both ways")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
