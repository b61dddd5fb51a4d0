"""Fixtures shared by several modules in tests/ (the suite's own fixtures live in fixtures/)."""

from __future__ import annotations

import pytest

from llm_claims_lab import data, embeddings
from llm_claims_lab.embeddings import GPT2_DIR_ENV


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No explicit directory from the environment, and a hub that is never asked."""
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    monkeypatch.setattr(embeddings, "hub_reachable", lambda: False)


@pytest.fixture
def no_named_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests name their data explicitly; the caller's variables (CI sets some) must not leak in.

    The data modules use it for every test (``pytestmark = pytest.mark.usefixtures("no_named_data")``)."""
    for var in (data.DATA_DIR_ENV, data.MIRROR_ENV, "CLAIMS_CORPUS", "CLAIMS_KO_EVAL_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
