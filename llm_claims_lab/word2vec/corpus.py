"""The Korean Wikipedia corpus of post A's exp. 1, read and turned into skip-gram training ids.

The default corpus is the cleaned Korean Wikipedia text of :mod:`llm_claims_lab.data` (CC BY-SA 3.0; its
``SOURCES.txt`` and ``attribution.tsv.xz`` lie beside it in the data directory), fetched and built on first
use. ``--claims-corpus PATH`` or the environment variable ``CLAIMS_CORPUS`` names another UTF-8 text file
(``.xz`` or plain), one paragraph per line; a UTF-8 byte-order mark at its start is stripped, with a warning.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import lzma
import warnings
from pathlib import Path

import torch

from llm_claims_lab import data
from llm_claims_lab.core.errors import InputFault
from llm_claims_lab.inputs import wrong_format
from llm_claims_lab.word2vec.stemming import strip_particle

ENV_VAR = "CLAIMS_CORPUS"
EXPECTED = "a UTF-8 text file (.txt or .txt.xz), one paragraph per line"
BOM = "\ufeff"  # U+FEFF, the byte-order mark some editors write at the start of a UTF-8 file (EF BB BF)


class CorpusUnavailable(InputFault, RuntimeError):
    """The corpus file is missing or unreadable; the message says how to provide one."""


class CorpusTooSmall(CorpusUnavailable):
    """The corpus is readable but no stem occurs often enough to enter the vocabulary: nothing can be measured on it
    (a skip, not a fault of the file); the message gives the counts."""


class CorpusByteOrderMark(UserWarning):
    """The corpus file starts with a UTF-8 byte-order mark: it is stripped, not read as part of the first word;
    said once per file and process (the file is read at configure time and again when the corpus is built)."""


_BOM_SAID: set[Path] = set()  # the files CorpusByteOrderMark was issued for in this process


def explicit_corpus(option: str | None) -> Path | None:
    """The corpus the user named (``--claims-corpus``, else ``$CLAIMS_CORPUS``), or None for the default.

    Raises:
        data.ExplicitPathError: the named path is not a file.
    """
    named = data.named_path(option, "--claims-corpus", ENV_VAR)
    if named is None:
        return None
    path = Path(named[0]).expanduser()
    if not path.is_file():
        raise data.ExplicitPathError(f"{named[1]} names {path}, which is not a file: expected {EXPECTED}")
    return path


def corpus_path(option: str | None, store: data.Store) -> Path:
    """The corpus to use: the one the user named (:func:`explicit_corpus`), else the cleaned Korean Wikipedia
    of ``store``, fetched and built on first use.

    Raises:
        data.ExplicitPathError: as :func:`explicit_corpus`, or the data mirror fails.
        data.DataUnavailable: the default is neither cached nor fetchable (offline).
        data.DataHashMismatch: a fetched or built file is not the published one.
    """
    return explicit_corpus(option) or store.corpus()


def read_paragraphs(path: Path) -> list[str]:
    """Lines of a UTF-8 text file, ``.xz``-compressed or plain, without a byte-order mark at its start (stripped:
    :class:`CorpusByteOrderMark`, once per file).

    Raises:
        CorpusUnavailable: missing, unreadable, not UTF-8, a truncated xz file, a Git LFS pointer or an HTML page
            in its place, or empty.
    """
    fix = f"point --claims-corpus or ${ENV_VAR} at {EXPECTED}"
    if not path.is_file():
        raise CorpusUnavailable(f"corpus not found at {path}: {fix}")
    try:
        opener = lzma.open if path.suffix == ".xz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
    except EOFError:  # lzma: the stream ends before its end marker
        raise CorpusUnavailable(f"corpus at {path} is a truncated xz file (its stream ends early): {fix}") from None
    except (OSError, lzma.LZMAError, UnicodeDecodeError) as exc:
        raise CorpusUnavailable(f"corpus at {path} is unreadable ({type(exc).__name__}: {exc}): {fix}") from None
    if text.startswith(BOM):
        text = text[len(BOM):]
        if path.resolve() not in _BOM_SAID:
            _BOM_SAID.add(path.resolve())
            warnings.warn(CorpusByteOrderMark(
                f"corpus at {path} starts with a UTF-8 byte-order mark (U+FEFF): stripped, so that it is not read "
                "as part of the first word"), stacklevel=2)
    other = wrong_format(text[:200].encode("utf-8"))
    if other:
        raise CorpusUnavailable(f"corpus at {path} is {other}: {fix}")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise CorpusUnavailable(f"corpus at {path} is empty: {fix}")
    return lines


@dataclasses.dataclass
class Corpus:
    """Post A's preprocessing: whitespace split, particle stripping, the ``vocab_size`` most frequent stems
    with count ≥ ``min_count``; the running text keeps only in-vocabulary stems."""

    path: Path
    vocab: list[str]  # [V], most frequent first
    ids: torch.Tensor  # [N] int64: the corpus as vocabulary ids, out-of-vocabulary stems dropped
    paragraph_ids: list[list[int]]  # in-vocabulary ids per paragraph (for topical co-occurrence)
    eojeols: int  # whitespace tokens before stripping
    stems: int  # non-empty stems after stripping
    distinct_stems: int
    sha256: str  # of the text as read

    @property
    def stats(self) -> dict[str, int | str]:
        """Corpus statistics for the report."""
        return {"file": self.path.name, "paragraphs": len(self.paragraph_ids), "eojeols": self.eojeols,
                "stems": self.stems, "distinct stems": self.distinct_stems, "vocabulary": len(self.vocab),
                "tokens kept": int(self.ids.numel()), "sha256": self.sha256[:12]}


def build_corpus(path: Path, *, vocab_size: int = 10_000, min_count: int = 5) -> Corpus:
    """Read ``path`` and apply post A's preprocessing (exp. 1, ``word2vec_zero.py``).

    Raises:
        CorpusUnavailable: see :func:`read_paragraphs`.
        CorpusTooSmall: no stem reaches ``min_count``.
    """
    paragraphs = read_paragraphs(path)
    digest = hashlib.sha256("\n".join(paragraphs).encode("utf-8")).hexdigest()
    stemmed = [[s for s in map(strip_particle, line.split()) if s] for line in paragraphs]
    freq = collections.Counter(s for line in stemmed for s in line)
    vocab = [w for w, c in freq.most_common(vocab_size) if c >= min_count]
    if not vocab:
        top = freq.most_common(1)[0][1] if freq else 0
        raise CorpusTooSmall(f"corpus at {path} has no stem that occurs {min_count} times (its {len(freq):,} stems "
                             f"occur at most {top} times in {sum(freq.values()):,} eojeols): its vocabulary is empty, "
                             f"so it covers 0 of WS-353's 353 pairs and 0 analogy items")
    index = {w: i for i, w in enumerate(vocab)}
    paragraph_ids = [[index[s] for s in line if s in index] for line in stemmed]
    ids = torch.tensor([i for line in paragraph_ids for i in line], dtype=torch.int64)  # [N]
    return Corpus(path=path, vocab=vocab, ids=ids, paragraph_ids=paragraph_ids,
                  eojeols=sum(len(line.split()) for line in paragraphs),
                  stems=sum(len(line) for line in stemmed), distinct_stems=len(freq), sha256=digest)
