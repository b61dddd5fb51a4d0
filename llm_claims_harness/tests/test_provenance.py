"""Every row names the inputs it read (issue 33): a fixture records its inputs' digests once
(``record_inputs``), and each row whose test uses that fixture, directly, through another one or by asking for it as it runs
(``request.getfixturevalue``), carries them in
``results.json``; a row that uses none carries none, also when it is the first test and an autouse fixture asked for
the others' fixtures as it set up; a malformed digest is an error row naming the fixture."""

from __future__ import annotations

import hashlib
import json

import pytest
from harness_toy import LOCAL_REPORT, needs_xdist

CONFTEST = '''
import pytest
from llm_claims_harness.provenance import record_inputs, sha256_of

@pytest.fixture(scope="session")
def eval_set(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "eval.csv"
    path.write_text("q,a\\n1+1,2\\n", encoding="utf-8")
    record_inputs(request, {"eval.csv": sha256_of(path)})
    return path

@pytest.fixture(scope="session")
def model(request, eval_set):  # uses the evaluation set: a row using the model read both
    record_inputs(request, {"toy weights": "fingerprint:" + "ab" * 8})
    return 2

@pytest.fixture(scope="session", autouse=True)
def builds(request):  # builds the model before any test, as the suite's build splitter does: no row's input
    request.getfixturevalue("model")

@pytest.fixture
def broken(request):
    record_inputs(request, {"x": "md5:123"})
'''

ROWS = '''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.none", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=2,
       tolerance=exact(reason="integers"))
def test_none(verify):
    verify(2)

@claim(id="toy.model", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=2,
       tolerance=exact(reason="integers"))
def test_model(verify, model):
    verify(model)

@claim(id="toy.eval", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=2,
       tolerance=exact(reason="integers"))
def test_eval(verify, eval_set):
    verify(2)

@claim(id="toy.asked", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=2,
       tolerance=exact(reason="integers"))
def test_asked(verify, request):  # asks for the model as it runs, not in its signature
    verify(request.getfixturevalue("model"))

@claim(id="toy.broken", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=2,
       tolerance=exact(reason="integers"))
def test_broken(verify, broken):
    verify(2)
'''

EVAL = "sha256:" + hashlib.sha256(b"q,a\n1+1,2\n").hexdigest()


@pytest.mark.parametrize("workers", [[], pytest.param(["-n", "2"], marks=needs_xdist)], ids=["serial", "xdist"])
def test_each_row_names_the_inputs_its_fixtures_read(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rows=ROWS)
    pytester.runpytest(*workers).assert_outcomes(passed=4, errors=1)
    rows = {r["id"]: r for r in json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text())["claims"]}
    assert rows["toy.model"]["inputs"] == {"eval.csv": EVAL, "toy weights": "fingerprint:" + "ab" * 8}
    assert rows["toy.asked"]["inputs"] == rows["toy.model"]["inputs"]
    assert rows["toy.eval"]["inputs"] == {"eval.csv": EVAL}
    assert rows["toy.none"]["inputs"] == {}
    assert rows["toy.broken"]["verdict"] == "error"
    assert "fixture 'broken': inputs are {name: 'sha256:<64 hex>' or 'fingerprint:<hex>'}, got {'x': 'md5:123'}" \
        in rows["toy.broken"]["reason"]
    schema = (pytester.path / LOCAL_REPORT / "SCHEMA.md").read_text(encoding="utf-8")
    assert "`inputs`" in schema and "named by the fixtures that provide them" in schema
