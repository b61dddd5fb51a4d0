"""The two atomic writers, the harness's (``llm_claims_harness.atomic``, for the report) and the library's
(``llm_claims_lab.core.atomic``, for the cache, data and figures), kept apart so that neither distribution imports
the other (issue 33), held to one contract: a reader sees the old file or the new one, a failed write leaves the old
file and no temporary file, the file gets open()'s mode, and a killed write's temporary file is found."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from llm_claims_harness import atomic as harness_atomic
from llm_claims_lab.core import atomic as library_atomic

WRITERS = pytest.mark.parametrize("writer", [harness_atomic, library_atomic], ids=["harness", "library"])


@WRITERS
def test_a_write_replaces_the_file_whole_with_opens_mode(writer, tmp_path: Path) -> None:
    target = tmp_path / "sub" / "results.json"
    writer.write_text_atomic(target, "old")
    writer.write_text_atomic(target, "새 내용")
    assert target.read_text(encoding="utf-8") == "새 내용"
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert writer.temporary_files(target.parent) == []


@WRITERS
def test_a_failed_write_keeps_the_old_file_and_leaves_nothing(writer, tmp_path: Path) -> None:
    target = tmp_path / "entry.safetensors"
    writer.write_text_atomic(target, "old")

    def half(tmp: str) -> None:
        Path(tmp).write_text("half", encoding="utf-8")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        writer.write_atomic(target, half)
    assert target.read_text(encoding="utf-8") == "old" and writer.temporary_files(tmp_path) == []


@WRITERS
def test_a_killed_writes_temporary_file_is_found_by_name(writer, tmp_path: Path) -> None:
    (tmp_path / ".entry.safetensors.k3j5h2a9.tmp").write_bytes(b"cut")
    (tmp_path / ".other.json.a8d7f6s5.tmp").write_bytes(b"cut")
    assert [p.name for p in writer.temporary_files(tmp_path, "*.safetensors")] == [".entry.safetensors.k3j5h2a9.tmp"]
    assert len(writer.temporary_files(tmp_path)) == 2
