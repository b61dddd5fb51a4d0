"""Where the word2vec claims' data is kept and read from: the data directory (``--claims-data-dir DIR``, else
``$CLAIMS_DATA_DIR``, else ``<user cache>/llm-claims/data``, from ``platformdirs``) and a mirror
(:class:`Mirror`); and the errors of providing the data (:class:`DataError`)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import platformdirs
import pooch

from llm_claims_lab.data_registry import PublishedFile

DATA_DIR_ENV = "CLAIMS_DATA_DIR"
MIRROR_ENV = "CLAIMS_DATA_MIRROR"


class DataError(RuntimeError):
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
    existing = next(p for p in (path, *path.parents) if p.exists())
    if existing == path and not path.is_dir():
        problem = "is not a directory"
    elif existing != path and not (existing.is_dir() and os.access(existing, os.W_OK | os.X_OK)):
        problem = f"does not exist and cannot be created under {existing}"
    else:
        return path
    raise ExplicitPathError(f"{how} names {path}, which {problem}: expected a directory for the data cache "
                            f"(an existing one, or one this run can create)")


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
