"""Where the word2vec claims' data is kept and read from: the data directory (``--claims-data-dir DIR``, else
``$CLAIMS_DATA_DIR``, else ``<user cache>/llm-claims/data``, from ``platformdirs``), what an interrupted fetch
leaves in it, and a mirror (:class:`Mirror`); and the errors of providing the data (:class:`DataError`)."""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import shutil
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import platformdirs
import pooch
import requests

from llm_claims_lab.core.paths import not_writable_dir
from llm_claims_lab.core.errors import InputFault
from llm_claims_lab.data.registry import DataSet, PublishedFile, Registry, mirror_layout

DATA_DIR_ENV = "CLAIMS_DATA_DIR"
MIRROR_ENV = "CLAIMS_DATA_MIRROR"
# the temporary files and directories of an interrupted write: ours (llm_claims_harness.atomic, Store's downloads:
# ".<name>.<8 characters>.tmp") and pooch's ("tmp<8 characters>", tempfile's names)
TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp|tmp[a-z0-9_]{8}")
WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG)  # a write's, whatever file it names


class DataError(InputFault, RuntimeError):
    """Data could not be provided; the message names the file or path and the fix."""


class DataUnavailable(DataError):
    """The default source is unreachable (offline) and the cache lacks the data; the word2vec rows skip."""


class DataHashMismatch(DataError):
    """A fetched or built file's sha256 differs from the registry's; nothing was kept under its name."""


class ExplicitPathError(DataError):
    """A path the user named (option or environment variable) does not hold what it should: a usage error."""


def named_path(option: str | None, flag: str, env_var: str) -> tuple[str, str] | None:
    """A path the user named: ``(value, how)`` from the option, else the environment variable; ``how`` is
    ``flag`` or ``$env_var``, for messages. None when neither names one (the default applies)."""
    if option:
        return option, flag
    if os.environ.get(env_var):
        return os.environ[env_var], f"${env_var}"
    return None


def data_dir(option: str | None, flag: str = "--claims-data-dir") -> Path:
    """The data directory: ``option``, else ``$CLAIMS_DATA_DIR``, else ``<user cache>/llm-claims/data``.
    Nothing is created here; :class:`llm_claims_lab.data.Store` creates it when it first writes.

    Raises:
        ExplicitPathError: the named path is not a directory, and is not one that can be created (its
            nearest existing ancestor is a file or not writable).
    """
    named = named_path(option, flag, DATA_DIR_ENV)
    if named is None:
        return Path(platformdirs.user_cache_dir("llm-claims")) / "data"
    path, how = Path(named[0]).expanduser().absolute(), named[1]
    problem = not_writable_dir(path)  # the harness's check: dangling links and loops too
    if problem is None:
        return path
    raise ExplicitPathError(f"{how} names {path}, which is not a directory this run can write in ({problem}): "
                            f"expected a directory for the data cache (an existing one, or one this run can create)")


def unwritable(root: Path, exc: OSError) -> DataError:
    """The error of a data directory ``root`` that a write (``exc``) failed in: read-only, full disk."""
    on = f" on {exc.filename}" if exc.filename and Path(exc.filename) != root else ""
    fix = "free space on its disk" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "make it writable"
    return DataError(f"the data directory {root} cannot be written ({exc.strerror or exc}{on}); nothing "
                     f"half-written was kept. Fix: {fix}, or name another with --claims-data-dir or "
                     f"${DATA_DIR_ENV}")


def unread(exc: OSError, source: str) -> str | None:
    """Why ``source`` (a file or URL) could not be read, in a few words, if ``exc`` is the failure to read it:
    a request's (its HTTP status, else its type) or an error on that file that no write gives; else None (a
    failure to write the data directory)."""
    response = getattr(exc, "response", None)
    if response is not None:
        return f"HTTP {response.status_code} {response.reason}"
    if isinstance(exc, requests.RequestException):
        return type(exc).__name__
    reading = exc.filename == source and exc.errno not in WRITE_ERRNOS
    return f"{type(exc).__name__}: {exc}" if reading else None


def remove_stale(root: Path, data_set: DataSet) -> list[str]:
    """Remove what an interrupted fetch of ``data_set`` left in its directories under ``root`` (call it
    holding the fetch lock): temporary files and directories (:data:`TEMPORARY`) and the ``<file>.xz``
    downloads of a mirror's xz copies that earlier versions kept beside the file; nothing else.

    Returns:
        The paths removed, relative to ``root``.

    Raises:
        OSError: one cannot be removed.
    """
    directories = {root / data_set.name, *((root / f.path).parent for f in data_set.files)}
    stale = [p for d in sorted(directories) if d.is_dir() for p in sorted(d.iterdir())
             if TEMPORARY.fullmatch(p.name)]
    stale += [p for f in data_set.files
              if f.mirror_path.endswith(".xz") and (p := root / f"{f.path}.xz").exists()]
    for path in stale:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    return [str(p.relative_to(root)) for p in stale]


@dataclasses.dataclass(frozen=True)
class Mirror:
    """A copy of the published files laid out as the registry's ``mirror_path``s: a local directory or an
    http(s) base URL."""

    root: str  # a directory, or a base URL without the trailing "/"
    how: str  # how the user named it (option or environment variable), for messages

    @property
    def is_url(self) -> bool:
        return self.root.startswith(("http://", "https://"))

    def locate(self, f: PublishedFile) -> str:
        """Where this mirror holds ``f``: a path or a URL."""
        return f"{self.root}/{f.mirror_path}" if self.is_url else str(Path(self.root, f.mirror_path))

    def downloader(self, progressbar: bool, timeout: tuple[float, float]) -> Callable:
        """A pooch downloader for :meth:`locate`'s result: HTTP for a URL mirror, a copy for a directory."""
        if self.is_url:
            return pooch.HTTPDownloader(progressbar=progressbar, timeout=timeout)
        return lambda source, output_file, _pooch: shutil.copyfile(source, output_file)


def named_mirror(option: str | None, flag: str, registry: Registry) -> Mirror | None:
    """The mirror the user named (``option``, else ``$CLAIMS_DATA_MIRROR``), or None (fetch from the network).
    A local directory (or ``file://`` URL) must hold every file of ``registry``; a URL mirror is checked file
    by file as it is read.

    Raises:
        ExplicitPathError: an unsupported URL scheme, or a directory that lacks the layout.
    """
    named = named_path(option, flag, MIRROR_ENV)
    if named is None:
        return None
    text, how = named
    scheme = urllib.parse.urlsplit(text).scheme
    if scheme in ("http", "https"):
        return Mirror(text.rstrip("/"), how)
    if scheme == "file":
        text = urllib.request.url2pathname(urllib.parse.urlsplit(text).path)
    elif "://" in text:
        raise ExplicitPathError(f"{how} names {text}: expected a directory, a file:// URL or an http(s) URL")
    found = Mirror(str(Path(text).expanduser()), how)
    files = [*registry.ko_eval.files, *registry.kowiki.files]
    missing = [f.mirror_path for f in files if not Path(found.locate(f)).is_file()]
    if missing:
        problem = (f"lacks {len(missing)} of the {len(files)} mirrored files (first: {missing[0]})"
                   if Path(found.root).is_dir() else "is not a directory")
        raise ExplicitPathError(f"{how} names {found.root}, which {problem}: expected a directory or URL "
                                f"laid out as {mirror_layout(registry)}")
    return found
