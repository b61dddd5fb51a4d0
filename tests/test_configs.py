"""Reading model configurations: the RoPE fields of a config dict, and a hub config.json at a pinned commit.

``hub_config`` is proved on a config.json written into the Hugging Face cache layout under ``tmp_path``; the
hub is never asked (its probe is replaced, and so is the download where a reachable hub is the case).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import GPT2Config, LlamaConfig

from llm_claims_lab.pretrained import configs
from llm_claims_lab.pretrained.configs import ConfigUnavailable, hub_config, rope_settings

REVISION = "0123456789abcdef0123456789abcdef01234567"


def _cached_config(root: Path, repo: str, fields: dict) -> None:
    """``fields`` as ``repo``'s config.json at ``REVISION``, where huggingface_hub's cache under ``root`` keeps it."""
    snapshot = root / f"models--{repo.replace('/', '--')}" / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text(json.dumps(fields), encoding="utf-8")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(configs, "hub_reachable", lambda: False)


@pytest.mark.parametrize(("fields", "expected"), [
    ({"rope_theta": 10000.0, "rope_scaling": None},  # a 4.x config.json, unscaled (TinyLlama's form)
     {"theta": 10000.0, "has_scaling": True, "scaling": None, "where": "rope_theta, rope_scaling"}),
    ({"rope_theta": 1000000.0},  # no rope_scaling field at all (Qwen2.5's form)
     {"theta": 1000000.0, "has_scaling": False, "scaling": None, "where": "rope_theta"}),
    ({"rope_theta": 5e5, "rope_scaling": {"rope_type": "llama3", "factor": 32.0}},
     {"theta": 5e5, "has_scaling": True, "scaling": {"rope_type": "llama3", "factor": 32.0},
      "where": "rope_theta, rope_scaling"}),
    ({"rope_parameters": {"rope_theta": 1e4, "rope_type": "default"}},  # transformers 5, unscaled
     {"theta": 1e4, "has_scaling": True, "scaling": None, "where": "rope_parameters"}),
    ({"rope_parameters": {"rope_theta": 1e4, "rope_type": "yarn", "factor": 4.0}},
     {"theta": 1e4, "has_scaling": True, "scaling": {"rope_type": "yarn", "factor": 4.0}, "where": "rope_parameters"}),
    ({"n_positions": 1024}, {"theta": None, "has_scaling": False, "scaling": None, "where": "none"}),
], ids=["4x-null", "4x-absent", "4x-llama3", "5x-default", "5x-yarn", "gpt2"])
def test_rope_settings_of_config_dicts(fields: dict, expected: dict) -> None:
    assert rope_settings(fields) == expected


def test_rope_settings_of_configuration_classes() -> None:
    """The offline rows pass ``to_dict()``: transformers' own classes read like their config.json."""
    assert rope_settings(LlamaConfig().to_dict())["theta"] == 10000.0
    assert rope_settings(GPT2Config().to_dict())["where"] == "none"


def test_hub_config_is_read_from_the_local_cache(tmp_path: Path, offline: None) -> None:
    _cached_config(tmp_path, "org/model", {"model_type": "bert", "max_position_embeddings": 512})
    fields, source = hub_config("org/model", REVISION, cache_dir=tmp_path, fields={"max_position_embeddings": int})
    assert fields == {"model_type": "bert", "max_position_embeddings": 512}
    assert source == "Hugging Face cache: org/model@0123456"


def test_hub_config_offline_and_not_cached_says_how_to_get_it(tmp_path: Path, offline: None) -> None:
    with pytest.raises(ConfigUnavailable, match=rf"org/model@0123456 config\.json is not in the local Hugging Face "
                                                rf"cache and the hub is not reachable\..*`hf download org/model "
                                                rf"config\.json --revision {REVISION}`"):
        hub_config("org/model", REVISION, cache_dir=tmp_path)


def test_hub_config_downloads_when_the_hub_is_reachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    real = huggingface_hub.hf_hub_download

    def download(repo: str, name: str, *, revision: str, cache_dir: Path, local_files_only: bool = False) -> str:
        if not local_files_only:  # what the hub would send, put where the cache keeps it
            _cached_config(cache_dir, repo, {"model_type": "gpt2", "n_positions": 1024})
        return real(repo, name, revision=revision, cache_dir=cache_dir, local_files_only=True)

    monkeypatch.setattr(configs, "hub_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    assert hub_config("org/model", REVISION, cache_dir=tmp_path) == ({"model_type": "gpt2", "n_positions": 1024},
                                                                      "Hugging Face hub: org/model@0123456")


def test_a_failed_download_names_the_repo_and_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    def download(repo: str, name: str, *, revision: str, cache_dir: Path, local_files_only: bool = False) -> str:
        raise OSError("Revision Not Found for url\nmore lines")

    monkeypatch.setattr(configs, "hub_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    with pytest.raises(ConfigUnavailable, match=r"^Hugging Face hub: org/model@0123456: OSError: Revision Not Found "
                                                r"for url$"):
        hub_config("org/model", REVISION, cache_dir=tmp_path)


def test_causal_lm_position_schemes_know_the_families_papers_describe() -> None:
    """Llama, Mistral and Qwen2 rotate q and k (Touvron et al. 2023; Jiang et al. 2023; Qwen 2024), GPT-2 and OPT
    add a learned table (Radford et al. 2019; Zhang et al. 2022), BLOOM and MPT use ALiBi (neither)."""
    from llm_claims_lab.pretrained.configs import causal_lm_position_schemes

    schemes = causal_lm_position_schemes()
    assert {t: schemes[t] for t in ("llama", "mistral", "qwen2", "gpt2", "opt", "bloom", "mpt")} == {
        "llama": "rope", "mistral": "rope", "qwen2": "rope", "gpt2": "additive", "opt": "additive",
        "bloom": "neither", "mpt": "neither"}
