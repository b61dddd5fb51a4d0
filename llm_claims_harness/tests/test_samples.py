"""The per-item log of rows that score items (``verify(..., samples=[Sample(...)])`` -> ``samples.jsonl``, issue 33):
one line per item with fixed fields (item id, input hash, target, prediction, score), valid against the JSON Schema
``SCHEMA.md`` prints; lines of rows a partial run did not measure are kept, a damaged line or one of an earlier layout
is dropped and said; a log that is not a list of ``Sample`` or repeats an item id is an error row."""

from __future__ import annotations

import hashlib
import importlib.util
import json

import pytest
from harness_toy import CONFTEST, LOCAL_REPORT

from llm_claims_harness.samples import LINE_SCHEMA, Sample, conforms, input_hash

CLAIMS = '''
from llm_claims_harness.declare import claim, exact
from llm_claims_harness.samples import Sample

@claim(id="toy.scored", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=exact(reason="x"), reference="r")
def test_scored(verify):
    verify(2, reference=2, samples=[Sample("q1", input="1 + 1", target=2, prediction=2, score=True),
                                    Sample("q2", input=["일", "일"], target=2, prediction=2.0, score=1.0,
                                           extra={"cosines": [0.5, None]})])

@claim(id="toy.other", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=exact(reason="x"), reference="r")
def test_other(verify):
    verify(1, reference=1, samples=[Sample("o", input={"q": "other"}, target=None, prediction=None, score=None)])

@claim(id="toy.unscored", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=exact(reason="x"), reference="r")
def test_unscored(verify):
    verify(1, reference=1)
'''


def _lines(pytester: pytest.Pytester) -> list[dict]:
    text = (pytester.path / LOCAL_REPORT / "samples.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _runs(pytester: pytest.Pytester) -> dict[str, str]:
    doc = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    return {r["id"]: r["run"] for r in doc["claims"]}


def _hash(canonical: str) -> str:
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=CLAIMS)
    return pytester


def test_samples_are_written_one_line_per_item_with_fixed_fields(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    assert _lines(suite) == [  # sorted by row id, then item id
        {"id": "toy.other", "item_id": "o", "input_hash": _hash('{"q":"other"}'), "input": {"q": "other"},
         "target": None, "prediction": None, "score": None, "extra": {}},
        {"id": "toy.scored", "item_id": "q1", "input_hash": _hash('"1 + 1"'), "input": "1 + 1",
         "target": 2, "prediction": 2, "score": True, "extra": {}},
        {"id": "toy.scored", "item_id": "q2", "input_hash": _hash('["일","일"]'), "input": ["일", "일"],
         "target": 2, "prediction": 2.0, "score": 1.0, "extra": {"cosines": [0.5, None]}}]
    assert all(conforms(line) for line in _lines(suite))
    assert "일" in (suite.path / LOCAL_REPORT / "samples.jsonl").read_text(encoding="utf-8")  # not \\u-escaped
    assert "[samples.jsonl](samples.jsonl)" in (suite.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")


@pytest.mark.skipif(importlib.util.find_spec("jsonschema") is None,
                    reason="jsonschema is not installed (the harness does not need it; the project's tests do)")
def test_every_line_validates_against_the_schema_schema_md_prints(suite: pytest.Pytester) -> None:
    import jsonschema

    suite.runpytest().assert_outcomes(passed=3)
    schema_md = (suite.path / LOCAL_REPORT / "SCHEMA.md").read_text(encoding="utf-8")
    printed = json.loads(schema_md.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert printed == LINE_SCHEMA
    jsonschema.Draft202012Validator.check_schema(printed)
    lines = _lines(suite)
    for line in lines:
        jsonschema.validate(line, printed, cls=jsonschema.Draft202012Validator)
    for broken in ({k: v for k, v in lines[0].items() if k != "input_hash"}, lines[0] | {"score": "high"},
                   lines[0] | {"input_hash": "md5:1"}, lines[0] | {"item": {}}):
        with pytest.raises(jsonschema.ValidationError):  # the schema fails what it should
            jsonschema.validate(broken, printed, cls=jsonschema.Draft202012Validator)
        assert not conforms(broken)


def test_two_runs_of_the_same_selection_write_the_same_bytes(suite: pytest.Pytester) -> None:
    """A diff of samples.jsonl shows changed scores only: no run id per line, no order of finishing (issue 42)."""
    suite.runpytest("-p", "no:randomly").assert_outcomes(passed=3)
    first = (suite.path / LOCAL_REPORT / "samples.jsonl").read_bytes()
    suite.makepyfile(reversed_order="def pytest_collection_modifyitems(items):\n    items.reverse()\n")
    suite.syspathinsert()
    suite.runpytest("-p", "no:randomly", "-p", "reversed_order").assert_outcomes(passed=3)  # another order
    assert (suite.path / LOCAL_REPORT / "samples.jsonl").read_bytes() == first
    assert len(set(_runs(suite).values())) == 1  # the second run measured every row again


def test_a_line_of_the_layout_that_named_its_run_is_kept_while_its_row_is(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    path = suite.path / LOCAL_REPORT / "samples.jsonl"
    run = _runs(suite)["toy.scored"]
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps({"id": x["id"], "run": run if x["item_id"] != "q2" else "another run",
                                        **{k: v for k, v in x.items() if k != "id"}}) + "\n"
                            for x in reversed(lines)), encoding="utf-8")
    suite.runpytest("-k", "unscored").assert_outcomes(passed=1)
    assert [(x["id"], x["item_id"]) for x in _lines(suite)] == [("toy.other", "o"), ("toy.scored", "q1")]
    assert all("run" not in x for x in _lines(suite))


def test_an_empty_log_is_not_linked(suite: pytest.Pytester) -> None:
    """A report none of whose rows logs items says so instead of linking an empty ``samples.jsonl`` (issue 33)."""
    suite.runpytest("-k", "unscored").assert_outcomes(passed=1)
    index = (suite.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")
    assert (suite.path / LOCAL_REPORT / "samples.jsonl").read_text(encoding="utf-8") == ""
    assert "samples.jsonl" not in index and "no row of this report logs scored items" in index


def test_partial_run_keeps_the_lines_of_rows_it_did_not_measure(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    first = _runs(suite)["toy.scored"]
    suite.runpytest("-k", "other").assert_outcomes(passed=1)
    second = _runs(suite)["toy.other"]
    assert second != first and _runs(suite)["toy.scored"] == first
    lines = _lines(suite)
    assert [x["item_id"] for x in lines if x["id"] == "toy.scored"] == ["q1", "q2"]
    assert [x["item_id"] for x in lines if x["id"] == "toy.other"] == ["o"]
    # a re-measured row that logs nothing any more leaves no line behind
    suite.makepyfile(test_toy=CLAIMS.replace(
        'samples=[Sample("o", input={"q": "other"}, target=None, prediction=None, score=None)]', "samples=None"))
    suite.runpytest("-k", "other").assert_outcomes(passed=1)
    assert {x["id"] for x in _lines(suite)} == {"toy.scored"}


def test_a_damaged_line_or_one_of_an_earlier_layout_loses_that_line_only_and_says_so(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=3)
    path = suite.path / LOCAL_REPORT / "samples.jsonl"
    lines = {json.loads(line)["item_id"]: line for line in path.read_text(encoding="utf-8").splitlines()}
    old = json.loads(lines["o"])
    earlier = json.dumps({"id": old["id"], "run": _runs(suite)["toy.other"], "item": {"q": "other"}})  # before issue 33
    path.write_text("\n".join([lines["q1"], lines["q2"][:25], earlier]) + "\n", encoding="utf-8")  # q2 cut short
    suite.runpytest("-k", "unscored").assert_outcomes(passed=1)
    assert [x["item_id"] for x in _lines(suite)] == ["q1"]
    warning = json.loads((suite.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["warning"]
    assert warning == ("1 lines of the previous samples.jsonl did not parse and were dropped; 1 lines of the previous "
                       "samples.jsonl were in an earlier layout and were dropped (measure their rows again to log "
                       "their items)")


@pytest.mark.parametrize("samples, message", [
    ('"bad"', "samples must be a list of Sample(item_id=, input=, target=, prediction=, score=)"),
    ('[{"q": 1}]', "samples must be a list of Sample(item_id=, input=, target=, prediction=, score=)"),
    ('[Sample("a", 1, 1, 1, None), Sample("a", 2, 2, 2, None)]', "samples repeat item_id 'a'"),
])
def test_samples_not_a_list_of_samples_is_an_error_row(pytester: pytest.Pytester, samples: str, message: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_bad=f'''
from llm_claims_harness.declare import claim, exact
from llm_claims_harness.samples import Sample
@claim(id="toy.bad", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=exact(reason="x"), reference="r")
def test_bad(verify):
    verify(1, reference=1, samples={samples})
''')
    pytester.runpytest().assert_outcomes(failed=1)
    row = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"][0]
    assert row["verdict"] == "error" and message in row["reason"]
    assert _lines(pytester) == []


@pytest.mark.parametrize("kwargs, message", [
    ({"item_id": ""}, "item_id is non-empty text"), ({"item_id": 3}, "item_id is non-empty text"),
    ({"score": "high"}, "score is a finite number, a bool or None"),
    ({"score": float("nan")}, "score is a finite number, a bool or None"),
    ({"extra": ["x"]}, "extra is a mapping with text keys"),
])
def test_a_malformed_sample_is_refused_naming_the_field(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        Sample(**({"item_id": "i", "input": 1, "target": 1, "prediction": 1, "score": None} | kwargs))


def test_the_input_hash_is_of_the_canonical_json() -> None:
    assert input_hash({"b": 1, "a": [1.0, "일"]}) == input_hash({"a": [1.0, "일"], "b": 1}) == _hash(
        '{"a":[1.0,"일"],"b":1}')
    assert input_hash(["king", "man"]) != input_hash(["man", "king"])
