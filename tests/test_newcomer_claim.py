"""The docs' "Adding a claim" example (``docs/adding-a-claim.md``, where README's *Add a claim or a post* link goes), run
exactly as written: one new file in claims/, no harness edit."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import child_pytest
import pytest

from harness_toy import LOCAL_REPORT

ROOT = Path(__file__).resolve().parents[1]


def readme_example() -> str:
    """The first Python block of the docs' "Adding a claim" section."""
    text = (ROOT / "docs" / "adding-a-claim.md").read_text(encoding="utf-8")
    section = text.split("## Adding a claim", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "docs/adding-a-claim.md's 'Adding a claim' section has no Python example"
    return match.group(1)


def test_readme_claim_runs_as_written(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))  # the suite's own conftest
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "test_row_norm.py").write_text(readme_example(), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    pytester._monkeypatch.setattr(os, "environ", env)  # the subprocess imports `fixtures` from the checkout
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", "claims")
    result.assert_outcomes(passed=2)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert set(rows) == {"pe.sin.row_norm[d6]", "pe.sin.row_norm[d512]"}
    assert {r["verdict"] for r in rows.values()} == {"holds"}
    assert rows["pe.sin.row_norm[d512]"]["measured"] == pytest.approx(16.0, rel=1e-5)
    assert rows["pe.sin.row_norm[d6]"]["post"] == "B"
    assert "pe.sin.row_norm[d6]" in (pytester.path / LOCAL_REPORT / "CLAIMS-beyond.md").read_text(encoding="utf-8")
