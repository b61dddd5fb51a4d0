"""One GPT-2 checkpoint directory: checked cheaply (file names, the safetensors header, config.json, the zip
directory of ``pytorch_model.bin``; :func:`check_checkpoint`) or read. :func:`wte_from_dir` reads only ``wte``:
from ``model.safetensors`` with ``safe_open`` (no model is built), else through transformers from ``config.json``
+ ``pytorch_model.bin`` (``weights_only``, never an arbitrary pickle); :func:`model_from_dir` builds the whole
``GPT2Model``. Each reads any GPT-2 unless given ``expect``, the dimensions it must have (``GPT2Config`` fields:
``vocab_size``, ``n_embd``, ``n_layer``, ``n_head``, ``n_positions``), compared wherever the header, config.json
or the loaded tensors show them. Which directory to read is :mod:`llm_claims_lab.pretrained.embeddings`' search.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import torch

from llm_claims_lab.pretrained.embedding_types import EmbeddingsUnavailable
from llm_claims_lab.inputs import wrong_format
from llm_claims_lab.pretrained.gpt2_published import file_sha256

WTE_KEYS = ("wte.weight", "transformer.wte.weight")  # GPT2Model / GPT2LMHeadModel checkpoints
Dims = Mapping[str, int]  # GPT2Config field -> value, e.g. {"n_layer": 12}
ALIASES = {"hidden_size": "n_embd", "max_position_embeddings": "n_positions", "num_attention_heads": "n_head",
           "num_hidden_layers": "n_layer"}  # GPT2Config.attribute_map: other names config.json may use


def wte_from_dir(path: str | os.PathLike, expect: Dims | None = None) -> torch.Tensor:
    """GPT-2's token-embedding table from a checkpoint directory: [V, D] float32 ([50257, 768] for GPT-2
    small), finite. Reads the one tensor ``wte.weight`` (or ``transformer.wte.weight``) from ``model.safetensors``;
    without that file, loads ``config.json`` + ``pytorch_model.bin`` with transformers
    (``torch.load(weights_only=True)``) and takes its input embeddings. A ``config.json`` beside the weights must
    be GPT-2's; a file the Hugging Face cache keeps as a blob named by its sha256 must have that sha256.

    Raises:
        EmbeddingsUnavailable: ``path`` is not a directory or holds neither checkpoint; the weights
            file or config.json is empty, unreadable, truncated, corrupt or another kind of file (a Git LFS
            pointer, an HTML page); it holds no ``wte`` of shape [V, D] in a floating-point dtype, or one
            with non-finite values; or a dimension differs from ``expect``. The message names the file.
    """
    return _wte(Path(path), load=True, expect=expect)


def check_checkpoint(path: str | os.PathLike, expect: Dims | None = None) -> None:
    """Check the checkpoint in ``path`` as :func:`wte_from_dir` would read it, without reading tensor data:
    file names, the safetensors header (which covers a truncated file, the shape and dtype of ``wte``, the
    number of layers and positions), config.json (as JSON: transformers is not imported), or the zip directory
    of ``pytorch_model.bin``.

    Raises:
        EmbeddingsUnavailable: as :func:`wte_from_dir`, for what these reads can see.
    """
    _wte(Path(path), load=False, expect=expect)


def model_from_dir(path: str | os.PathLike, expect: Dims | None = None) -> torch.nn.Module:
    """GPT-2 from a checkpoint directory as a transformers ``GPT2Model`` in eval mode, float32, with eager
    attention (the implementation that returns attention maps). Its configuration is the directory's
    ``config.json``, else ``GPT2Config()``, whose defaults are GPT-2 small's (12 layers, 12 heads, 768 wide,
    1,024 positions, 50,257 tokens), for a directory that holds only ``model.safetensors``. Every tensor the
    model needs must be in the checkpoint (none left at its random initial value), and every value finite.

    Raises:
        EmbeddingsUnavailable: as :func:`wte_from_dir`; or the checkpoint lacks tensors of the model, holds
            tensors of other shapes than its configuration's, or non-finite values. The message names the file.
    """
    path = Path(path)
    _wte(path, load=False, expect=expect)
    weights = weights_file(path)
    model, info = _load_model(path, weights, _config(path, None))
    missing = sorted(info["missing_keys"])
    if missing:
        raise EmbeddingsUnavailable(f"{weights} lacks {len(missing)} tensors of GPT-2 ({', '.join(missing[:3])}"
                                    f"{', ...' if len(missing) > 3 else ''}): not a whole GPT-2 checkpoint")
    _check_finite(weights, model.named_parameters())
    return model.float().eval()


def _wte(path: Path, *, load: bool, expect: Dims | None) -> torch.Tensor | None:
    """The checkpoint in ``path`` checked and, when ``load``, its ``wte`` as [V, D] float32; without ``load``
    only what :func:`check_checkpoint` reads is read, and ``None`` is returned.

    Raises:
        EmbeddingsUnavailable: as :func:`wte_from_dir`.
    """
    from safetensors import SafetensorError, safe_open

    weights = weights_file(path)
    _sniff(weights)
    if weights.name == "model.safetensors":
        try:
            with safe_open(weights, framework="pt") as f:
                key = _wte_key(f, weights)
                _check_dims(weights, _header_dims(f, key), expect)
                _config(path, expect)
                if not load:
                    return None
                _check_blob(weights)
                table = f.get_tensor(key).float()  # [V, D]
        except EmbeddingsUnavailable:
            raise
        except (SafetensorError, OSError, RuntimeError) as exc:
            raise EmbeddingsUnavailable(f"{weights} is unreadable, truncated or corrupt "
                                        f"({_first_line(exc)})") from None
    else:
        config = _config(path, expect)
        if not load:
            _check_archive(weights)
            return None
        table = _load_model(path, weights, config)[0].get_input_embeddings().weight.detach().float()  # [V, D]
        _check_dims(weights, dict(zip(("vocab_size", "n_embd"), table.shape)), expect)
    _check_finite(weights, [("wte", table)])
    return table


def _load_model(path: Path, weights: Path, fields: dict[str, Any] | None) -> tuple[torch.nn.Module, dict]:
    """``GPT2Model.from_pretrained`` of ``path`` with the ``GPT2Config`` of ``fields`` (config.json's; ``None``:
    the defaults, GPT-2 small's), after :func:`_check_blob`: the model and transformers' loading info (its
    ``missing_keys``).

    Raises:
        EmbeddingsUnavailable: GPT2Config refuses ``fields``, or transformers cannot load ``weights``
            (unreadable, truncated, corrupt, a pickle that ``weights_only`` refuses, or of other shapes than the
            config's); the message names the file.
    """
    from transformers import GPT2Config, GPT2Model

    try:
        config = GPT2Config.from_dict(fields or {})
    except Exception as exc:  # whatever transformers raises for values it refuses
        raise EmbeddingsUnavailable(f"{path / 'config.json'}: GPT2Config refuses it ({_first_line(exc)})") from None
    _check_blob(weights)
    try:
        return GPT2Model.from_pretrained(path, config=config, local_files_only=True, attn_implementation="eager",
                                         output_loading_info=True)
    except Exception as exc:  # a damaged file fails anywhere in transformers or torch.load, with any type
        raise EmbeddingsUnavailable(f"transformers cannot load {weights} as a GPT2Model: unreadable, truncated, "
                                    f"corrupt or of other shapes ({_first_line(exc)})") from None


def weights_file(path: Path) -> Path:
    """``path/model.safetensors``, else ``path/pytorch_model.bin`` when ``config.json`` is beside it.

    Raises:
        EmbeddingsUnavailable: ``path`` does not exist, is not a directory, or holds neither.
    """
    if not path.is_dir():
        raise EmbeddingsUnavailable(f"{path} {'is not a directory' if path.exists() else 'does not exist'}")
    if (path / "model.safetensors").is_file():
        return path / "model.safetensors"
    if (path / "pytorch_model.bin").is_file() and (path / "config.json").is_file():
        return path / "pytorch_model.bin"
    found = sorted(p.name for p in path.iterdir())
    listed = ", ".join(found[:6]) + (f" and {len(found) - 6} more" if len(found) > 6 else "")
    raise EmbeddingsUnavailable(f"{path} has no model.safetensors, nor config.json + pytorch_model.bin "
                                f"(found: {listed or 'nothing'})")


def _check_archive(weights: Path) -> None:
    """A ``pytorch_model.bin`` in torch's zip format has its archive directory (at the end, so a truncated
    file has none); one in the older pickle format is checked only when loaded.

    Raises:
        EmbeddingsUnavailable: the zip archive cannot be opened.
    """
    with weights.open("rb") as fh:
        if fh.read(4) != b"PK\x03\x04":
            return
    try:
        zipfile.ZipFile(weights).close()
    except (zipfile.BadZipFile, OSError) as exc:
        raise EmbeddingsUnavailable(f"{weights} is truncated or corrupt ({_first_line(exc)})") from None


def _wte_key(f, weights: Path) -> str:
    """The name of the ``wte`` tensor in an open ``model.safetensors``, whose header says it is a
    [V, D] table of a floating-point dtype (no tensor data is read).

    Raises:
        EmbeddingsUnavailable: no ``wte`` tensor, or one of another rank, empty, or not floating-point.
    """
    names = set(f.keys())
    key = next((k for k in WTE_KEYS if k in names), None)
    if key is None:
        raise EmbeddingsUnavailable(f"{weights} holds no {' or '.join(WTE_KEYS)} tensor: not a GPT-2 checkpoint")
    header = f.get_slice(key)
    shape, dtype = header.get_shape(), header.get_dtype()  # e.g. [50257, 768], "F32"
    if len(shape) != 2 or 0 in shape or not dtype.startswith(("F", "BF")):
        raise EmbeddingsUnavailable(f"{weights}: {key} is {dtype} of shape {list(shape)}, not a [V, D] "
                                    "floating-point table")
    return key


def _header_dims(f, key: str) -> dict[str, int]:
    """The dimensions an open ``model.safetensors`` header shows: ``vocab_size`` and ``n_embd`` from ``wte``
    (``key``), ``n_positions`` from ``wpe`` and ``n_layer`` from the blocks ``h.<i>.``, where present."""
    names, prefix = set(f.keys()), key.removesuffix("wte.weight")
    dims = dict(zip(("vocab_size", "n_embd"), f.get_slice(key).get_shape()))
    if f"{prefix}wpe.weight" in names:
        dims["n_positions"] = f.get_slice(f"{prefix}wpe.weight").get_shape()[0]
    layers = {m[1] for m in (re.match(rf"{re.escape(prefix)}h\.(\d+)\.", n) for n in names) if m}
    if layers:
        dims["n_layer"] = len(layers)
    return dims


def _check_dims(where: Path, found: Mapping[str, object], expect: Dims | None) -> None:
    """Raises EmbeddingsUnavailable naming ``where`` when a dimension in ``found`` differs from ``expect`` in value
    or in type (config.json's ``"768"`` or ``768.0`` is not the integer 768); each wrong value is shown with
    ``repr``, so ``n_embd = '768'`` reads as the string it is."""
    wrong = [f"{k} = {found[k]!r} (GPT-2 small: {v!r})" for k, v in (expect or {}).items()
             if k in found and (type(found[k]) is not type(v) or found[k] != v)]
    if wrong:
        raise EmbeddingsUnavailable(f"{where} is not GPT-2 small: {', '.join(wrong)}")


def _config(path: Path, expect: Dims | None) -> dict[str, Any] | None:
    """The fields of ``path/config.json``, compared with ``expect`` (one it lacks is not: GPT2Config's defaults
    are GPT-2 small's); ``None`` when there is none.

    Raises:
        EmbeddingsUnavailable: it is unreadable, not UTF-8 JSON of an object, another kind of file, another
            model type's config, or a dimension differs from ``expect``. The message names the file.
    """
    file = path / "config.json"
    if not file.is_file():
        return None
    _sniff(file)
    try:
        fields = json.loads(file.read_bytes().decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbeddingsUnavailable(f"{file} is not readable UTF-8 JSON ({_first_line(exc)})") from None
    if not isinstance(fields, dict) or fields.get("model_type", "gpt2") != "gpt2":
        what = f"model_type {fields['model_type']!r}" if isinstance(fields, dict) else f"a JSON {type(fields).__name__}"
        raise EmbeddingsUnavailable(f"{file} is not a GPT-2 config: it holds {what}")
    _check_dims(file, {ALIASES.get(k, k): v for k, v in fields.items()}, expect)
    return fields


def _check_finite(weights: Path, tensors: Iterable[tuple[str, torch.Tensor]]) -> None:
    """Raises EmbeddingsUnavailable naming ``weights`` and the first tensor that holds a NaN or an inf."""
    for name, tensor in tensors:
        finite = torch.isfinite(tensor)
        if not finite.all():
            raise EmbeddingsUnavailable(f"{weights}: {name} holds {(~finite).sum().item()} non-finite values "
                                        "(NaN or inf): damaged weights")


def _sniff(file: Path) -> None:
    """Raises EmbeddingsUnavailable when ``file`` is empty, a Git LFS pointer or an HTML page (a download that
    saved an error page), by its first bytes."""
    with file.open("rb") as fh:
        head = fh.read(200)
    if not head:
        raise EmbeddingsUnavailable(f"{file} is empty (0 bytes): an interrupted download or copy")
    other = wrong_format(head)
    if other:
        raise EmbeddingsUnavailable(f"{file} is {other}")


def _check_blob(weights: Path) -> None:
    """Raises EmbeddingsUnavailable when ``weights`` is a link to the Hugging Face cache's
    ``blobs/<sha256 of its content>`` (a Git LFS file, as GPT-2's weights are) and its content has another
    sha256 (reads the whole file once: :func:`~llm_claims_lab.pretrained.gpt2_published.file_sha256`)."""
    blob = weights.resolve()
    if blob.parent.name != "blobs" or not re.fullmatch(r"[0-9a-f]{64}", blob.name):
        return
    digest = file_sha256(blob)
    if digest != blob.name:
        raise EmbeddingsUnavailable(f"{weights} has sha256 {digest}, not the {blob.name} of its blob in the "
                                    "Hugging Face cache: damaged since it was downloaded")


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
