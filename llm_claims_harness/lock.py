"""One writer at a time in a report directory: runs that share one (``--claims-report-dir``) read, merge and write
its files (``results.json``, ``samples.jsonl``, the pages, the catalogue) in turn, each on top of the one before, so
that none loses another's rows. The lock is a :class:`filelock.FileLock` on :data:`LOCK` in the directory, the
library's advisory lock (``flock`` on POSIX): the operating system releases it when its holder dies, so a killed run
never blocks the next one. The lock file is left in place (removing it while another run waits on it would let a
third run take a second lock)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

LOCK = ".claims-report.lock"
WAIT_S = 600.0  # writing a report takes about a second; a run that holds the lock this long is stuck


@contextlib.contextmanager
def writing(directory: Path, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold ``directory``'s report lock (the directory is created) while the body runs, waiting for another run
    that holds it.

    Raises:
        OSError: another process held the lock for ``wait_s`` seconds, or the directory or its lock file cannot be
            created.
    """
    directory.mkdir(parents=True, exist_ok=True)
    lock = FileLock(directory / LOCK)
    try:
        lock.acquire(timeout=wait_s)
    except Timeout:
        raise OSError(f"another process held the report lock {directory / LOCK} for {wait_s:g} s (a run stuck while "
                      "writing its report?)") from None
    try:
        yield
    finally:
        lock.release()
