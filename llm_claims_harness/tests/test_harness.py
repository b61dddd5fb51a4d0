"""Self-tests of the claims harness, through pytest's own ``pytester``."""

from __future__ import annotations

import re

import json

import pytest
from harness_toy import CLAIMS, CONFTEST, LOCAL_REPORT, needs_xdist



def _results(pytester: pytest.Pytester) -> dict:
    return json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))


def _rows(pytester: pytest.Pytester) -> dict[str, dict]:
    return {r["id"]: r for r in _results(pytester)["claims"]}


def test_verdicts_and_report(suite: pytest.Pytester) -> None:
    result = suite.runpytest()
    result.assert_outcomes(passed=6, skipped=1)
    rows = _rows(suite)
    assert {rid: r["verdict"] for rid, r in rows.items()} == {
        "toy.holds": "holds", "toy.refuted_as_expected": "refuted", "toy.cases[a]": "holds",
        "toy.cases[b]": "holds", "toy.cases[c]": "refuted", "toy.skipped": "skipped"}
    assert rows["toy.skipped"]["reason"] == "weights not found: set TOY_DIR"
    assert rows["toy.cases[b]"]["tolerance"] == {"kind": "at_most", "reason": "ten", "atol": 0.0, "rtol": 0.0,
                                                 "bound": 10.0, "strict": False}
    assert (rows["toy.holds"]["post"], rows["toy.holds"]["section"]) == ("T", "s")
    md = "".join(p.read_text(encoding="utf-8") for p in sorted((suite.path / LOCAL_REPORT).glob("CLAIMS*.md")))
    assert "- the posts' claims: 3 confirmed · 1 skipped" in md
    assert "- controls: 1 behave as designed" in md
    assert "- literal readings (not counted against the posts): 1 refuted" in md  # never among the post's refutations
    page = (suite.path / LOCAL_REPORT / "CLAIMS-T.md").read_text(encoding="utf-8")
    # the three claims quote one sentence: counted once, its rows holding or skipped
    assert "- the posts' claims: 1 sentence judged: 1 confirmed — 4 rows: 3 confirmed · 1 skipped" in page
    table = {anchor: line for line in page.splitlines() for anchor in re.findall(r'<a id="(r-[^"]*)"></a>', line)}
    # the verdict first, in words; the kind named for every row but the post's own claim
    assert table["r-toy-cases-a"].startswith("| ✅ confirmed | ") and table["r-toy-cases-b"].startswith("| ✅ confirmed | ")
    assert table["r-toy-cases-c"].startswith("| ❌ refuted · *literal reading, not counted* | ")
    # the sentence, once, above the rows of every claim that quotes it
    assert [line for line in table.values() if "[Q1](#q1) “1 더하기 1은 2”" in line] == [next(iter(table.values()))]
    assert "“1 더하기 1은 2” — *one plus one is two*" in page  # the sentence in full, with its gloss
    beyond = (suite.path / LOCAL_REPORT / "CLAIMS-beyond.md").read_text(encoding="utf-8")
    assert "| ☑ refuted, as designed · *control* | " in beyond
    assert "weights not found: set TOY_DIR" in md
    result.stdout.fnmatch_lines(["*6 claim rows measured*", "*the posts' claims: 3 confirmed · 1 skipped*",
                                 "*controls: 1 behave as designed*"])
    assert _results(suite)["summary"]["control"]["refuted"] == 1
    assert rows["toy.holds"]["kind"] == "post" and rows["toy.holds"]["expect_source"] == "arithmetic"
    assert rows["toy.holds"]["quote"] == {"text": "1 더하기 1은 2", "gloss": "one plus one is two"}
    assert rows["toy.holds"]["margin_sigma"] is None
    data = _results(suite)
    env = data["runs"][data["latest_run"]]
    assert {"date", "git_commit", "git_tree", "python", "device", "seed", "seeds", "command", "suite"} <= set(env)
    assert env["suite"] == {}  # what the suite reports is the suite's (none here)
    assert not list((suite.path / LOCAL_REPORT).glob(".*.tmp"))


def test_expected_refuted_that_holds_fails_the_run(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_flip='''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.flip", source="test", kind="beyond", expect_source="arithmetic", statement="2 is 2", post_value=2,
       tolerance=exact(reason="integers"), expect="refuted")
def test_flip(verify):
    verify(2)
''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*claim 'toy.flip' was expected to be refuted but the measurement says holds*"])
    assert _rows(pytester)["toy.flip"]["as_expected"] is False


def test_expected_holds_that_is_refuted_fails_the_run(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_flip='''
from llm_claims_harness.declare import at_most, claim
@claim(id="toy.too_big", source="test", kind="beyond", expect_source="arithmetic", statement="x is small", tolerance=at_most(1.0, reason="one"))
def test_flip(verify):
    verify(2.0)
''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expected to be holds but the measurement says refuted: measured 2*≤ 1 (one)*"])


@pytest.mark.parametrize(("declaration", "message"), [
    ('tolerance=None', "claim 'toy.bad': no tolerance declared"),
    ('tolerance=exact(reason="x"), expect="maybe"', "claim 'toy.bad': expected verdict 'maybe' is unknown"),
    ('tolerance=exact(reason="")', "claim 'toy.bad': exact() needs its reason, where the number comes from: write "
                                   "exact(reason=...)"),
    ('tolerance=exact("x")', "claim 'toy.bad': exact('x') is the old argument order, refused: the reason is a keyword "
                             "in all four tolerances, write exact(reason=...)"),
    ('tolerance=close("x", atol=0.5)', "claim 'toy.bad': close('x') is the old argument order*write close(reason=...)"),
    ('tolerance=at_most(1.0, "x")', "claim 'toy.bad': at_most(1.0, 'x') is the old argument order*write "
                                    "at_most(1.0, reason=...)"),
    ('tolerance=at_least(2, "x", strict=True)', "claim 'toy.bad': at_least(2, 'x') is the old argument order*"),
    ('tolerance=at_most("0.5", reason="x")', "claim 'toy.bad': at_most(): a at_most tolerance needs a finite number "
                                             "as its bound, got '0.5'"),
    ('tolerance=close(reason="x", atol=-1.0)', "claim 'toy.bad': close(): tolerance atol and rtol must be finite*"),
    ('tolerance=close(atol=0.5, reason="x"), post_value=None', "claim 'toy.bad': |Δ| ≤ 0.5 compares with a "
                                                               "reference, and the row has none*"),
    ('tolerance=exact(reason="x"), post_value=None, cases={"a": Case(post_value=1), "b": Case()}',
     "claim 'toy.bad' case 'b': exact compares with a reference, and the row has none*"),
    ('tolerance=close(atol=0.5, reason="x"), post_value="two"', "claim 'toy.bad': |Δ| ≤ 0.5 compares numbers, and "
                                                                "the post value holds 'two'*exact(reason=...)"),
    ('tolerance=exact(reason="x"), reference=1', "claim 'toy.bad': reference says in words what the test computes*"),
    ('tolerance=exact(reason="x"), kind=None', "claim 'toy.bad': no kind declared"),
    ('tolerance=exact(reason="x"), kind="opinion"', "claim 'toy.bad': kind 'opinion' is unknown"),
    ('tolerance=exact(reason="x"), expect_source=""', "claim 'toy.bad': no expect_source declared"),
    ('tolerance=exact(reason="x"), version=2', "claim 'toy.bad': version 2 needs a version_note"),
    ('tolerance=exact(reason="x"), revised=Revision("holds", "post", "why", "calibration/x.json", "abc")',
     "claim 'toy.bad': a revision's pre-registered verdict must be one of*and differ from the declared expectation*"),
    ('tolerance=exact(reason="x"), revised=Revision("refuted", "post", "", "calibration/x.json", "")',
     "claim 'toy.bad': a revision needs why, code*"),
    ('tolerance=exact(reason="x"), quote=None', "claim 'toy.bad': a post row needs quote=Quote(text, gloss)*"),
    ('tolerance=exact(reason="x"), kind="literal", quote=Quote("", "gloss")', "claim 'toy.bad': a literal row needs quote*"),
    ('tolerance=exact(reason="x"), quote=None, cases={"a": Case(), "b": Case(quote=Q)}',
     "claim 'toy.bad' case 'a': a post row needs quote*"),
    ('tolerance=exact(reason="x"), section=None', "claim 'toy.bad': post, section go together*"),
    ('tolerance=exact(reason="x"), post=None, section=None', "claim 'toy.bad': a post row judges a post: name it*"),
])
def test_bad_declaration_is_a_collection_error(pytester: pytest.Pytester, declaration: str, message: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_bad=f'''
from llm_claims_harness.declare import Case, Quote, Revision, at_least, at_most, claim, close, exact
Q = Quote("문장", "a sentence")
@claim(**{{"id": "toy.bad", "source": "test", "kind": "post", "post": "T", "section": "s", "quote": Q,
          "expect_source": "arithmetic", "statement": "s", "post_value": 1, **dict({declaration})}})
def test_bad(verify):
    verify(1)
''')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_bad.py*", f"*ClaimDeclarationError: {message}*"])


def test_undeclared_case_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_case='''
import pytest
from llm_claims_harness.declare import Case, claim, exact
@claim(id="toy.case", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=1, tolerance=exact(reason="x"), cases={"a": Case()})
@pytest.mark.parametrize("x", [1, 2], ids=["a", "typo"])
def test_case(verify, x):
    verify(x)
''')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*claim 'toy.case': test parameter id 'typo' is not one of its declared cases*"])


def test_duplicate_id_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    body = '''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.same", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=1, tolerance=exact(reason="x"))
def test_{n}(verify):
    verify(1)
'''
    pytester.makepyfile(test_one=body.format(n="one"), test_two=body.format(n="two"))
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*claim id 'toy.same' is declared twice*"])


def test_claim_that_never_measures_is_an_error_row(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_lazy='''
from llm_claims_harness.declare import claim, exact
@claim(id="toy.lazy", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=1, tolerance=exact(reason="x"))
def test_lazy(verify):
    pass

@claim(id="toy.crash", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=1, tolerance=exact(reason="x"))
def test_crash(verify):
    raise RuntimeError("model exploded")

@claim(id="toy.fault", source="test", kind="beyond", expect_source="arithmetic", statement="s", post_value=1, tolerance=exact(reason="x"))
def test_fault(verify):  # a one-line input fault as the suite raises it: the file, both hashes, the fix
    raise RuntimeError("data/x.csv is an HTML page: it has sha256 " + "a" * 64 + ", the published file has "
                       + "b" * 64 + "; nothing was kept. " + "x" * 400 + " Fix: replace data/x.csv")
''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=3)
    rows = _rows(pytester)
    assert rows["toy.lazy"]["verdict"] == rows["toy.crash"]["verdict"] == "error"
    assert "must end by calling verify" in rows["toy.lazy"]["reason"]
    assert "model exploded" in rows["toy.crash"]["reason"]
    assert rows["toy.fault"]["reason"].endswith("Fix: replace data/x.csv")  # kept whole, not cut at 300


@pytest.mark.parametrize(("option", "message"), [
    ("--claims-seed=-3", "*--claims-seed: expected a seed from 0 to 1073741823, got -3*"),
    ("--claims-seed=abc", "*--claims-seed: expected a seed from 0 to 1073741823, got 'abc'*"),
    ("--claims-seed=99999999999999999999", "*--claims-seed: expected a seed from 0 to 1073741823, got 9999*"),
    ("--claims-seeds=0", "*--claims-seeds: expected a positive integer up to 1000, got 0*"),
    ("--claims-report-dir=test_toy.py", "*--claims-report-dir=test_toy.py: *test_toy.py exists and is not a "
                                        "directory*"),
    ("--claims-report-dir=", "*--claims-report-dir: an empty value names no path*"),  # not the default's reports/
    ("--claims-post=", "*--claims-post: an empty value names no post*"),  # not a post named ''
])
def test_bad_option_is_a_usage_error(suite: pytest.Pytester, option: str, message: str) -> None:
    result = suite.runpytest(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


@needs_xdist
def test_parallel_run_gives_the_same_rows(suite: pytest.Pytester) -> None:
    suite.runpytest().assert_outcomes(passed=6, skipped=1)
    serial = {rid: (r["verdict"], r["measured"]) for rid, r in _rows(suite).items()}
    (suite.path / LOCAL_REPORT / "results.json").unlink()
    result = suite.runpytest("-n", "2")
    result.assert_outcomes(passed=6, skipped=1)
    parallel = _rows(suite)
    assert {rid: (r["verdict"], r["measured"]) for rid, r in parallel.items()} == serial
    data = _results(suite)
    assert data["runs"][data["latest_run"]]["xdist_workers"] == 2
    assert {r["run"] for r in parallel.values()} == {data["latest_run"]}


def test_partial_run_merges_by_id(suite: pytest.Pytester) -> None:
    suite.runpytest()
    first = _rows(suite)
    pages = {p.name: p.read_text(encoding="utf-8") for p in (suite.path / LOCAL_REPORT).glob("CLAIMS-*.md")}
    suite.runpytest("-k", "toy.holds")
    data = _results(suite)
    rows = {r["id"]: r for r in data["claims"]}
    assert set(rows) == set(first)
    assert rows["toy.holds"]["run"] == data["latest_run"] != first["toy.holds"]["run"]
    assert all(rows[rid] == first[rid] for rid in rows if rid != "toy.holds")  # kept as they were, run included
    assert data["measured_this_run"] == 1 and set(data["runs"]) == {data["latest_run"], first["toy.cases[a]"]["run"]}
    # a partial run changes its own rows' lines and the counts, nothing else of a page
    changed = {name: [line for line in text.splitlines() if line not in pages[name].splitlines()]
               for name, text in ((p.name, p.read_text(encoding="utf-8"))
                                  for p in (suite.path / LOCAL_REPORT).glob("CLAIMS-*.md"))}
    assert changed["CLAIMS-beyond.md"] == []
    assert all("toy.cases" not in line for line in changed["CLAIMS-T.md"])
    assert len(changed["CLAIMS-T.md"]) <= 3, changed


def test_removed_claim_is_dropped_not_carried(suite: pytest.Pytester) -> None:
    suite.runpytest()
    suite.makepyfile(test_toy=CLAIMS.replace('id="toy.skipped"', 'id="toy.renamed"'))
    suite.runpytest("-k", "toy.holds")
    rows = _rows(suite)
    assert "toy.skipped" not in rows
    assert "toy.renamed" not in rows  # declared, but neither measured now nor before


@pytest.mark.parametrize("previous", ['{"claims": [', '{"claims": [1, 2]}', '{"claims": [{"id": "emb.x"}]}',
                                      '{"claims": 5}', "[]"])
def test_corrupt_previous_report_is_rebuilt(suite: pytest.Pytester, previous: str) -> None:
    (suite.path / LOCAL_REPORT).mkdir(parents=True)
    (suite.path / LOCAL_REPORT / "results.json").write_text(previous, encoding="utf-8")
    result = suite.runpytest()
    result.assert_outcomes(passed=6, skipped=1)
    data = _results(suite)
    assert len(data["claims"]) == 6
    assert "previous results.json was unreadable" in data["warning"]
    result.stdout.fnmatch_lines(["*previous results.json was unreadable*"])


@pytest.mark.parametrize(("args", "header"), [
    ((), "claims: seed 42 (--claims-seed, --claims-seeds), device cpu*, report */.claims/report"),
    (("--claims-seed=7", "--claims-seeds=3", "--no-claims-report"),
     "claims: seeds 7–9 (--claims-seed, --claims-seeds), device cpu*, no report"),
], ids=["default", "seeds"])
def test_the_run_plan_is_in_pytests_header(suite: pytest.Pytester, args: tuple[str, ...], header: str) -> None:
    """What reproduces the run, where pytest-randomly prints its seed (issue 33); absent from a suite without
    claims (``test_harness_standalone.py``)."""
    suite.runpytest("--co", *args).stdout.fnmatch_lines([header])
