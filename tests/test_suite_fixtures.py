"""What this suite adds to the harness, checked through the toy suite run with the suite's own fixtures
(``tests/toy_suite.py``): its options (``fixtures/options.py``) and torch's global generator seeded per claim
(``fixtures/runtime.py``), and this suite's scalars (numpy, torch) crossing from an xdist worker. The harness's own behaviour is tested in ``llm_claims_harness/tests``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_toy import LOCAL_REPORT

from toy_suite import CONFTEST

ROOT = Path(__file__).resolve().parents[1]


def _rows(pytester: pytest.Pytester) -> dict[str, dict]:
    data = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))
    return {r["id"]: r for r in data["claims"]}


def test_a_bad_device_is_a_usage_error(suite: pytest.Pytester) -> None:
    result = suite.runpytest("--claims-device=tpu")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-device: invalid choice: 'tpu'*"])
    assert "Traceback" not in result.stderr.str()


def test_global_rng_is_seeded_per_claim(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rng='''
import torch
from llm_claims_harness.declare import at_least, claim
@claim(id="toy.first", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=at_least(-10.0, reason="any"))
def test_first(verify):
    verify(torch.randn(1).item())

@claim(id="toy.second", source="test", kind="beyond", expect_source="arithmetic", statement="s", tolerance=at_least(-10.0, reason="any"))
def test_second(verify):
    verify(torch.randn(1).item())
''')
    pytester.runpytest()
    together = _rows(pytester)["toy.second"]["measured"]
    pytester.runpytest("-k", "toy.second")
    assert _rows(pytester)["toy.second"]["measured"] == together == _rows(pytester)["toy.first"]["measured"]


def test_numpy_and_torch_scalars_cross_to_the_controller(pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A row holding numpy or torch scalars (scipy returns numpy floats) travels from an xdist worker."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the workers import the suite's fixtures
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_scalars='''
import numpy as np, torch
from llm_claims_harness.declare import at_least, claim
@claim(id="toy.scalars", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=at_least(0.0, reason="any"))
def test_scalars(verify):
    verify(np.float64(1.5), noise=np.float64(0.1), details={"t": torch.tensor(2.0), "n": np.int64(3)})
''')
    pytester.runpytest("-n", "2").assert_outcomes(passed=1)
    row = _rows(pytester)["toy.scalars"]
    assert (row["measured"], row["noise_sd"], row["details"]) == (1.5, 0.1, {"t": 2.0, "n": 3})
