"""The Korean word-vector evaluation sets of Park, Byun, Baek, Cho and Oh, "Subword-level Word Vector
Representations for Korean" (ACL 2018): the translated WS-353 and the Korean analogy set.

The default directory is the registry's copy (:mod:`llm_claims_lab.data`: the authors' files at a pinned commit,
verified by sha256, fetched on first use); ``--claims-ko-eval-dir DIR`` or the environment variable
``CLAIMS_KO_EVAL_DIR`` names another directory holding the same two files. The loaders only read and check the
files; scoring a table against them is the claims' business (``claims/test_word2vec.py``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import hashlib
import warnings

from llm_claims_lab import data
from llm_claims_lab.core.errors import InputFault
from llm_claims_lab.inputs import wrong_format

ENV_VAR = "CLAIMS_KO_EVAL_DIR"
WS353_FILE = "WS353_korean.csv"
ANALOGY_FILE = "word_analogy_korean.txt"
WS353_HEADER = ("word 1", "word 2", "kor_score")
SCORE_RANGE = (0.0, 10.0)  # the raters' scale


class EvalDataUnavailable(InputFault, RuntimeError):
    """An evaluation file is missing or unreadable; the message says how to provide it."""


class UnpublishedEvalFile(UserWarning):
    """A named evaluation file is not the one its authors published (another sha256): the rows measure it as
    given; the warning names the file and both hashes."""


class MalformedEvalFile(InputFault, ValueError):
    """An evaluation file is readable but not in the expected format; the message names the file and line."""


@dataclasses.dataclass(frozen=True)
class ScoredPair:
    """One WS-353 line: two words and their human relatedness score (0–10)."""

    first: str
    second: str
    score: float


@dataclasses.dataclass(frozen=True)
class Analogy:
    """One analogy item ``a : b = c : d`` (3CosAdd asks for ``d`` from ``b − a + c``)."""

    a: str
    b: str
    c: str
    d: str


def explicit_dir(option: str | None) -> Path | None:
    """The directory the user named (``--claims-ko-eval-dir``, else ``$CLAIMS_KO_EVAL_DIR``), or None for the
    default.

    Raises:
        data.ExplicitPathError: the named path does not exist, is not a directory, or lacks one of the two files.
    """
    named = data.named_path(option, "--claims-ko-eval-dir", ENV_VAR)
    if named is None:
        return None
    path = Path(named[0]).expanduser()
    if not path.is_dir():
        raise data.ExplicitPathError(
            f"{named[1]} names {path}, which {'is not a directory' if path.exists() else 'does not exist'}: expected "
            f"a directory holding {WS353_FILE} and {ANALOGY_FILE} (Park et al. 2018)")
    missing = [name for name in (WS353_FILE, ANALOGY_FILE) if not (path / name).is_file()]
    if missing:
        raise data.ExplicitPathError(
            f"{named[1]} names {path}, which lacks {' and '.join(missing)}: expected a directory holding "
            f"{WS353_FILE} and {ANALOGY_FILE} (Park et al. 2018)")
    return path


def warn_if_unpublished(directory: Path) -> None:
    """Warn (:class:`UnpublishedEvalFile`) for each evaluation file in ``directory`` whose sha256 is not the
    published one of the registry (:mod:`llm_claims_lab.data.registry`): a named copy that was edited, damaged
    or is another version is measured as given, and said so."""
    for published in data.REGISTRY.ko_eval.files:
        path = directory / Path(published.path).name
        actual = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        if actual is not None and actual != published.sha256:
            warnings.warn(UnpublishedEvalFile(
                f"{path} is not the published {path.name} (sha256 {actual[:16]}…, published {published.sha256[:16]}…, "
                f"{published.url}): the rows measure it as given"), stacklevel=2)


def eval_dir(option: str | None, store: data.Store) -> Path:
    """The directory to read: the one the user named (:func:`explicit_dir`), else the registry's copy in
    ``store``, fetched and verified on first use.

    Raises:
        data.ExplicitPathError: as :func:`explicit_dir`, or the data mirror fails.
        data.DataUnavailable: the default is neither cached nor fetchable (offline).
        data.DataHashMismatch: a fetched file is not the published one.
    """
    return explicit_dir(option) or store.ko_eval()


def load_ws353(path: Path) -> list[ScoredPair]:
    """The pairs of ``WS353_korean.csv``: a ``word 1,word 2,kor_score`` header (a UTF-8 BOM is allowed), then
    one ``word,word,score`` line per pair; spaces around fields are dropped (one published line ends in one).

    Raises:
        EvalDataUnavailable: the file is missing, unreadable, not UTF-8, or a Git LFS pointer or HTML page.
        MalformedEvalFile: a wrong header, a line without 3 fields, an empty word, a score that is not a
            number in 0–10, or no pair at all.
    """
    lines = _read_lines(path)
    header = tuple(field.strip() for field in lines[0][1].split(","))
    if header != WS353_HEADER:
        raise MalformedEvalFile(f"{path}:1: header {','.join(header)!r}, expected {','.join(WS353_HEADER)!r}: not "
                                "the Korean WS-353 of Park et al. 2018 (`python -m llm_claims_lab.data list` gives "
                                "its source)")
    pairs = []
    for number, line in lines[1:]:
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != 3 or not fields[0] or not fields[1]:
            raise MalformedEvalFile(f"{path}:{number}: expected 'word,word,score', got {line!r}")
        try:
            score = float(fields[2])
        except ValueError:
            raise MalformedEvalFile(f"{path}:{number}: score {fields[2]!r} is not a number") from None
        if not SCORE_RANGE[0] <= score <= SCORE_RANGE[1]:
            raise MalformedEvalFile(
                f"{path}:{number}: score {score} is outside {SCORE_RANGE[0]}–{SCORE_RANGE[1]}")
        pairs.append(ScoredPair(fields[0], fields[1], score))
    if not pairs:
        raise MalformedEvalFile(f"{path}: a header and no pair")
    return pairs


def load_analogies(path: Path) -> dict[str, list[Analogy]]:
    """The sections of ``word_analogy_korean.txt``, in file order: each opened by a ``: name`` line and
    followed by items of four whitespace-separated words ``a b c d`` (a : b = c : d).

    Raises:
        EvalDataUnavailable: the file is missing, unreadable, not UTF-8, or a Git LFS pointer or HTML page.
        MalformedEvalFile: an item before the first section, an item without 4 words, a section named twice or
            holding no item, or no section at all.
    """
    sections: dict[str, list[Analogy]] = {}
    current: list[Analogy] | None = None
    for number, line in _read_lines(path):
        if line.startswith(":"):
            name = line[1:].strip()
            if not name or name in sections:
                raise MalformedEvalFile(f"{path}:{number}: section name {name!r} is empty or repeated")
            current = sections[name] = []
            continue
        words = line.split()
        if current is None:
            raise MalformedEvalFile(f"{path}:{number}: an item before the first ': section' line")
        if len(words) != 4:
            raise MalformedEvalFile(f"{path}:{number}: expected 4 words 'a b c d', got {line!r}")
        current.append(Analogy(*words))
    if not sections:
        raise MalformedEvalFile(f"{path}: no ': section' line")
    empty = [name for name, items in sections.items() if not items]
    if empty:
        raise MalformedEvalFile(f"{path}: sections without items: {empty}")
    return sections


def _read_lines(path: Path) -> list[tuple[int, str]]:
    """``(line number, text)`` of the non-blank lines of a UTF-8 file (a BOM dropped)."""
    fix = (f"point --claims-ko-eval-dir or ${ENV_VAR} at a directory holding {WS353_FILE} and {ANALOGY_FILE} "
           f"(Park et al. 2018; `python -m llm_claims_lab.data list` gives their sources)")
    if not path.is_file():
        raise EvalDataUnavailable(f"evaluation file not found at {path}: {fix}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise EvalDataUnavailable(
            f"evaluation file {path} is unreadable ({type(exc).__name__}: {exc}): {fix}") from None
    other = wrong_format(text[:200].encode("utf-8"))
    if other:
        raise EvalDataUnavailable(f"evaluation file {path} is {other}: {fix}")
    lines = [(i, line.rstrip("\r")) for i, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not lines:
        raise MalformedEvalFile(f"{path}: empty")
    return lines
