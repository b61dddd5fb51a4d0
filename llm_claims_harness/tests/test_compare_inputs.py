"""``python -m llm_claims_harness.compare`` on two real runs of a toy suite whose evaluation file had one score
changed between them (issue 42): the comparison names the input whose sha256 changed with the rows that read it, and
lists the value that moved within its scale, never "No change"."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from harness_toy import CONFTEST, LOCAL_REPORT

FIXTURE = '''
import pytest
from llm_claims_harness.provenance import record_inputs, sha256_of

@pytest.fixture(scope="session")
def scores(request):
    path = request.config.rootpath / "scores.csv"
    record_inputs(request, {"scores.csv": sha256_of(path)})
    return [float(line.split(",")[1]) for line in path.read_text().splitlines()]
'''

CLAIM = '''
from llm_claims_harness.declare import at_least, claim

@claim(id="toy.mean_score", source="test", kind="beyond", expect_source="arithmetic", statement="the mean score is >= 1",
       tolerance=at_least(1.0, reason="a toy bound"))
def test_mean_score(verify, scores):
    verify(sum(scores) / len(scores))

@claim(id="toy.reads_nothing", source="test", kind="beyond", expect_source="arithmetic", statement="2 is 2",
       tolerance=at_least(2.0, reason="a toy bound"))
def test_reads_nothing(verify):
    verify(2.0)
'''


def test_a_changed_evaluation_file_is_named_with_the_rows_that_read_it(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST + FIXTURE)
    pytester.makepyfile(test_scores=CLAIM)
    scores = pytester.path / "scores.csv"
    scores.write_text("a,7.0\nb,8.0\nc,9.0\n")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    before = pytester.path / "before.json"
    shutil.copy(pytester.path / LOCAL_REPORT / "results.json", before)
    scores.write_text("a,7.0\nb,8.5\nc,9.0\n")  # one score changed
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    done = subprocess.run([sys.executable, "-m", "llm_claims_harness.compare", str(before),
                           str(pytester.path / LOCAL_REPORT / "results.json")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "No change" not in out
    inputs = out.split("### Inputs that changed")[1].split("###")[0]
    assert "`scores.csv`: `sha256:" in inputs and "read by 1 row: `toy.mean_score`" in inputs
    assert "toy.reads_nothing" not in inputs
    moved = out.split("### Values moved within their scale (largest first)")[1]
    assert "`toy.mean_score` | holds | 8 → 8.167 (+2%)" in moved


@pytest.mark.parametrize("registered", ["the same file", "another file"])
def test_a_row_that_read_another_copy_than_the_registered_one_says_so_on_its_page(pytester: pytest.Pytester,
                                                                                 registered: str) -> None:
    """``record_inputs(..., registered=)``: an input whose digest is not the registered one is named so in the row's
    inputs, marked ⚑ in its verdict (the mark explained above the table) and named in its details (issue 42)."""
    import hashlib
    import json

    scores = pytester.path / "scores.csv"
    scores.write_text("a,7.0\nb,8.0\nc,9.0\n")
    digest = "sha256:" + hashlib.sha256(scores.read_bytes()).hexdigest()
    expected = digest if registered == "the same file" else "sha256:" + "0" * 64
    pytester.makeconftest(CONFTEST + FIXTURE.replace('{"scores.csv": sha256_of(path)}',
                                                     f'{{"scores.csv": sha256_of(path)}}, registered={{"scores.csv": "{expected}"}}'))
    pytester.makepyfile(test_scores=CLAIM)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    page = (pytester.path / LOCAL_REPORT / "CLAIMS-beyond.md").read_text(encoding="utf-8")
    line = next(line for line in page.splitlines() if 'id="r-toy-mean-score"' in line)
    if registered == "the same file":
        assert list(rows["toy.mean_score"]["inputs"]) == ["scores.csv"] and "⚑" not in page
    else:
        assert list(rows["toy.mean_score"]["inputs"]) == ["scores.csv (not the registered file)"]
        assert line.startswith("| ✅ holds ⚑ ")
        assert "⚑ the row read another copy of an input than the registered one" in page
        assert "`toy.mean_score` ⚑ read another copy than the registered one of: scores.csv" in page
        assert "⚑" not in next(line for line in page.splitlines() if 'id="r-toy-reads-nothing"' in line)
