"""Writing a file so that readers see the old version or the new one, never half of one (standard library only):
the harness's writer for the report. The measurement library of the suite it was written for keeps the same
writer (neither distribution imports the other); ``tests/test_atomic_writers.py`` holds both to one contract."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_atomic(path: Path, write: Callable[[str], None]) -> None:
    """Call ``write(tmp_path)`` on a temp file beside ``path``, flush it to disk, and move it onto ``path``
    (``os.replace``). The temp file is removed if ``write`` raises; the parent directory is created. The file
    gets the usual mode (0666 less the umask), not ``mkstemp``'s private 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the file gets the mode open() would give it
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def temporary_files(directory: Path, name: str = "*") -> list[Path]:
    """The temporary files :func:`write_atomic` makes in ``directory`` for the file ``name`` (a glob pattern; ``*``:
    any file), which a process killed while writing leaves behind; a caller removes them only when it knows no
    live writer owns them (a lock, or their age)."""
    return sorted(directory.glob(f".{name}.*.tmp"))


def _umask() -> int:
    """The process's umask (read by setting it and restoring it at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_texts_atomic(directory: Path, texts: dict[str, str]) -> None:
    """Write every file of ``texts`` (name → UTF-8 text) into ``directory`` all or none: each is written to a
    temporary file beside its name and flushed first (where a full disk or a quota fails), and only when every one
    is written are they moved onto their names; on a failure the temporary files are removed and nothing of the
    previous files changed. Raises the ``OSError`` met."""
    directory.mkdir(parents=True, exist_ok=True)
    ready: list[tuple[str, Path]] = []
    try:
        for name, text in texts.items():
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
            ready.append((tmp, directory / name))
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        for tmp, _ in ready:
            Path(tmp).unlink(missing_ok=True)
        raise
    for tmp, path in ready:
        os.replace(tmp, path)


def write_text_atomic(path: Path, text: str) -> None:
    """:func:`write_atomic` for UTF-8 text."""
    def write(tmp: str) -> None:
        Path(tmp).write_text(text, encoding="utf-8")

    write_atomic(path, write)


def remove_generated(directory: Path, pattern: str, marker: str, keep: set[str]) -> None:
    """Remove the files matching ``pattern`` in ``directory`` that an earlier run generated (their first line is
    ``marker``) and this run did not write again (not in ``keep``); a file a person put there is never touched."""
    for path in directory.glob(pattern):
        if path.name in keep:
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                generated = fh.readline().rstrip("\n") == marker
        except OSError:
            continue
        if generated:
            path.unlink(missing_ok=True)
