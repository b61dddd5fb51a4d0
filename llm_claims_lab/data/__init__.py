"""The external data of the word2vec claims: pinned public sources (:mod:`llm_claims_lab.data.registry`),
fetched once, verified, and built into a local cache.

:class:`Store` fetches (``pooch``, into a private temporary directory: hash check, move), verifies and builds
into the data directory (:func:`~llm_claims_lab.data.locations.data_dir`). A cached file that matches its hash
is never fetched again; one that does not is fetched again. One process fetches while the others wait (a file
lock in the data directory); it first removes what an interrupted fetch left there.

A mirror (``--claims-data-mirror`` or ``$CLAIMS_DATA_MIRROR``: a local directory, a ``file://`` URL or an
http(s) base URL) replaces the network. It is laid out like this::

    ko_wordvec_eval/WS353_korean.csv, ko_wordvec_eval/word_analogy_korean.txt   (as published)
    corpus_ko/raw/wiki_00.xz … wiki_19.xz                                      (xz-compressed copies)

and every file from it is checked against the published sha256 (of the decompressed bytes for ``.xz``).

Command line, with network: ``python -m llm_claims_lab.data fetch [--data-dir DIR] [--mirror SRC]`` fetches
and builds everything and prints where; ``python -m llm_claims_lab.data list`` prints the registry
(:func:`llm_claims_lab.data.command.main`).

Every public name of :mod:`~llm_claims_lab.data.registry` and :mod:`~llm_claims_lab.data.locations` is
importable from here. The registry's default is this module's :data:`REGISTRY`, read when called, so that
replacing ``llm_claims_lab.data.REGISTRY`` (a test's mini registry) reaches :func:`mirror`, :class:`Store` and
the command line.
"""

from __future__ import annotations

import contextlib
import logging
import lzma
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import filelock
import pooch

from llm_claims_lab.data import kowiki
from llm_claims_lab.inputs import wrong_format
from llm_claims_lab.core.atomic import write_atomic, write_text_atomic
from llm_claims_lab.data.locations import (
    DATA_DIR_ENV,
    MIRROR_ENV,
    DataError,  # noqa: F401  (public here)
    DataHashMismatch,
    DataUnavailable,
    ExplicitPathError,
    Mirror,
    data_dir,  # noqa: F401  (public here, as the module docstring says)
    named_mirror,
    named_path,  # noqa: F401  (read from here by corpus and ko_eval)
    remove_stale,
    unread,
    unwritable,
)
from llm_claims_lab.data.registry import (
    ATTRIBUTION_FILE,
    CORPUS_FILE,
    REGISTRY,
    SOURCES_FILE,
    DataSet,
    PublishedFile,
    Registry,
    describe,  # noqa: F401  (public here)
)

FETCH_COMMAND = "python -m llm_claims_lab.data fetch"
TIMEOUT_S = (5.0, 60.0)  # (connect, read) seconds: an offline machine is told apart quickly
pooch.get_logger().setLevel(logging.WARNING)  # Store reports progress itself (its ``say``)


def mirror(option: str | None, flag: str = "--claims-data-mirror",
           registry: Registry | None = None) -> Mirror | None:
    """:func:`~llm_claims_lab.data.locations.named_mirror` of ``registry`` (default :data:`REGISTRY`).

    Raises:
        ExplicitPathError: an unsupported URL scheme, or a directory that lacks the layout.
    """
    return named_mirror(option, flag, registry or REGISTRY)


class Store:
    """The data directory: fetches, verifies and builds on first use, then serves the cached files.

    ``mirror`` replaces the network; ``timeout`` is (connect, read) seconds per HTTP request; ``progressbar``
    shows tqdm bars for HTTP downloads; ``say`` receives one line per fetch or build step.
    """

    def __init__(self, root: Path, mirror: Mirror | None = None, *, registry: Registry | None = None,
                 timeout: tuple[float, float] = TIMEOUT_S, progressbar: bool = False,
                 say: Callable[[str], None] = lambda _line: None) -> None:
        self.root, self.mirror, self.registry = root, mirror, registry or REGISTRY
        self.timeout, self.progressbar, self.say = timeout, progressbar, say

    def ko_eval(self) -> Path:
        """The directory holding the Korean WS-353 and analogy files, fetched and verified on first use.

        Raises:
            DataUnavailable: no mirror, the network is unreachable (or refuses a file) and the cache lacks it.
            DataHashMismatch: a fetched file is not the published one (an xz copy: not a complete xz stream).
            ExplicitPathError: the mirror lacks a file or cannot be read.
            DataError: the data directory cannot be written (read-only, full disk).
        """
        data_set = self.registry.ko_eval
        if not self._complete(data_set):
            with self._locked(data_set):
                self._fetch(data_set)
                write_text_atomic(self.root / data_set.name / SOURCES_FILE, describe(data_set))
        return self.root / data_set.name

    def corpus(self) -> Path:
        """The cleaned Korean Wikipedia corpus (UTF-8, one paragraph per line; sha256 pinned in the registry),
        with ``attribution.tsv.xz`` and ``SOURCES.txt`` beside it; fetched and built on first use.

        Raises:
            DataUnavailable, DataHashMismatch, ExplicitPathError, DataError: as :meth:`ko_eval`;
                DataHashMismatch also when the text built from the verified files is not the pinned one.
        """
        data_set = self.registry.kowiki
        target = self.root / data_set.name / CORPUS_FILE
        if not self._built(target):
            with self._locked(data_set):
                if not self._built(target):
                    self._fetch(data_set)
                    self._build(data_set, target)
        return target

    @contextlib.contextmanager
    def _locked(self, data_set: DataSet) -> Iterator[None]:
        """Hold the fetch lock (one process fetches or builds, the others wait), having removed what an
        interrupted fetch of ``data_set`` left behind.

        Raises:
            DataError: the data directory cannot be written, in the block too (read-only, full disk).
        """
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with filelock.FileLock(self.root / ".fetch.lock"):
                if removed := remove_stale(self.root, data_set):
                    self.say(f"removed what an interrupted fetch left in {self.root}: {', '.join(removed)}")
                yield
        except OSError as exc:  # a source's errors are DataErrors by now (_fetch_file)
            raise unwritable(self.root, exc) from None

    def _complete(self, data_set: DataSet) -> bool:
        """Whether every file of ``data_set`` and its ``SOURCES.txt`` are cached and verified."""
        return (self.root / data_set.name / SOURCES_FILE).is_file() and all(
            _matches(self.root / f.path, f.sha256) for f in data_set.files)

    def _built(self, target: Path) -> bool:
        return (_matches(target, self.registry.corpus_sha256)
                and (target.parent / ATTRIBUTION_FILE).is_file() and (target.parent / SOURCES_FILE).is_file())

    def _fetch(self, data_set: DataSet) -> None:
        """Put the files of ``data_set`` in the cache, verified; copies already there that match are kept."""
        todo = [f for f in data_set.files if not _matches(self.root / f.path, f.sha256)]
        if todo:
            where = self.mirror.root if self.mirror else "the network"
            self.say(f"fetching {data_set.name} ({len(todo)} files) from {where} into {self.root}")
        for f in todo:
            self._fetch_file(f)

    def _fetch_file(self, f: PublishedFile) -> None:
        """Download ``f`` into a private temporary directory beside its place (nothing found there is reused),
        verify it (a mirror's xz copy decompressed) and move it into place.

        Raises:
            DataHashMismatch, ExplicitPathError, DataUnavailable: as :meth:`ko_eval`, for this file.
            OSError: the data directory cannot be written.
        """
        target, packed = self.root / f.path, bool(self.mirror) and f.mirror_path.endswith(".xz")
        source = self.mirror.locate(f) if self.mirror else f.url
        downloader = (self.mirror.downloader(self.progressbar, self.timeout) if self.mirror
                      else pooch.HTTPDownloader(progressbar=self.progressbar, timeout=self.timeout))
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(suffix=".tmp", prefix=f".{target.name}.",
                                         dir=target.parent) as private:
            try:  # verified here, not by pooch: a file that is not the published one is said to be what it is
                got = Path(pooch.retrieve(source, known_hash=None,
                                          fname=Path(f.mirror_path if packed else f.path).name, path=private,
                                          downloader=downloader))
            except OSError as exc:  # requests' errors are OSErrors too
                if (why := unread(exc, source)) is None:
                    raise  # a failure to write the data directory
                if self.mirror:
                    raise ExplicitPathError(
                        f"{self.mirror.how} names {self.mirror.root}, but {source} cannot be read ({why}): "
                        f"expected the published file {f.url}{' xz-compressed' if packed else ''}") from None
                held = ("holds a copy of " + f.path + " that fails its sha256 check (damaged or another file; "
                        "it is replaced once the file can be fetched)") if target.exists() else "lacks " + f.path
                raise DataUnavailable(
                    f"the data cache {self.root} {held} and {f.url} cannot be fetched ({why}). On a "
                    f"machine with network run `{FETCH_COMMAND} --data-dir DIR` and copy DIR here, then pass "
                    f"--claims-data-dir DIR (or ${DATA_DIR_ENV}=DIR); or set ${MIRROR_ENV} "
                    f"(--claims-data-mirror) to a mirror directory or URL") from None
            if packed:
                write_atomic(target, lambda tmp: self._unpack(got, Path(tmp), f, source))
            else:
                self._verify(got, f, source)
                os.replace(got, target)

    def _verify(self, got: Path, f: PublishedFile, source: str) -> None:
        """Check a downloaded file against the published sha256.

        Raises:
            DataHashMismatch: it is not the published file: said to be empty, an HTML page or a Git LFS pointer
                where it is one, with both hashes.
        """
        actual = pooch.file_hash(str(got))
        if actual != f.sha256:
            with open(got, "rb") as fh:
                head = fh.read(200)
            what = ("an empty file" if not head else wrong_format(head)
                    or "not the published file (truncated, altered or another version)")
            raise DataHashMismatch(f"{source} is {what}: it has sha256 {actual}, the published file {f.path} has "
                                   f"{f.sha256}; nothing was kept. Fix: {self._fix(f, source)}")

    def _unpack(self, packed: Path, out: Path, f: PublishedFile, source: str) -> None:
        """Decompress a mirror's ``.xz`` copy into ``out`` and check it against the published sha256.

        Raises:
            DataHashMismatch: ``packed`` is empty, a truncated or damaged xz file, another kind of file (an HTML
                page, a Git LFS pointer), or not the published file's copy; with both hashes.
        """
        try:
            with lzma.open(packed) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except EOFError:
            what = ("an empty file" if packed.stat().st_size == 0
                    else "a truncated xz file (its stream ends before the end marker)")
        except lzma.LZMAError as exc:
            what = wrong_format(packed.read_bytes()[:200]) or f"not an xz file, or a damaged one ({exc})"
        else:
            what = None
        if what:
            raise DataHashMismatch(
                f"{source} is {what}: it has sha256 "
                f"{pooch.file_hash(str(packed))}, the published file {f.path} has {f.sha256} (decompressed); "
                f"nothing was kept. Fix: {self._fix(f, source)}")
        actual = pooch.file_hash(str(out))
        if actual != f.sha256:
            raise DataHashMismatch(f"{f.path} from {source} (decompressed) has sha256 {actual}, the "
                                   f"published file has {f.sha256}; nothing was kept. "
                                   f"Fix: {self._fix(f, source)}")

    def _fix(self, f: PublishedFile, source: str) -> str:
        if self.mirror:
            packed = " (xz-compressed)" if f.mirror_path.endswith(".xz") else ""
            return f"replace {source} with the published file {f.url}{packed}, or unset {self.mirror.how}"
        return (f"fetch again (`{FETCH_COMMAND}`); if it persists, something between here and {f.url} alters "
                f"the download: fetch on another machine and pass its data directory (--claims-data-dir)")

    def _build(self, data_set: DataSet, target: Path) -> None:
        """Write the attribution list, SOURCES.txt and the cleaned corpus (last, verified before its move)."""
        raw = [self.root / f.path for f in data_set.files]
        self.say(f"building {target} from {len(raw)} files")
        tsv = "curid\turl\ttitle\n" + "".join(f"{a.curid}\t{a.url}\t{a.title}\n"
                                              for a in kowiki.articles(_lines(raw)))
        write_atomic(target.parent / ATTRIBUTION_FILE,
                     lambda tmp: Path(tmp).write_bytes(lzma.compress(tsv.encode("utf-8"))))
        write_text_atomic(target.parent / SOURCES_FILE, describe(data_set) + (
            f"{CORPUS_FILE}: built from these files by llm_claims_lab/data/kowiki.py, one paragraph per line\n"
            f"  sha256 {self.registry.corpus_sha256}\n"))
        write_atomic(target, lambda tmp: self._write_corpus(raw, Path(tmp), target))

    def _write_corpus(self, raw: list[Path], out: Path, target: Path) -> None:
        with open(out, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(paragraph + "\n" for paragraph in kowiki.paragraphs(_lines(raw)))
        actual = pooch.file_hash(str(out))
        if actual != self.registry.corpus_sha256:
            raise DataHashMismatch(
                f"{target} built from the verified raw files has sha256 {actual}, the registry pins "
                f"{self.registry.corpus_sha256}; nothing was kept. Fix: the cleaning "
                f"(llm_claims_lab/data/kowiki.py) changed: restore it, or pin the new sha256 in "
                f"llm_claims_lab/data/registry.py (it keys the cached word2vec models)")


def _matches(path: Path, sha256: str) -> bool:
    return path.is_file() and pooch.file_hash(str(path)) == sha256


def _lines(paths: list[Path]) -> Iterator[str]:
    """The lines of UTF-8 text files in turn, read in text mode (universal newlines)."""
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            yield from fh
