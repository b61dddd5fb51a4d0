"""``pytest --claims-post B`` selects exactly post B's rows of the suite (issue 42 item 5): its collection is the node
ids of the committed report's rows whose post is B, nothing else (no rows beyond the posts, no harness tests)."""

from __future__ import annotations

import json
from pathlib import Path

import child_pytest
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("post", ["A", "B"])
def test_one_post_collects_exactly_its_rows(post: str, tmp_path: Path) -> None:
    rows = json.loads((ROOT / "reports" / "results.json").read_text(encoding="utf-8"))["claims"]
    expected = sorted(r["nodeid"] for r in rows if r["post"] == post)
    result = child_pytest.run(["--claims-post", post, "--co", "-q", "-p", "no:cacheprovider",
                               f"--claims-report-dir={tmp_path}"], cwd=ROOT, timeout=600)
    assert result.ret == 0, "\n".join(result.outlines[-20:] + result.errlines[-20:])
    collected = sorted(line for line in result.outlines if "::" in line and not line.startswith(" "))
    assert len(expected) > 20 and collected == expected
