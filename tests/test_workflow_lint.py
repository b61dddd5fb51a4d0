"""The workflow is checked like code: ``actionlint`` (with ``.github/actionlint.yaml``, which declares the self-hosted
runner's ``gpu`` label) and ``zizmor`` (GitHub Actions security lint, offline audits, its default persona) report
nothing on ``.github/workflows/``; each also reports a planted fault (an action on the deprecated node20 runtime and
an undeclared runner label; an action not pinned by commit and a token with write permissions), so a silent linter
is not mistaken for a clean workflow. Where the linters are not installed the tests skip, naming the install
(``.ci/install`` with ``WITH_LINT=1``, as ``.ci/run`` does: ``.ci/lint-tools.txt``, pinned by hash).

Left as it is, with the reason in the workflow: zizmor's auditor persona (not the default) notes that the GPU job
runs on a self-hosted runner, which is the job's purpose (forks' pull requests never run there)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL = "WITH_LINT=1 bash .ci/install (the hash-pinned .ci/lint-tools.txt)"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed: {INSTALL}")
    return found


def _lint(tool: str, where: Path) -> subprocess.CompletedProcess:
    if tool == "actionlint":
        command = [_tool("actionlint"), "-no-color"]
    else:
        command = [_tool("zizmor"), "--offline", "--no-progress", "--format", "plain", ".github/workflows"]
    return subprocess.run(command, cwd=where, capture_output=True, text=True)


def _planted(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """A copy of the repository's .github with ``edits`` (old, new) applied to the workflow."""
    shutil.copytree(ROOT / ".github", tmp_path / ".github")
    workflow = tmp_path / ".github" / "workflows" / "claims.yml"
    text = workflow.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    workflow.write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # actionlint finds the project by its .git
    return tmp_path


@pytest.mark.parametrize("tool", ["actionlint", "zizmor"])
def test_the_workflow_has_no_finding(tool: str) -> None:
    done = _lint(tool, ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_actionlint_reports_a_deprecated_runtime_and_an_undeclared_label(tmp_path: Path) -> None:
    where = _planted(tmp_path, ("actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0",
                                "actions/upload-artifact@v4"), ("[self-hosted, gpu]", "[self-hosted, gpu, h200]"))
    done = _lint("actionlint", where)
    assert done.returncode != 0
    assert 'runtime "node20" is deprecated' in done.stdout and 'label "h200" is unknown' in done.stdout


def test_zizmor_reports_an_unpinned_action_and_a_writing_token(tmp_path: Path) -> None:
    where = _planted(tmp_path, ("actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0",
                                "actions/upload-artifact@v7"), ("  contents: read", "  contents: write"))
    done = _lint("zizmor", where)
    assert done.returncode != 0
    assert "unpinned-uses" in done.stdout and "excessive-permissions" in done.stdout
