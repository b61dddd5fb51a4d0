"""The workflow is checked like code, as GitHub's runner would: ``actionlint`` (with ``.github/actionlint.yaml``,
which declares the self-hosted runner's ``gpu`` label) running ``shellcheck`` on every ``run:`` script, as it does on
ubuntu-latest, whose image ships shellcheck (24.04: 0.9.0, pinned here; 0.11.0 made its SC2002 optional), and
``zizmor`` (GitHub Actions security lint, offline audits, its default persona) report nothing on
``.github/workflows/``, and ``shellcheck`` nothing on the ``.ci/`` scripts; each also reports a planted fault (an
action on the deprecated node20 runtime, an undeclared runner label and a useless ``cat``; an action not pinned by
commit and a token with write permissions), so a silent linter is not mistaken for a clean workflow. Where a linter
is not installed the tests skip, naming the install (``.ci/install`` with ``WITH_LINT=1``, as ``.ci/run`` does:
``.ci/lint-tools.txt``, pinned by hash), except under ``CI=true`` (GitHub's runners and ``.ci/run`` set it), where a
missing linter fails: a check that skipped in CI would pass a workflow it never read.

Left as it is, with the reason in the workflow: zizmor's auditor persona (not the default) notes that the GPU job
runs on a self-hosted runner, which is the job's purpose (forks' pull requests never run there)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ci_tools import tool

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ["harness-alone", "install", "lock", "run", "summarize"]  # .ci/'s bash scripts


def _lint(linter: str, where: Path) -> subprocess.CompletedProcess:
    if linter == "actionlint":
        tool("shellcheck")  # actionlint runs it on each run: script where it is on PATH, as on GitHub's runner
        command = [tool("actionlint"), "-no-color", "-verbose"]
    else:
        command = [tool("zizmor"), "--offline", "--no-progress", "--format", "plain", ".github/workflows"]
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
    assert 'Rule "shellcheck" was disabled' not in done.stderr  # actionlint found it and ran it


def test_the_ci_scripts_have_no_shellcheck_finding() -> None:
    done = subprocess.run([tool("shellcheck"), *SCRIPTS], cwd=ROOT / ".ci", capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]
    assert sorted(p.name for p in (ROOT / ".ci").iterdir()
                  if p.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash")) == SCRIPTS


def test_a_missing_linter_fails_under_ci(pytester: pytest.Pytester) -> None:
    """The skip above is for a person's machine; under CI=true the same absence is a failure."""
    pytester.makepyfile(test_probe=f"""
import sys
sys.path.insert(0, {str(ROOT / "tests")!r})
import ci_tools

def test_probe(monkeypatch):
    monkeypatch.setenv("PATH", "")
    ci_tools.tool("actionlint")
""")
    for ci, outcome, said in (("true", {"failed": 1}, "*actionlint is not installed, and CI must run every check*"),
                              ("", {"skipped": 1}, "*SKIPPED*actionlint is not installed: WITH_LINT=1 bash .ci/install*")):
        pytester._monkeypatch.setenv("CI", ci)
        result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:llm_claims", "-rs")
        result.assert_outcomes(**outcome)
        result.stdout.fnmatch_lines([said])


PINNED_UPLOAD = "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f  # v7.0.0"
PLANTED = {  # a linter: the faults planted in a copy of the workflow, and what the linter must say of them
    "actionlint": ([(PINNED_UPLOAD, "actions/upload-artifact@v4"), ("[self-hosted, gpu]", "[self-hosted, gpu, h200]"),
                    ('{ wc -l < "$CLAIMS_CACHE_DIR/events.jsonl"; }', 'cat "$CLAIMS_CACHE_DIR/events.jsonl" | wc -l')],
                   ['runtime "node20" is deprecated', 'label "h200" is unknown', "SC2002"]),
    "zizmor": ([(PINNED_UPLOAD, "actions/upload-artifact@v7"), ("  contents: read", "  contents: write")],
               ["unpinned-uses", "excessive-permissions"]),
}


@pytest.mark.parametrize("tool", sorted(PLANTED))
def test_each_linter_reports_its_planted_faults(tmp_path: Path, tool: str) -> None:
    """actionlint: an action on the deprecated node20 runtime, an undeclared runner label and a useless cat
    (shellcheck's SC2002, what GitHub's runner reported); zizmor: an action not pinned by commit and a token that
    can write."""
    edits, findings = PLANTED[tool]
    done = _lint(tool, _planted(tmp_path, *edits))
    assert done.returncode != 0
    assert all(finding in done.stdout for finding in findings), done.stdout[-3000:]
