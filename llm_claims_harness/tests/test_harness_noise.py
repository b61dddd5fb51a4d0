"""Self-tests of the claims harness on stochastic rows: noise, inconclusive verdicts, shares decided by their
intervals (through ``pytester``)."""

from __future__ import annotations

import json

import pytest

from harness_toy import LOCAL_REPORT

CONFTEST = ""  # the harness comes by its entry point; these rows need no post


def _rows(pytester: pytest.Pytester) -> dict[str, dict]:
    results = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    return {r["id"]: r for r in results["claims"]}


NOISY = '''
from llm_claims_harness.declare import at_least, claim, close
@claim(id="toy.noisy", source="test", kind="beyond", expect_source="a paper", statement="x is at least 1",
       tolerance=at_least(1.0, reason="an effect size"))
def test_noisy(verify):
    verify(1.2, noise={noise})

@claim(id="toy.close", source="test", kind="beyond", expect_source="the post", statement="x is 10 ± 1",
       post_value=10.0, tolerance=close(reason="an effect size", atol=1.0))
def test_close(verify):
    verify(10.5, noise=0.1)
'''


def test_value_within_noise_of_its_bound_is_inconclusive(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_noisy=NOISY.format(noise=0.1))  # 2 SD above the bound: 95 % interval straddles it
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, warnings=1)
    rows = _rows(pytester)
    assert rows["toy.noisy"]["verdict"] == "inconclusive" and rows["toy.noisy"]["as_expected"] is None
    assert rows["toy.noisy"]["margin_sigma"] == pytest.approx(2.0)
    assert "lies +2.00 SD from a bound of ≥ 1" in rows["toy.noisy"]["reason"]  # explained in its row
    assert rows["toy.close"]["verdict"] == "holds" and rows["toy.close"]["margin_sigma"] == pytest.approx(5.0)
    result.stdout.fnmatch_lines(["*ClaimInconclusiveWarning*toy.noisy*inconclusive*",
                                 "*inconclusive (value within its noise of a bound*toy.noisy (+2.0 SD)*"])
    assert "Inconclusive (within 3 noise SDs of a bound, or a bound inside the interval): [toy.noisy (+2.0 SD)](" in \
        (pytester.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")


def test_strict_option_fails_an_inconclusive_claim(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_noisy=NOISY.format(noise=0.1))
    result = pytester.runpytest("--claims-strict")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*claim 'toy.noisy' is inconclusive*[--claims-strict]*"])


def test_value_clear_of_its_bound_is_decided(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_noisy=NOISY.format(noise=0.05))  # 4 SD above the bound
    pytester.runpytest("--claims-strict").assert_outcomes(passed=2)
    assert _rows(pytester)["toy.noisy"]["verdict"] == "holds"


@pytest.mark.parametrize("noise", ["0.0", "-1.0", "'big'"])
def test_bad_noise_is_an_error_row(pytester: pytest.Pytester, noise: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_noisy=NOISY.format(noise=noise))
    pytester.runpytest().assert_outcomes(passed=1, failed=1)
    row = _rows(pytester)["toy.noisy"]
    assert row["verdict"] == "error" and "noise must be a positive standard deviation" in row["reason"]


SHARE = '''
import pytest
from llm_claims_harness.declare import at_most, claim, close
@claim(id="toy.share", source="test", kind="beyond", expect_source="the post", statement="a share ≤ 10 %",
       tolerance=at_most(0.10, reason="an effect size"))
def test_share(verify):
    if not verify.decides(*{extreme}):
        pytest.skip("too few items to decide")
    verify({value}, interval={interval})

@claim(id="toy.close_share", source="test", kind="beyond", expect_source="the post", statement="x is 1/2",
       post_value=0.5, tolerance=close(reason="an effect size", atol=0.1))
def test_close_share(verify):
    verify(0.5, interval=(0.4, 0.6))
'''


@pytest.mark.parametrize(("value", "interval", "verdict"), [
    (0.02, (0.0, 0.08), "holds"),  # wholly below the bound
    (0.02, (0.0, 0.30), "inconclusive"),  # the bound inside the interval: a symmetric ± 3 SD would have decided it
    (0.50, (0.20, 0.80), "refuted"),
])
def test_a_share_is_decided_by_its_interval(pytester: pytest.Pytester, value, interval, verdict) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_share=SHARE.format(extreme=(0.0, 0.05), value=value, interval=interval))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1 if verdict != "refuted" else 0, failed=2 if verdict == "refuted" else 1)
    rows = _rows(pytester)
    row = rows["toy.share"]
    assert (row["verdict"], row["interval"], row["noise_sd"], row["margin_sigma"]) == (verdict, list(interval),
                                                                                      None, None)
    if verdict == "inconclusive":
        assert "contains a bound of ≤ 0.1" in row["reason"]
        assert f"[toy.share (interval [{interval[0]:g}, {interval[1]:g}])](" in \
            (pytester.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")
    # an interval is judged against a bound only
    assert rows["toy.close_share"]["verdict"] == "error" and "not a 'close' tolerance" in rows["toy.close_share"]["reason"]


@pytest.mark.parametrize(("interval", "message"), [
    ("(0.05, 0.08)", "does not contain the measured value"),  # an interval centred elsewhere (Agresti–Coull's)
    ("(0.08, 0.0)", "low end above its high end"),
    ("0.05", "must be (low, high)"),
])
def test_a_bad_interval_is_an_error_row(pytester: pytest.Pytester, interval: str, message: str) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_share=SHARE.format(extreme=(0.0, 0.05), value=0.0, interval=interval))
    pytester.runpytest().assert_outcomes(failed=2)
    row = _rows(pytester)["toy.share"]
    assert row["verdict"] == "error" and message in row["reason"]


def test_too_few_items_to_decide_skip_before_measuring(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_share=SHARE.format(extreme=(0.0, 0.5), value=0.0, interval=(0.0, 0.5)))
    pytester.runpytest().assert_outcomes(skipped=1, failed=1)
    assert _rows(pytester)["toy.share"]["verdict"] == "skipped"
