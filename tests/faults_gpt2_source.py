"""Fault scenarios (tests/faults_common.py): GPT-2 weights of the right shape that are not the published GPT-2 small.

Every source (a named directory, the Hugging Face cache, each weights format) loads them, and the source says, in
one line naming the file, its sha256 and the published one, that they are not the published weights
(:attr:`~llm_claims_lab.pretrained.gpt2_published.GPT2Source.unpublished`); the rows that judge a post on them skip
with that line (``tests/test_gpt2_published.py`` runs the claims on a random table of GPT-2 small's shape). A tiny
GPT-2 (random weights) is taken for GPT-2 small (``GPT2_SMALL`` patched); the published file is planted by patching
its digest to the tiny file's, since GPT-2's 548 MB are not on the machines the suite runs on."""

from __future__ import annotations

from pathlib import Path

import pytest
from faults_common import scenario
from gpt2_checkpoints import as_blob, hf_cache_snapshot, tiny_gpt2, tiny_is_gpt2_small

from llm_claims_lab.pretrained import gpt2_published
from llm_claims_lab.pretrained.embeddings import PUBLISHED_SHA256, gpt2_model, gpt2_wte
from llm_claims_lab.pretrained.gpt2_published import file_sha256


def _says_not_published(source: str, weights: Path) -> None:
    """``source`` (a GPT2Source) says, in one line, that ``weights`` is not the published file: the file, its sha256
    and the published one."""
    why = source.unpublished
    assert why is not None and "\n" not in why, why
    for part in (str(weights), file_sha256(weights), PUBLISHED_SHA256[weights.name], "not the published GPT-2 small"):
        assert part in why, f"{part} is not named in: {why}"


@scenario("GPT-2 weights", "not published", ("named directory", "Hugging Face cache", "pytorch_model.bin",
                                             "re-saved GPT2LMHeadModel", "the published file"))
def weights_not_published(tmp_path: Path, variant: str) -> None:
    """A random table of the right shape, wherever it comes from, is loaded and said to be not the published one;
    the published file (its digest planted) is said to be it, for both loaders."""
    path = tmp_path / "gpt2"
    model = tiny_gpt2("GPT2LMHeadModel" if variant == "re-saved GPT2LMHeadModel" else "GPT2Model")
    if variant == "pytorch_model.bin":
        import torch

        model.config.save_pretrained(path)
        torch.save(model.state_dict(), path / "pytorch_model.bin")
    elif variant == "Hugging Face cache":
        path = hf_cache_snapshot(tmp_path, "openai-community/gpt2")
        model.save_pretrained(path)
        for name in ("model.safetensors", "config.json"):  # as huggingface_hub keeps them: the blob's name is right
            as_blob(path / name)
    else:
        model.save_pretrained(path)
    weights = path / ("pytorch_model.bin" if variant == "pytorch_model.bin" else "model.safetensors")
    with tiny_is_gpt2_small(), pytest.MonkeyPatch.context() as mp:
        if variant == "the published file":
            mp.setitem(gpt2_published.PUBLISHED_SHA256, weights.name, file_sha256(weights))
        for load in (gpt2_wte, gpt2_model):
            loaded, source = load(cache_dir=tmp_path) if variant == "Hugging Face cache" else load(path)
            if variant == "the published file":
                assert source.unpublished is None
            else:
                _says_not_published(source, weights)
