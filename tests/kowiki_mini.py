"""Plain helpers (not tests) for the data tests: two tiny Korean Wikipedia extracts and what the reference
cleaning makes of them, a mini registry of synthetic files with its mirror, a local HTTP server, and the
simulated faults of a data directory (read-only, full disk)."""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import errno
import functools
import hashlib
import http.server
import io
import lzma
import os
import shutil
import socket
import threading
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import pytest

from llm_claims_lab import data

WIKI_00 = """\
<doc id="5" url="https://ko.wikipedia.org/wiki?curid=5" title="지미 카터">
지미 카터

제임스 얼 카터 주니어(, 1924년 10월 1일 ~ )는 미국의 제39대 대통령이다 .
그는 [[조지아주|조지아]]에서 &lt;b&gt;땅콩&lt;/b&gt; 농장을 운영했다. 그 뒤 정계
카터() 는 해군 장교로 복무하였다.
formula_1 은 수식이 들어간 문단이다.
|| 표 || 행이다 ||
English only sentence here.
짧은 문장이다.
목록의 항목 하나 둘
</doc>
"""
WIKI_01 = """\
<doc id="9" url="https://ko.wikipedia.org/wiki?curid=9" title="수학">
수학
수학은 수와 양을 연구하는 학문이다.
</doc>
"""
# What clean_kowiki.py (the reference) makes of WIKI_00 + WIKI_01.
CLEANED = ("제임스 얼 카터 주니어(1924년 10월 1일 ~ )는 미국의 제39대 대통령이다.\n"
           "그는 조지아에서 땅콩 농장을 운영했다. 그 뒤 정계\n"
           "카터 는 해군 장교로 복무하였다.\n"
           "수학은 수와 양을 연구하는 학문이다.\n")
EVAL_FILES = {"WS353_korean.csv": "word 1,word 2,kor_score\n사랑,섹스,6.42\n",
              "word_analogy_korean.txt": ": sem1\n아테네 그리스 방콕 태국\n"}


def sha256(text: str | bytes) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


@dataclasses.dataclass
class Mini:
    """A mini registry with its files as published (``published/``, served as "the network") and a mirror."""

    registry: data.Registry
    published: Path
    mirror: Path


def mini_registry(tmp_path: Path, base_url: str = "http://127.0.0.1:9") -> Mini:
    published, mirror = tmp_path / "published", tmp_path / "mirror"
    published.mkdir()
    raw = {"wiki_00": WIKI_00, "wiki_01": WIKI_01}
    for name, text in {**EVAL_FILES, **raw}.items():
        (published / name).write_text(text, encoding="utf-8")
    for name, text in EVAL_FILES.items():
        (mirror / "ko_wordvec_eval").mkdir(parents=True, exist_ok=True)
        (mirror / "ko_wordvec_eval" / name).write_text(text, encoding="utf-8")
    (mirror / "corpus_ko" / "raw").mkdir(parents=True)
    for name, text in raw.items():
        (mirror / "corpus_ko" / "raw" / f"{name}.xz").write_bytes(lzma.compress(text.encode("utf-8")))

    def data_set(name: str, files: dict[str, str], mirror_dir: str, suffix: str) -> data.DataSet:
        return data.DataSet(name, f"mini {name}", tuple(
            data.PublishedFile(f"{mirror_dir}/{file}", f"{base_url}/{file}", sha256(text),
                               f"{mirror_dir}/{file}{suffix}") for file, text in files.items()),
            license="test license", attribution="test attribution")

    registry = data.Registry(ko_eval=data_set("ko_wordvec_eval", EVAL_FILES, "ko_wordvec_eval", ""),
                             kowiki=data_set("corpus_ko", raw, "corpus_ko/raw", ".xz"),
                             corpus_sha256=sha256(CLEANED))
    return Mini(registry, published, mirror)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    cut: Collection[str] = ()

    def log_message(self, *args: object) -> None:
        pass

    def copyfile(self, source: io.BufferedIOBase, outputfile: io.BufferedIOBase) -> None:
        """Send the file, or for a name in ``cut`` half of it (after a Content-Length of all of it)."""
        content = source.read()
        outputfile.write(content[:len(content) // 2] if self.path.lstrip("/") in self.cut else content)


@contextlib.contextmanager
def serve(directory: Path, cut: Collection[str] = ()) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port), in a thread; yields the base URL. The files
    named in ``cut`` (read at each request: a set the caller may empty) break off half way, as a dropped
    connection does."""
    handler = type("Handler", (_QuietHandler,), {"cut": cut})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A local port nothing listens on: connections to it are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def digest(root: Path) -> dict[str, str]:
    """The sha256 of every file under ``root`` but the fetch lock, by path relative to ``root``."""
    return {str(p.relative_to(root)): sha256(p.read_bytes()) for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".fetch.lock"}


def _error(code: int, path: object = None) -> OSError:
    """The OSError of a failed system call: on ``path``, or (a write's) on none."""
    return OSError(code, os.strerror(code), *([str(path)] if path is not None else []))


@contextlib.contextmanager
def read_only(root: Path) -> Iterator[None]:
    """Simulate ``chmod -R a-w root`` for this process, root included: creating, renaming or removing an entry
    under ``root`` fails with EACCES; existing files stay writable, as in a directory of mode 0o500."""
    def inside(path: object) -> bool:
        return isinstance(path, (str, os.PathLike)) and Path(os.path.abspath(path)).is_relative_to(root)

    def creating(real: Callable, new: Callable[..., bool]) -> Callable:
        def guarded(path: object, *args: object, **kwargs: object) -> object:
            if inside(path) and not os.path.exists(path) and new(*args, **kwargs):
                raise _error(errno.EACCES, path)
            return real(path, *args, **kwargs)
        return guarded

    def changing(real: Callable) -> Callable:
        def guarded(path: object, *args: object, **kwargs: object) -> object:
            if inside(path) or (args and inside(args[0])):
                raise _error(errno.EACCES, path)
            return real(path, *args, **kwargs)
        return guarded

    opened = creating(builtins.open, lambda mode="r", *_a, **_k: any(c in mode for c in "wxa+"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builtins, "open", opened)
        patch.setattr(io, "open", opened)
        patch.setattr(os, "open", creating(os.open, lambda flags, *_a, **_k: bool(flags & os.O_CREAT)))
        patch.setattr(os, "mkdir", creating(os.mkdir, lambda *_a, **_k: True))
        for name in ("replace", "rename", "unlink", "remove", "rmdir"):
            patch.setattr(os, name, changing(getattr(os, name)))
        yield


@contextlib.contextmanager
def full_disk(copying: str = "", flushing: str = "") -> Iterator[None]:
    """Simulate a full disk (ENOSPC): copying a local mirror's file named ``copying`` writes half of it, then
    fails; flushing (``os.fsync``) a file whose name contains ``flushing`` fails, as a delayed allocation
    does."""
    real_copy, real_fsync = shutil.copyfile, os.fsync

    def copyfile(src: str, dst: str, *args: object, **kwargs: object) -> object:
        if Path(src).name != copying:
            return real_copy(src, dst, *args, **kwargs)
        content = Path(src).read_bytes()
        Path(dst).write_bytes(content[:len(content) // 2])
        raise _error(errno.ENOSPC)

    def fsync(fd: int) -> None:
        if flushing and flushing in os.path.basename(os.readlink(f"/proc/self/fd/{fd}")):
            raise _error(errno.ENOSPC)
        real_fsync(fd)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shutil, "copyfile", copyfile)
        patch.setattr(os, "fsync", fsync)
        yield
