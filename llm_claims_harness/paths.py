"""Path checks of the harness, for the suites that use it too (the measurement library of the suite it was
written for keeps the same check)."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def not_writable_dir(path: Path) -> str | None:
    """Why ``path`` cannot serve as a directory to write in (``None`` when it can), found without
    creating anything: it or an ancestor is a symbolic link whose target does not exist (or a loop of links), it is
    a file, or its nearest existing ancestor is a file or not writable. Symbolic links are followed: a link to a
    writable directory serves."""
    path = path.absolute()
    for existing in (path, *path.parents):  # the root exists: the loop stops at an existing path
        if existing.is_symlink() and not existing.exists():  # exists() follows the link; mkdir would fail
            return _dangling(existing)
        if existing.exists():
            break
    link = f" (a symbolic link to {os.readlink(path)})" if path.is_symlink() else ""
    if not existing.is_dir():
        return (f"{path}{link} exists and is not a directory" if existing == path
                else f"cannot be created: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        return (f"{path}{link} is not writable" if existing == path
                else f"cannot be created: {existing} is not writable")
    return None


def _dangling(link: Path) -> str:
    """What is wrong with the symbolic ``link`` that does not resolve to an existing file."""
    target = os.readlink(link)
    try:
        os.stat(link)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"{link} is a symbolic link to {target!r} in a loop of links that leads to no file"
    missing = os.path.realpath(link)
    return (f"{link} is a dangling symbolic link: its target {target!r} does not exist"
            + (f" ({missing})" if missing != target else ""))
