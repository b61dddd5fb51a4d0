"""The library's layout: one sub-package per experiment over a shared core, each importing only what
:data:`ALLOWED` lets it (no cycles between sub-packages), and no module that finds files from its own location
(calibration files are passed in by the caller)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

LIBRARY = Path(__file__).resolve().parents[1] / "llm_claims_lab"

# sub-package (or top-level module) -> the others it may import; the one statement of the rule
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "inputs": set(),  # the inventory of external inputs; names readers by dotted path, imports none
    "tokenizers": {"core"},  # GPT-2's BPE: word2vec's segmenters and the pretrained embeddings
    "data": {"core", "inputs"},
    "positional": {"core"},
    "extrapolation": {"core", "positional"},
    "heads": {"core", "positional"},
    "word2vec": {"core", "data", "inputs", "tokenizers"},
    "pretrained": {"core", "inputs", "tokenizers"},
}


def _unit(path: Path) -> str:
    """The sub-package or top-level module ``path`` belongs to."""
    return path.relative_to(LIBRARY).parts[0].removesuffix(".py")


def _imported_units(tree: ast.AST) -> set[str]:
    """The library units a module imports, anywhere in it (inside functions too)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if node.module != "llm_claims_lab" else [
                f"llm_claims_lab.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {name.split(".")[1] for name in names if name.startswith("llm_claims_lab.")}
    return found


MODULES = sorted(p for p in LIBRARY.rglob("*.py") if p != LIBRARY / "__init__.py")


def test_every_unit_has_a_rule() -> None:
    assert {_unit(p) for p in MODULES} == set(ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_module_imports_only_what_its_subpackage_may(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    unit = _unit(path)
    assert not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree)), "use absolute imports"
    forbidden = _imported_units(tree) - ALLOWED[unit] - {unit}
    assert not forbidden, f"{unit} may import {sorted(ALLOWED[unit])}, not {sorted(forbidden)}"


def test_the_rule_has_no_cycle() -> None:
    def reach(unit: str, seen: tuple[str, ...]) -> None:
        assert unit not in seen, f"import cycle: {' -> '.join((*seen, unit))}"
        for other in ALLOWED[unit]:
            reach(other, (*seen, unit))

    for unit in ALLOWED:
        reach(unit, ())


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_no_module_finds_files_from_its_own_location(path: Path) -> None:
    names = {n.id for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Name)}
    assert "__file__" not in names, "take the path from the caller (e.g. <rootdir>/calibration/...)"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_module_imports_neither_pytest_nor_the_harness(path: Path) -> None:
    """The library stands alone (issue 33): no import line names pytest, the harness or a pytest plugin."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {alias.name for n in ast.walk(tree) if isinstance(n, ast.Import) for alias in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {n for n in names if n.split(".")[0] in ("pytest", "_pytest", "llm_claims_harness", "xdist")}


def test_importing_every_module_imports_neither_pytest_nor_the_harness() -> None:
    """What each import line says holds for what importing does (a dependency that imports pytest would break it):
    every library module imported in a fresh interpreter leaves pytest and the harness out of ``sys.modules``."""
    modules = [".".join(p.relative_to(LIBRARY.parent).with_suffix("").parts).removesuffix(".__init__")
               for p in MODULES if p.name != "__main__.py"]
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n    importlib.import_module(name)\n"
            "loaded = sorted(m for m in ('pytest', '_pytest', 'llm_claims_harness') if m in sys.modules)\n"
            "assert not loaded, loaded\nprint(len(sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], cwd=LIBRARY.parent, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
