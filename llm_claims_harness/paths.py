"""Path checks shared by the harness and the suites that use it."""

from __future__ import annotations

import os
from pathlib import Path


def not_writable_dir(path: Path) -> str | None:
    """Why ``path`` cannot serve as a directory to write in (``None`` when it can), found without
    creating anything: it is a file, or its nearest existing ancestor is a file or not writable."""
    path = path.absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        return (f"{path} exists and is not a directory" if existing == path
                else f"cannot be created: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        return (f"{path} is not writable" if existing == path
                else f"cannot be created: {existing} is not writable")
    return None
