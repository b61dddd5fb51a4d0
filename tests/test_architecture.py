"""The layout the README promises: the harness imports no torch and holds no word of this project (its posts, its
library, its hardware), the library imports no pytest, and no module of the project is longer than a reader can
hold (300 lines)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 300


def _imported_after(package: str) -> set[str]:
    """Top-level module names present after importing every module of ``package`` in a fresh interpreter."""
    code = (f"import importlib, json, pkgutil, sys, {package}\n"
            f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'):\n"
            "    if not m.name.endswith('__main__'):\n"
            "        importlib.import_module(m.name)\n"
            "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return set(json.loads(out.stdout))


def test_harness_imports_no_torch() -> None:
    assert "torch" not in _imported_after("llm_claims_harness")


@pytest.mark.parametrize("word", ["post a", "dgx", "torch", "llm_claims_lab", "위치"])
def test_harness_holds_no_word_of_this_project(word: str) -> None:
    """What ``grep -ri`` finds in the harness's sources and its pyproject: nothing (the suite hands the harness its posts,
    devices and environment through hooks)."""
    files = [p for p in (ROOT / "llm_claims_harness").rglob("*") if p.suffix in (".py", ".toml")
             and "build" not in p.relative_to(ROOT).parts]
    assert len(files) > 10
    assert [str(p.relative_to(ROOT)) for p in files if word in p.read_text(encoding="utf-8").lower()] == []


def test_library_imports_no_pytest() -> None:
    assert not {"pytest", "_pytest"} & _imported_after("llm_claims_lab")


def _modules() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files", "*.py"], capture_output=True, text=True, cwd=ROOT, check=True)
    return [ROOT / name for name in tracked.stdout.split()]


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git checkout to list the project's modules")
def test_no_module_over_300_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in _modules()
            if p.exists() and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_every_library_module_is_listed_by_pkgutil() -> None:
    """A guard on the guard: the import test above walks real modules."""
    import llm_claims_lab

    assert len(list(pkgutil.walk_packages(llm_claims_lab.__path__, "llm_claims_lab."))) > 10
