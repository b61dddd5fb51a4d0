"""The suite collects under every pytest import mode: the default ``prepend`` and ``importlib``, which pytest's
docs recommend for new projects (https://docs.pytest.org/en/stable/explanation/pythonpath.html). Under
``importlib`` no test directory is put on ``sys.path``, so a helper imported by its bare name (``word2vec_common``)
is not found; the claims' shared helpers are imported as ``claims.<helper>`` from the repository root instead.

Each mode collects in its own subprocess from the repository root (``--co -q``): both must exit 0 with no collection
error and give the same node ids, so no row is lost to a mode (issue 32: ``importlib`` collected 109 of 240 rows).
"""

from __future__ import annotations

from pathlib import Path

import child_pytest
import pytest

ROOT = Path(__file__).resolve().parents[1]


def collected(directory: str, *mode: str) -> list[str]:
    """The node ids ``pytest --co -q`` collects in ``directory`` (relative to the repository root) with the extra
    import-mode arguments ``mode``; fails the test with pytest's output if collection exits non-zero."""
    run = child_pytest.run(["-p", "no:cacheprovider", "--no-claims-report", "--co", "-q", *mode, directory], cwd=ROOT)
    assert run.ret == pytest.ExitCode.OK, f"collection under {mode or 'prepend'} failed:\n{str(run.stdout)[-4000:]}"
    return [line for line in run.outlines if "::" in line]


@pytest.mark.parametrize("directory", ["claims", "tests"])
def test_importlib_mode_collects_what_the_default_mode_collects(directory: str) -> None:
    default = collected(directory)
    importlib = collected(directory, "--import-mode=importlib")
    assert default, f"nothing collected in {directory}/"
    assert len(importlib) == len(default) and set(importlib) == set(default), (
        f"missing under importlib: {sorted(set(default) - set(importlib))[:10]}; "
        f"only under importlib: {sorted(set(importlib) - set(default))[:10]}")


def test_claims_helpers_have_one_name() -> None:
    """A claim module and a test that patches a helper see one module object: no module in claims/ or tests/ imports
    a helper by its bare name (a second copy under another name, and a ``ModuleNotFoundError`` under ``importlib``)."""
    helpers = [p.stem for p in (ROOT / "claims").glob("*_common.py")]
    assert helpers
    bare = [f"{p.relative_to(ROOT)}: {line.strip()}" for d in ("claims", "tests") for p in sorted((ROOT / d).glob("*.py"))
            for line in p.read_text(encoding="utf-8").splitlines()
            if any(line.lstrip().startswith((f"from {h} ", f"import {h}")) for h in helpers)]
    assert not bare, bare
