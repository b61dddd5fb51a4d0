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
