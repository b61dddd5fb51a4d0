"""Every command the docs print runs as written (issue 41): install lines resolve with ``pip install --dry-run`` in a
fresh virtual environment (and each of the suite's extras alone, with the harness and the torch pin), and a line that
installs the suite pins torch, so it never pulls PyPI's newest CUDA build; pytest lines collect; scripts answer
``--help``; the repository's bash scripts exist and parse; ``python -c`` code compiles; a command of no kind the
test knows fails it (:mod:`docs_commands`), so a command added later is checked without anyone remembering to.
Today's faults: ``pip install -e ".[docs]"`` and ``pip install -e ".[cluster]"`` ended in "No matching distribution
found for llm-claims-harness==0.1.0"; ``pip install -e ./llm_claims_harness -e .`` resolved torch 2.14.1 with 18
CUDA packages. Cost: about 14 CPU-s per distinct install line (pip resolving torch, transformers and the rest)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import child_pytest
import pytest

from docs_commands import ROOT, Command, commands, kind

TORCH_PIN = "torch==2.13.0"
ALL = commands()
SUITE = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# each extra alone, with the harness and the torch pin, as a reader who wants one of them would install it
EXTRAS = [("python", "-m", "pip", "install", TORCH_PIN, "-e", "./llm_claims_harness", "-e", f".[{extra}]")
          for extra in sorted(SUITE["optional-dependencies"])]


def _by_kind(name: str) -> list[Command]:
    return [c for c in ALL if kind(c) == name]


def _distinct(found: list[Command], key) -> list[Command]:
    seen: dict = {}
    for command in found:
        seen.setdefault(key(command), command)
    return list(seen.values())


def _pip_args(words: tuple[str, ...]) -> list[str]:
    return list(words[2:] if words[0] == "pip" else words[4:])


PIP = _distinct(_by_kind("pip") + [Command(words, (), "pyproject.toml: an extra alone") for words in EXTRAS],
                lambda c: tuple(_pip_args(c.words)))


def test_every_command_is_of_a_kind_the_test_checks() -> None:
    assert len(ALL) >= 40
    unknown = [f"{c.where}: {c.text}" for c in ALL if kind(c) == "unknown"]
    assert unknown == [], "a command the docs print that no test checks (add a kind in tests/docs_commands.py)"


def test_the_cpu_wheel_line_is_a_real_line_of_readme_s_install_block() -> None:
    readme = [c for c in ALL if c.where.startswith("README.md") and kind(c) == "pip"]
    assert any("https://download.pytorch.org/whl/cpu" in c.words and TORCH_PIN in c.words for c in readme), readme




@pytest.mark.parametrize("command", PIP, ids=lambda c: " ".join(_pip_args(c.words)))
def test_an_install_line_resolves_in_a_fresh_venv(command: Command, fresh_venv: dict[str, str],
                                                  tmp_path: Path) -> None:
    _check_install(command, fresh_venv, tmp_path)


def _check_install(command: Command, fresh_venv: dict[str, str], tmp_path: Path) -> None:
    args = _pip_args(command.words)
    installs_suite = any(a == "." or a.startswith(".[") for a in args)
    assert not installs_suite or TORCH_PIN in args, \
        f"{command.where}: installs the suite without {TORCH_PIN}: pip takes the newest torch (a CUDA build on Linux)"
    report = tmp_path / "report.json"
    python = str(Path(fresh_venv["VIRTUAL_ENV"]) / "bin" / "python")
    # --retries 0 --timeout 10: an index that does not answer says so in seconds, not after pip's five retries
    done = subprocess.run([python, "-m", "pip", "install", "--dry-run", "--quiet", "--retries", "0", "--timeout", "10",
                           "--report", str(report), *args],
                          cwd=ROOT / command.cwd, env=fresh_venv, capture_output=True, text=True, timeout=600)
    if done.returncode and "download.pytorch.org" in command.text and "download.pytorch.org" in done.stderr:
        pytest.skip(f"{command.where}: PyTorch's index is not reachable from this machine (GitHub's runners reach it)")
    assert done.returncode == 0, f"{command.where}: {command.text}\n{done.stderr[-3000:]}"
    missing = [line.strip() for line in done.stderr.splitlines() if "does not provide the extra" in line]
    assert missing == [], f"{command.where}: {missing}"
    installed = {i["metadata"]["name"].lower(): i["metadata"]["version"]
                 for i in json.loads(report.read_text(encoding="utf-8"))["install"]}
    if "torch" in installed and (installs_suite or TORCH_PIN in args):
        assert installed["torch"].split("+")[0] == TORCH_PIN.split("==")[1], installed["torch"]


def _pytest_args(command: Command) -> tuple[str, ...]:
    """The command's pytest arguments, made a collection that writes nothing and needs no worker processes."""
    words = command.words[1:] if command.words[0] == "pytest" else command.words[3:]
    args: list[str] = []
    skip = False
    for word in words:
        if any(ch in word for ch in "*?[") and not word.startswith("-") and "/" in word:  # the shell expands it
            args.extend(sorted(p.relative_to(ROOT / command.cwd).as_posix()
                               for p in (ROOT / command.cwd).glob(word)) or [word])
            continue
        if skip:
            skip = False
            args.append("0")  # -n N: collected in this process; the option itself is still parsed
        elif word == "-n":
            skip = True
            args.append(word)
        elif word != "--claims-regenerate":
            args.append(word)
    return tuple(args)


PYTEST = _distinct(_by_kind("pytest"), lambda c: (c.cwd, _pytest_args(c)))


@pytest.mark.parametrize("command", PYTEST, ids=lambda c: f"{c.cwd}: pytest {' '.join(_pytest_args(c))}")
def test_a_pytest_line_collects(command: Command, tmp_path: Path) -> None:
    args = _pytest_args(command)
    if "cuda" in args:
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip(f"{command.where}: a CUDA command, and this machine has no CUDA device")
    result = child_pytest.run([*args, "--co", "-q", "-p", "no:cacheprovider", f"--claims-report-dir={tmp_path}"],
                              cwd=ROOT / command.cwd, timeout=600)
    assert result.ret == 0, f"{command.where}: {command.text}\n" + "\n".join(result.outlines[-20:] + result.errlines[-20:])
    assert list(tmp_path.iterdir()) == [] or "--claims-catalogue" in args  # a collection writes no report


def _script(command: Command) -> tuple[str, ...]:
    words = command.words[1:]
    return tuple(words[:2]) if words[0] == "-m" else (words[0],)


SCRIPTS = _distinct(_by_kind("script"), _script)


@pytest.mark.parametrize("command", SCRIPTS, ids=lambda c: " ".join(_script(c)))
def test_a_script_answers_help(command: Command) -> None:
    script = _script(command)
    if script[0] != "-m":
        assert (ROOT / command.cwd / script[0]).is_file(), f"{command.where}: no file {script[0]}"
    done = subprocess.run([sys.executable, *script, "--help"], cwd=ROOT / command.cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and "usage" in done.stdout.lower(), f"{command.where}: {done.stderr[-2000:]}"


def test_every_other_command_is_what_it_says() -> None:
    for command in ALL:
        words, where = command.words, command.where
        if kind(command) == "bash":
            assert (ROOT / words[1]).is_file(), where
            assert subprocess.run(["bash", "-n", str(ROOT / words[1])]).returncode == 0, where
        elif kind(command) == "python-c":
            compile(words[2], f"<{where}>", "exec")
        elif kind(command) == "mkdocs":
            if shutil.which("mkdocs") is None:
                continue  # the docs extra: tests/test_docs.py builds the site where it is installed
            assert subprocess.run(["mkdocs", words[1], "--help"], capture_output=True).returncode == 0, where
        elif kind(command) == "hf":
            if shutil.which("hf") is not None:
                assert subprocess.run(["hf", words[1], "--help"], capture_output=True).returncode == 0, where
        elif kind(command) == "setup" and words[0] == "cd":
            assert (ROOT / words[1]).is_dir(), where


def test_a_planted_broken_line_fails(tmp_path: Path, fresh_venv: dict[str, str]) -> None:
    """The checks fail where they should: an extra that does not resolve, a suite line without the torch pin, a
    command of no known kind."""
    doc = tmp_path / "planted.md"
    doc.write_text("```bash\npython -m pip install torch==2.13.0 -e ./llm_claims_harness -e \".[no_such_extra]\"\n"
                   "frobnicate --all\n```\n\nThen `pip install -e ./llm_claims_harness -e .`.\n", encoding="utf-8")
    found = commands([doc])
    assert [kind(c) for c in found] == ["pip", "unknown", "pip"]
    with pytest.raises(AssertionError, match="does not provide the extra 'no_such_extra'"):
        _check_install(found[0], fresh_venv, tmp_path)
    with pytest.raises(AssertionError, match="installs the suite without torch==2.13.0"):
        _check_install(found[2], fresh_venv, tmp_path)
