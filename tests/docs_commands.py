"""Every shell command the docs print (README.md, the harness's README, docs/*.md), found the way a reader finds them:
each logical line of a ``bash``/``sh``/``console`` code block (continuations joined, comments dropped, ``&&``
chains split) and each inline code span that starts with a command word. Each is classified by what a test can do
with it (:func:`kind`); a command of no known kind is a test failure, so a command added to the docs later is checked
without anyone remembering to. Used by ``tests/test_docs_commands.py``."""

from __future__ import annotations

import dataclasses
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "llm_claims_harness" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.S | re.M)
SHELL_FENCES = {"bash", "sh", "shell", "console"}
INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
# the first word of an inline code span that makes it a command (a hook name such as pytest_claims_posts is not)
COMMAND_WORDS = {"pip", "python", "python3", "pytest", "bash", "mkdocs", "hf", "git", "cd", "uv"}
# what marks a command as a template to fill in, not to run as written
PLACEHOLDERS = re.compile(r"<[^>]+>|…|\bHEAD:PORT\b|ssh=|/shared/|/opt/claims")


@dataclasses.dataclass(frozen=True)
class Command:
    """One command as a reader would paste it: its words (a leading ``VAR=value`` environment kept apart) and where
    the docs print it."""

    words: tuple[str, ...]
    env: tuple[str, ...]
    where: str
    cwd: str = "."  # where a ``cd`` before it on the same line left the reader
    raw: str = ""  # the line as printed (placeholders such as <name> are read there, before any shell parsing)

    @property
    def text(self) -> str:
        return shlex.join([*self.env, *self.words])


def python_blocks(path: Path, heading: str) -> list[str]:
    """The Python code blocks of ``path``'s section ``## heading``, in order, as written there."""
    section = path.read_text(encoding="utf-8").split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return [body for lang, body in FENCE.findall(section) if lang == "python"]


def _split(line: str, where: str) -> list[Command]:
    """The commands of one logical shell line (``&&`` and ``;`` chains split, a trailing ``&`` dropped)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in ("&&", ";", "&", "||"):
            commands.append([])
        else:
            commands[-1].append(token)
    out, cwd = [], "."
    for words in filter(None, commands):
        if ">" in words:  # a redirection: what the command writes is the reader's
            words = words[:words.index(">")]
        env = tuple(w for w in words[:next((i for i, w in enumerate(words) if not re.match(r"^[A-Z_]+=", w)),
                                           len(words))])
        out.append(Command(tuple(words[len(env):]), env, where, cwd, line))
        if words[0] == "cd" and len(words) == 2:
            cwd = words[1]
    return out


def commands(paths: list[Path] = DOCS) -> list[Command]:
    """Every command the documents at ``paths`` print, in order, each once per document."""
    found: list[Command] = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        for match in FENCE.finditer(text):
            if match.group(1) not in SHELL_FENCES:
                continue
            start = text[:match.start()].count("\n") + 2
            for line in re.sub(r"\\\n", " ", match.group(2)).splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    found += _split(line, f"{rel}:{start}")
        prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for match in INLINE.finditer(prose):
            span = " ".join(match.group(1).split())
            first = span.split(" ", 1)[0]
            if first in COMMAND_WORDS and (" " in span or first == "pytest"):
                found += _split(span, f"{rel}:{prose[:match.start()].count(chr(10)) + 1}")
    unique: dict[tuple, Command] = {}
    for command in found:
        unique.setdefault((command.words, command.env, command.where.split(":")[0]), command)
    return list(unique.values())


def kind(command: Command) -> str:
    """What a test does with ``command``: ``pip`` (resolve it with ``pip install --dry-run`` in a fresh venv),
    ``pytest`` (collect it), ``script`` (run it with ``--help``), ``bash`` (a script of the repository: it exists
    and parses), ``mkdocs`` and ``hf`` (their subcommand's ``--help``), ``template`` (placeholders to fill in),
    ``python-c`` (its code compiles), ``setup`` (making or entering a venv, ``cd``: the directory exists), ``git``
    (acts on the reader's own repository); ``unknown``
    otherwise, which the test refuses."""
    words = command.words
    if PLACEHOLDERS.search(command.raw or command.text):
        return "template"
    if words[:2] == ("pip", "install") or words[:4] == ("python", "-m", "pip", "install"):
        return "pip"
    if words[0] == "pytest" or words[:3] == ("python", "-m", "pytest"):
        return "pytest"
    if words[:3] in (("python3", "-m", "venv"), ("python", "-m", "venv")) or words[0] in (".", "source", "cd"):
        return "setup"
    if words[0] in ("python", "python3") and len(words) > 2 and words[1] == "-c":
        return "python-c"
    if words[0] in ("python", "python3") and len(words) > 1:
        return "script"
    if words[0] in ("bash", "mkdocs", "hf", "git"):
        return words[0]
    return "unknown"
