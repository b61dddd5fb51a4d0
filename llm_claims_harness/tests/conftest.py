"""Fixtures of the harness's own tests. They need pytest and the harness only (``pip install pytest
./llm_claims_harness``; ``cd llm_claims_harness && pytest``), and run in this repository's suite as well."""

from __future__ import annotations

import pytest

from harness_toy import CLAIMS, CONFTEST


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding the toy suite (:mod:`harness_toy`): its conftest and its claims."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_toy=CLAIMS)
    return pytester
