"""What a run built, from the weight cache's ``events.jsonl`` (:mod:`llm_claims_lab.core.cache`): per entry its builds,
loads and CPU-seconds, by phase, and whether anything was built twice.

Phases, from the entry's name: ``evaluation`` (``…-eval{L}``: one trained checkpoint at one length),
``segmentation`` (``corpus-…``: a corpus cut by a segmenter), ``training`` (the rest: extrapolation, skip-gram
and heads models).

Run ``python -m llm_claims_lab.core.build_log EVENTS [--skip N] [--check-once]``: a Markdown table of CPU-seconds per
model and phase, then each worker's builds (their span and the seconds it built nothing: how well the run's
builds were packed on the workers); ``--skip N`` leaves out the log's first N lines (the events of earlier runs, in a cache that is
kept between runs); ``--check-once`` exits 1 when an entry was built more than once (a run should train and
evaluate each fingerprint once). A line that is not a whole event (cut short by a killed process) is said and
skipped; exits 2 with one line on a missing or unreadable log, or another file in its place.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import datetime as dt
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

_HASH = re.compile(r"-[0-9a-f]{16}$")  # the fingerprint's hash at the end of an entry's key


def phase(entry: str) -> str:
    """``evaluation``, ``segmentation`` or ``training`` for an entry key (see the module docstring)."""
    name = _HASH.sub("", entry)
    if re.search(r"-eval\d+$", name):
        return "evaluation"
    return "segmentation" if name.startswith("corpus-") else "training"


def model(entry: str) -> str:
    """The trained model an entry belongs to: its name without the fingerprint hash and, for an evaluation,
    without the checkpoint and length (``extrapolation-rope-seed42-curve``)."""
    return re.sub(r"-step\d+-eval\d+$", "", _HASH.sub("", entry))


@dataclasses.dataclass
class EntryLog:
    """One cache entry's events in a log."""

    entry: str
    builds: int = 0
    loads: int = 0
    corrupt: int = 0
    cpu_s: float = 0.0  # summed over builds
    wall_s: float = 0.0


def read(path: Path, *, skip: int = 0, say: Callable[[str], None] | None = None) -> dict[str, EntryLog]:
    """Every entry of the log at ``path`` after its first ``skip`` lines, in the order first seen
    (:func:`events`, whose errors it raises)."""
    return entry_logs(events(path, skip=skip, say=say))


def events(path: Path, *, skip: int = 0, say: Callable[[str], None] | None = None) -> list[dict]:
    """The cache events of the log at ``path`` after its first ``skip`` lines, in order. A line that is not a
    whole cache event (cut short by a process killed while appending it, or garbage) is skipped, and ``say``
    (default: stderr) is told so in one line naming the file and the lines.

    Raises:
        FileNotFoundError: no log (a run that trained and loaded no model writes none). OSError: the log cannot
            be read. ValueError: no line is a cache event and a whole line is not one (another file in its place);
            the message names the file.
    """
    lines = Path(path).read_bytes().split(b"\n")  # the last: what follows the last newline, a line cut short
    found, bad = [], []
    for number, line in enumerate(lines[skip:], skip + 1):
        event = _event(line)
        if event is not None:
            found.append(event)
        elif line.strip():
            bad.append(number)
    if bad and not found and bad != [len(lines)]:
        raise ValueError(f"{path} is not a cache's event log: none of its lines is a cache event (a JSON object "
                         f"with an 'entry'; line {bad[0]} is not); give the events.jsonl of a weight cache")
    if bad:
        (say or _to_stderr)(f"build_log: {path}: skipped {len(bad)} line(s) that are not whole cache events (cut "
                            "short by a process killed while writing, or not a JSON object with an 'entry'): line "
                            f"{', '.join(map(str, bad[:5]))}{', …' if len(bad) > 5 else ''}; counted the others")
    return found


def entry_logs(found: list[dict]) -> dict[str, EntryLog]:
    """Per entry, in the order first seen, its builds, loads and corrupt copies among ``found`` events."""
    entries: dict[str, EntryLog] = {}
    for event in found:
        log = entries.setdefault(event["entry"], EntryLog(event["entry"]))
        if event.get("event") == "build":
            log.builds += 1
            log.cpu_s += float(event.get("cpu_s", 0.0))
            log.wall_s += float(event.get("seconds", 0.0))
        elif event.get("event") == "load":
            log.loads += 1
        elif event.get("event") == "corrupt":
            log.corrupt += 1
    return entries


@dataclasses.dataclass
class WorkerBuilds:
    """One process's builds in a log (an xdist worker, or the process id outside xdist), in seconds after the
    log's first event: when its first build started and its last ended, and how long it was building."""

    worker: str
    first_start: float
    last_end: float
    busy_s: float

    @property
    def idle_s(self) -> float:
        """Seconds between its first build's start and its last's end in which it built nothing (it ran tests,
        loaded, or waited)."""
        return self.last_end - self.first_start - self.busy_s


def worker_builds(found: list[dict]) -> list[WorkerBuilds]:
    """Each process's builds among ``found`` events (a build event's time is its end, its ``seconds`` its
    length), by worker name; events without a parseable time are left out."""
    t0, spans = None, {}
    for event in found:
        try:
            end = dt.datetime.fromisoformat(event["time"]).timestamp()
        except (KeyError, TypeError, ValueError):
            continue
        t0 = end if t0 is None else min(t0, end)
        if event.get("event") != "build":
            continue
        seconds = float(event.get("seconds", 0.0))
        name = str(event.get("worker") or f"pid {event.get('pid')}")
        first, last, busy = spans.get(name, (end - seconds, end, 0.0))
        spans[name] = (min(first, end - seconds), max(last, end), busy + seconds)
    return [WorkerBuilds(name, first - t0, last - t0, busy) for name, (first, last, busy) in sorted(spans.items())]


def packing(workers: list[WorkerBuilds]) -> str:
    """One line per worker: its builds' span, the seconds it was building and those it was not."""
    return "\n".join(f"{w.worker}: builds from {w.first_start:.0f} s to {w.last_end:.0f} s, building {w.busy_s:.0f} s, "
                     f"not building {w.idle_s:.0f} s" for w in workers)


def _event(line: bytes) -> dict | None:
    """The cache event a log line holds, or ``None``."""
    try:
        event = json.loads(line.decode("utf-8"))
    except ValueError:  # not UTF-8, not JSON
        return None
    return event if isinstance(event, dict) and isinstance(event.get("entry"), str) else None


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def ledger(entries: dict[str, EntryLog]) -> str:
    """A Markdown table: CPU-seconds per model and phase (evaluations summed per model), builds and loads,
    then the totals per phase."""
    rows: dict[tuple[str, str], list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
    for log in entries.values():
        row = rows[model(log.entry), phase(log.entry)]
        row[0] += log.cpu_s
        row[1] += log.wall_s
        row[2] += log.builds
        row[3] += log.loads
    lines = ["| model | phase | CPU-s | wall s | builds | loads |", "|---|---|---:|---:|---:|---:|"]
    for (name, kind), (cpu, wall, builds, loads) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"| {name} | {kind} | {cpu:.1f} | {wall:.1f} | {builds} | {loads} |")
    totals: dict[str, float] = collections.Counter()
    for (_, kind), (cpu, *_rest) in rows.items():
        totals[kind] += cpu
    lines.append("")
    lines.append("CPU-s by phase: " + ", ".join(f"{kind} {cpu:.0f}" for kind, cpu in sorted(totals.items()))
                 + f"; all builds {sum(totals.values()):.0f}")
    return "\n".join(lines)


def built_twice(entries: dict[str, EntryLog]) -> list[EntryLog]:
    """Entries built more than once."""
    return [log for log in entries.values() if log.builds > 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("events", type=Path, help="the cache's events.jsonl")
    parser.add_argument("--check-once", action="store_true", help="exit 1 when an entry was built more than once")
    parser.add_argument("--skip", type=int, default=0, metavar="N",
                        help="leave out the first N lines (earlier runs' events)")
    args = parser.parse_args(argv)
    try:
        found = events(args.events, skip=args.skip)
    except FileNotFoundError:
        print(f"build_log: {args.events} does not exist: give the events.jsonl of a weight cache (a run that "
              "trained and loaded no model writes none)", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"build_log: {exc}", file=sys.stderr)
        return 2
    entries = entry_logs(found)
    print(ledger(entries))
    print("\nBuilds by worker (seconds after the log's first event):\n" + packing(worker_builds(found)))
    twice = built_twice(entries)
    builds = sum(log.builds for log in entries.values())
    print(f"{builds} builds of {len(entries)} entries; built more than once: "
          + (", ".join(f"{log.entry} ({log.builds}x)" for log in twice) or "none"))
    return 1 if args.check_once and twice else 0


if __name__ == "__main__":
    sys.exit(main())
