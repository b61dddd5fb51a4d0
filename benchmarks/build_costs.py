"""Writes ``fixtures/build_costs.json``, the typical CPU-seconds of each build task that ``fixtures/trained.py`` splits
between xdist workers (what a cold run's plan and ETA are estimated from: ``fixtures/build_progress.py``), from a
cold run's weight-cache ``events.jsonl``: each built entry's CPU-seconds added to the task that builds it.

    python benchmarks/build_costs.py EVENTS [--output fixtures/build_costs.json]

A cold ``.ci/run`` keeps its cache in a temporary directory; ``python benchmarks/cost_ledger.py --cache-dir DIR``
leaves one whose ``DIR/events.jsonl`` this reads.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
from pathlib import Path

from llm_claims_lab.core import build_log

ROOT = Path(__file__).resolve().parents[1]


def task_of(model: str) -> str:
    """The build task (``fixtures/trained.py``'s names) that builds the cache entries of ``model`` (an entry's name
    without its hash, checkpoint and length: :func:`llm_claims_lab.core.build_log.model`)."""
    if model.startswith("extrapolation-"):
        found = re.match(r"extrapolation-.+?-seed\d+", model)
        return found.group(0) if found else model
    if model.startswith("heads-"):
        return re.sub(r"-seed\d+$", "", model)
    if model == "skipgram":
        return "skipgram-trained"
    if model.startswith("corpus-"):  # a segmented corpus: the segmenter's task segments, then trains
        return "skipgram-" + model.removeprefix("corpus-")
    return model


def costs(events: Path) -> dict[str, float]:
    """CPU-seconds per task, from every entry built in the log."""
    out: dict[str, float] = {}
    for entry, log in build_log.read(events).items():
        if log.builds:
            task = task_of(build_log.model(entry))
            out[task] = round(out.get(task, 0.0) + log.cpu_s, 1)
    return dict(sorted(out.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("events", type=Path, help="a cold run's weight-cache events.jsonl")
    parser.add_argument("--output", type=Path, default=ROOT / "fixtures" / "build_costs.json")
    args = parser.parse_args(argv)
    tasks = costs(args.events)
    if not tasks:
        print(f"build_costs: no build in {args.events}: run it on a cold run's log", file=sys.stderr)
        return 2
    note = (f"CPU-seconds per build task of a cold run ({platform.machine()}, {sum(tasks.values()):.0f} CPU-s in all); "
            "written by benchmarks/build_costs.py")
    args.output.write_text(json.dumps({"note": note, "tasks": tasks}, indent=1) + "\n", encoding="utf-8")
    print(f"{args.output}: {len(tasks)} tasks, {sum(tasks.values()):.0f} CPU-s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
