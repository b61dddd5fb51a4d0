"""GPT-2 weights when a source is broken: a damaged file in the Hugging Face cache is passed over for the next
source with a warning, downloaded again when the hub is reachable, and when every source fails the error
(:class:`EmbeddingsUnusable`: the rows error, not skip) lists one reason per source.

The weights are a tiny GPT-2 built with transformers, taken for GPT-2 small (``GPT2_SMALL`` patched); the hub is
a stand-in, no network is touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from gpt2_checkpoints import hf_cache_snapshot, tiny_gpt2, tiny_is_gpt2_small, truncate
from safetensors.torch import save_file

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab.pretrained.embeddings import EmbeddingsUnusable, GPT2SourceWarning, gpt2_wte


@pytest.fixture(autouse=True)
def _tiny_small() -> Iterator[None]:
    with tiny_is_gpt2_small():
        yield


def test_truncated_file_in_the_cache_is_passed_over_for_the_next_source(tmp_path: Path, offline: None) -> None:
    """An interrupted download in the cache of openai-community/gpt2: the alias 'gpt2' is loaded instead,
    with a warning that names the broken file and how to repair it."""
    broken = hf_cache_snapshot(tmp_path, "openai-community/gpt2")
    tiny_gpt2().save_pretrained(broken)
    truncate(broken / "model.safetensors")
    model = tiny_gpt2()
    model.save_pretrained(hf_cache_snapshot(tmp_path, "gpt2"))
    with pytest.warns(GPT2SourceWarning) as warned:
        table, source = gpt2_wte(cache_dir=tmp_path)
    assert torch.equal(table, model.wte.weight.detach())
    assert source == "Hugging Face cache: gpt2"
    message = str(warned[0].message)
    assert message.startswith("GPT-2 weights loaded from Hugging Face cache: gpt2 after: Hugging Face cache: "
                              f"openai-community/gpt2: {broken}/model.safetensors is unreadable, truncated or "
                              "corrupt (SafetensorError: ")
    assert f"delete {tmp_path / 'models--openai-community--gpt2'} and download it again" in message


def _cache_with_broken_repos(root: Path) -> tuple[Path, Path]:
    """A Hugging Face cache whose openai-community/gpt2 snapshot holds a truncated model.safetensors and
    whose gpt2 snapshot holds an integer wte; returns the two snapshot folders."""
    truncated = hf_cache_snapshot(root, "openai-community/gpt2")
    tiny_gpt2().save_pretrained(truncated)
    truncate(truncated / "model.safetensors")
    integer = hf_cache_snapshot(root, "gpt2")
    integer.mkdir(parents=True)
    save_file({"wte.weight": torch.zeros(11, 8, dtype=torch.int32)}, integer / "model.safetensors")
    return truncated, integer


def test_every_source_broken_lists_each_reason(tmp_path: Path, offline: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Both cached repos hold bad weights, and so does the hub's new download (interrupted again): the
    rows error (not skip) with one reason per source, each naming its file."""
    import huggingface_hub

    truncated, integer = _cache_with_broken_repos(tmp_path)
    forced = []

    def download(repo: str, name: str, *, cache_dir: Path, force_download: bool) -> str:
        forced.append(force_download)
        return str(truncated / name)

    monkeypatch.setattr(embeddings, "hub_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    with pytest.raises(EmbeddingsUnusable) as exc:
        gpt2_wte(cache_dir=tmp_path)
    assert forced == [True]  # the damaged cached copy is not handed back as it is
    message = str(exc.value)
    assert message.startswith("GPT-2 weights found, none usable (no --claims-gpt2-dir or CLAIMS_GPT2_DIR; ")
    unreadable = (f"{truncated}/model.safetensors is unreadable, truncated or corrupt (SafetensorError: Error "
                  "while deserializing header: incomplete metadata, file not fully covered) (a damaged download or "
                  f"another model: delete {tmp_path / 'models--openai-community--gpt2'} and download it again")
    for reason in (f"Hugging Face cache: openai-community/gpt2: {unreadable}",
                   (f"Hugging Face cache: gpt2: {integer}/model.safetensors: wte.weight is I32 of shape [11, 8], "
                    "not a [V, D] floating-point table"),
                   f"Hugging Face hub: openai-community/gpt2: {unreadable}"):
        assert reason in message
    assert "Repair them as said, or pass --claims-gpt2-dir DIR" in message


def test_damaged_cached_copy_is_downloaded_again_when_the_hub_is_reachable(tmp_path: Path, offline: None,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    truncated, _ = _cache_with_broken_repos(tmp_path)
    model = tiny_gpt2()

    def download(repo: str, name: str, *, cache_dir: Path, force_download: bool) -> str:
        assert (repo, name, cache_dir, force_download) == ("openai-community/gpt2", "model.safetensors",
                                                           tmp_path, True)
        model.save_pretrained(truncated)  # the new download replaces the damaged file
        return str(truncated / name)

    monkeypatch.setattr(embeddings, "hub_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    with pytest.warns(GPT2SourceWarning, match=r"loaded from Hugging Face hub: openai-community/gpt2 after: "
                                               r"Hugging Face cache: openai-community/gpt2: .*truncated"):
        table, source = gpt2_wte(cache_dir=tmp_path)
    assert torch.equal(table, model.wte.weight.detach()) and source == "Hugging Face hub: openai-community/gpt2"
