"""The context a result needs to be reproduced: date, commit, library versions, device, seed."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import platform
import shlex
import subprocess
from typing import Any

import pytest


def _git(root: Any, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def describe(config: pytest.Config, device: str, wall_s: float) -> dict[str, Any]:
    """Everything the report header shows; JSON-serialisable."""
    commit = _git(config.rootpath, "rev-parse", "--short=12", "HEAD")
    # the tree hash names the code itself: unlike the commit id it survives a rebase
    tree = _git(config.rootpath, "rev-parse", "--short=12", "HEAD^{tree}")
    # uncommitted changes to tracked files, the generated report itself excepted
    dirty = bool(_git(config.rootpath, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!reports"))
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": (commit or "unknown") + (" (uncommitted changes)" if commit and dirty else ""),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
        "numpy": _version("numpy"),
        "platform": platform.platform(terse=True),
        "git_tree": tree or "unknown",
        "device": config.hook.pytest_claims_device_name(config=config, device=device) or device,
        "seed": config.getoption("claims_seed"),
        "seeds": list(range(config.getoption("claims_seed"),
                            config.getoption("claims_seed") + config.getoption("claims_seeds"))),
        "xdist_workers": config.getoption("numprocesses", None) or 0,
        "command": "pytest " + shlex.join(config.invocation_params.args),
        "wall_s": round(wall_s, 1),
    }
