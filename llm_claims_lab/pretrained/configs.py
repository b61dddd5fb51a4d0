"""Model configurations as plain dicts: the RoPE settings one carries, and a hub ``config.json`` at a pinned commit.

Post B, '요즘 모델은 RoPE를 더 많이 쓴다' ('rope_theta, rope_scaling'); '학습되는 position embedding과의 차이'
('512 토큰으로 제한'). A configuration class's ``to_dict()`` and the hub's ``config.json`` are read by the same
:func:`rope_settings`, so the offline rows (transformers' defaults) and the hub rows measure the same fields.
"""

from __future__ import annotations

import importlib.resources
import os
import re
from collections.abc import Mapping
from typing import Any

from llm_claims_lab.core.hub import hub_reachable
from llm_claims_lab.core.json_files import InputFileError, read_json
from llm_claims_lab.core.errors import InputFault


class ConfigUnavailable(InputFault, RuntimeError):
    """A hub ``config.json`` could not be had; the message says what was tried and how to get it."""


def rope_settings(fields: Mapping[str, Any]) -> dict:
    """The RoPE settings a configuration carries, from its fields (``config.to_dict()``, or a ``config.json``).

    transformers ≥ 5 folds ``rope_theta`` and ``rope_scaling`` into one ``rope_parameters`` dict (``rope_type``
    names the scaling, ``default`` for none); 4.x and the hub's older ``config.json`` files keep the two fields
    (``rope_scaling`` null when unscaled). Keys: theta (None if absent), scaling (the scaling fields, None if
    absent or unscaled), has_scaling (a scaling setting exists, even null), where (the fields read).
    """
    params = fields.get("rope_parameters")
    if isinstance(params, dict):
        scaling = {k: v for k, v in params.items() if k != "rope_theta"}
        return {"theta": params.get("rope_theta"), "has_scaling": "rope_type" in params,
                "scaling": scaling if scaling.get("rope_type", "default") != "default" else None,
                "where": "rope_parameters"}
    found = [name for name in ("rope_theta", "rope_scaling") if name in fields]
    return {"theta": fields.get("rope_theta"), "has_scaling": "rope_scaling" in fields,
            "scaling": fields.get("rope_scaling"), "where": ", ".join(found) or "none"}


def hub_config(repo: str, revision: str, *, cache_dir: str | os.PathLike | None = None,
               fields: Mapping[str, type | tuple[type, ...]] | None = None) -> tuple[dict, str]:
    """``config.json`` of hub repo ``repo`` at commit ``revision``, as a dict, and where it came from: the local
    Hugging Face cache (``cache_dir``, default huggingface_hub's) without network, else the hub when
    :func:`llm_claims_lab.core.hub.hub_reachable` (the file is then kept in the cache). It must be a JSON object with
    a ``model_type`` (every configuration transformers writes has one) and each of ``fields`` (the fields the
    caller reads, with their JSON types).

    Raises:
        ConfigUnavailable: not in the cache and the hub unreachable, or the download failed (e.g. an unknown
            revision); or the file is not such an object (cut short, an error page, another file); the message
            names the repo and commit, or the file, and how to get a good copy.
    """
    from huggingface_hub import hf_hub_download

    where = f"{repo}@{revision[:7]}"
    try:
        path = hf_hub_download(repo, "config.json", revision=revision, cache_dir=cache_dir, local_files_only=True)
        source = f"Hugging Face cache: {where}"
    except OSError:
        if not hub_reachable():
            raise ConfigUnavailable(
                f"{where} config.json is not in the local Hugging Face cache and the hub is not reachable. To run "
                f"the hub rows, run them once with network, or on a machine with network `hf download {repo} "
                f"config.json --revision {revision}` and copy its Hugging Face cache (HF_HUB_CACHE) here") from None
        try:
            path = hf_hub_download(repo, "config.json", revision=revision, cache_dir=cache_dir)
        except OSError as exc:
            raise ConfigUnavailable(f"Hugging Face hub: {where}: {type(exc).__name__}: "
                                    f"{(str(exc).strip().splitlines() or [''])[0]}") from None
        source = f"Hugging Face hub: {where}"
    try:
        config = read_json(path, required={"model_type": str, **(fields or {})},
                           fix=f"download it again: `hf download {repo} config.json --revision {revision} "
                               "--force-download`")
    except InputFileError as exc:
        raise ConfigUnavailable(f"{where} config.json: {exc}") from None
    return config, source


_ROTARY = re.compile(r"apply_rotary_pos_emb|class \w*Rotary\w*\(")  # RoPE: q and k rotated by position
# an additive absolute table: a learned nn.Embedding over positions, or a sinusoidal / learned positional module
_ADDITIVE = re.compile(r"nn\.Embedding\(\s*(?:config\.)?(?:max_position_embeddings|n_positions|max_positions|max_seq_len)"
                       r"|SinusoidalPositionalEmbedding|LearnedPositionalEmbedding")


def causal_lm_position_schemes() -> dict[str, str]:
    """How each causal-LM family transformers ships encodes position, read from its modeling source (no model is
    built): ``{model_type: scheme}``, scheme ``"rope"`` (rotates q and k), ``"additive"`` (adds a position table to
    the input), ``"both"``, ``"neither"`` (ALiBi, relative biases, recurrent models) or ``"unknown"`` (no modeling
    file in the wheel). The families are transformers' ``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`` (encoders with a
    causal-LM head included). Post B, '요즘 모델은 RoPE를 더 많이 쓴다'."""
    from transformers.models.auto.configuration_auto import model_type_to_module_name
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    models = importlib.resources.files("transformers") / "models"
    schemes = {}
    for model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        folder = models / model_type_to_module_name(model_type)
        sources = sorted(f for f in folder.iterdir() if f.name.startswith("modeling_") and f.name.endswith(".py")) \
            if folder.is_dir() else []
        if not sources:
            schemes[model_type] = "unknown"
            continue
        text = "\n".join(source.read_text(encoding="utf-8") for source in sources)
        rope, additive = bool(_ROTARY.search(text)), bool(_ADDITIVE.search(text))
        schemes[model_type] = ("both" if rope else "additive") if additive else "rope" if rope else "neither"
    return schemes
