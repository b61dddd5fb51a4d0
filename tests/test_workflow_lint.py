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


PINNED_UPLOAD = "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0"
PLANTED = {  # a linter: the faults planted in a copy of the workflow, and what the linter must say of them
    "actionlint": ([(PINNED_UPLOAD, "actions/upload-artifact@v4"), ("[self-hosted, gpu]", "[self-hosted, gpu, h200]")],
                   ['runtime "node20" is deprecated', 'label "h200" is unknown']),
    "zizmor": ([(PINNED_UPLOAD, "actions/upload-artifact@v7"), ("  contents: read", "  contents: write")],
               ["unpinned-uses", "excessive-permissions"]),
}


@pytest.mark.parametrize("tool", sorted(PLANTED))
def test_each_linter_reports_its_planted_faults(tmp_path: Path, tool: str) -> None:
    """actionlint: an action on the deprecated node20 runtime and an undeclared runner label; zizmor: an action not
    pinned by commit and a token that can write."""
    edits, findings = PLANTED[tool]
    done = _lint(tool, _planted(tmp_path, *edits))
    assert done.returncode != 0
    assert all(finding in done.stdout for finding in findings), done.stdout[-3000:]
