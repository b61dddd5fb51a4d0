"""The context a result needs to be reproduced: date, commit, Python and platform, the run plan (device, seeds),
the command, whether the run was interrupted; the suite adds its own facts (library versions, the GPU) through
``pytest_claims_environment``. Text the locale could not decode (a Korean argument under ``LC_ALL=C``) is recorded
as UTF-8 holds it (:func:`llm_claims_harness.text.utf8`)."""

from __future__ import annotations

import datetime as dt
import platform
import shlex
import subprocess
from typing import Any

import pytest

from llm_claims_harness.plan import RunPlan
from llm_claims_harness.text import utf8


def _git(root: Any, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, encoding="utf-8", errors="replace",
                             timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def interruption(session: pytest.Session, exitstatus: int, signal: str = "") -> str:
    """Why the run ended before measuring every item it selected, in words (empty when it ran to its end): Ctrl-C
    or ``pytest.exit`` (``signal``: the exception's text, as ``pytest_keyboard_interrupt`` saw it; pytest's exit
    status ``INTERRUPTED``), or the session told to stop (``-x``, ``--maxfail``, a plugin's ``session.shouldstop``
    or ``shouldfail``)."""
    if signal or exitstatus == pytest.ExitCode.INTERRUPTED:
        return utf8(signal) or "pytest's exit status INTERRUPTED"
    stop = session.shouldstop or session.shouldfail
    if stop:
        return "the session was told to stop" + (f": {utf8(stop)}" if isinstance(stop, str) else "")
    return ""


def describe(config: pytest.Config, plan: RunPlan, wall_s: float, interrupted: str = "") -> dict[str, Any]:
    """Everything the report header shows; JSON-serialisable. ``suite``: what the suite's
    ``pytest_claims_environment`` implementations answered, by name; ``interrupted``: :func:`interruption`'s
    answer (empty: the run measured all it selected)."""
    suite: dict[str, str] = {}
    for answer in reversed(config.hook.pytest_claims_environment(config=config)):  # pluggy: last registered first
        suite.update({utf8(str(k)): utf8(str(v)) for k, v in (answer or {}).items()})
    commit = _git(config.rootpath, "rev-parse", "--short=12", "HEAD")
    # the tree hash names the code itself: unlike the commit id it survives a rebase
    tree = _git(config.rootpath, "rev-parse", "--short=12", "HEAD^{tree}")
    # uncommitted changes to tracked files, the generated report itself excepted
    dirty = bool(_git(config.rootpath, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!reports"))
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": (commit or "unknown") + (" (uncommitted changes)" if commit and dirty else ""),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "git_tree": tree or "unknown",
        "device": plan.device_name,
        "seed": plan.seed,
        "seeds": list(plan.seeds),
        "xdist_workers": config.getoption("numprocesses", None) or 0,
        "command": utf8(" ".join(["pytest", shlex.join(config.invocation_params.args)]).strip()),
        "wall_s": round(wall_s, 1),
        "interrupted": interrupted,
        "suite": suite,
    }
