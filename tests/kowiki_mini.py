"""Plain helpers (not tests) for the data tests: two tiny Korean Wikipedia extracts and what the reference
cleaning makes of them, a mini registry of synthetic files with its mirror, and a local HTTP server."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import http.server
import lzma
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

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
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port), in a thread; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(directory)))
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
