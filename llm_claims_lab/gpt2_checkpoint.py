"""One GPT-2 checkpoint directory: checked cheaply (file names, the safetensors header, the zip directory of
``pytorch_model.bin``; :func:`check_checkpoint`) or read. :func:`wte_from_dir` reads only ``wte``: from
``model.safetensors`` with ``safe_open`` (no model is built), else through transformers from ``config.json`` +
``pytorch_model.bin`` (``weights_only``, never an arbitrary pickle); :func:`model_from_dir` builds the whole
``GPT2Model``. Which directory to read is :mod:`llm_claims_lab.embeddings`' search.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import torch

from llm_claims_lab.embedding_types import EmbeddingsUnavailable

WTE_KEYS = ("wte.weight", "transformer.wte.weight")  # GPT2Model / GPT2LMHeadModel checkpoints


def wte_from_dir(path: str | os.PathLike) -> torch.Tensor:
    """GPT-2's token-embedding table from a checkpoint directory: [V, D] float32 ([50257, 768] for
    GPT-2 small). Reads the one tensor ``wte.weight`` (or ``transformer.wte.weight``) from
    ``model.safetensors``; without that file, loads ``config.json`` + ``pytorch_model.bin`` with
    transformers (``torch.load(weights_only=True)``, never an arbitrary pickle) and takes its input
    embeddings.

    Raises:
        EmbeddingsUnavailable: ``path`` is not a directory or holds neither checkpoint; the weights
            file is unreadable, truncated or corrupt; or it holds no ``wte`` of shape [V, D] in a
            floating-point dtype. The message names the file.
    """
    return _wte(Path(path), load=True)


def check_checkpoint(path: str | os.PathLike) -> None:
    """Check the checkpoint in ``path`` as :func:`wte_from_dir` would read it, without reading tensor data:
    file names, the safetensors header (which covers a truncated file and the shape and dtype of ``wte``) or
    the zip directory of ``pytorch_model.bin``.

    Raises:
        EmbeddingsUnavailable: as :func:`wte_from_dir`, for what these reads can see.
    """
    _wte(Path(path), load=False)


def model_from_dir(path: str | os.PathLike) -> torch.nn.Module:
    """GPT-2 from a checkpoint directory as a transformers ``GPT2Model`` in eval mode, float32, with eager
    attention (the implementation that returns attention maps). Its configuration is the directory's
    ``config.json``, else ``GPT2Config()``, whose defaults are GPT-2 small's (12 layers, 12 heads, 768 wide,
    1,024 positions, 50,257 tokens), for a directory that holds only ``model.safetensors``. Every tensor the
    model needs must be in the checkpoint (none left at its random initial value).

    Raises:
        EmbeddingsUnavailable: as :func:`wte_from_dir`; or the checkpoint lacks tensors of the model or holds
            tensors of other shapes. The message names the file.
    """
    from safetensors import SafetensorError
    from transformers import GPT2Config, GPT2Model

    path = Path(path)
    weights = _weights_file(path)
    try:
        config = GPT2Config.from_pretrained(path) if (path / "config.json").is_file() else GPT2Config()
        model, info = GPT2Model.from_pretrained(path, config=config, local_files_only=True,
                                                attn_implementation="eager", output_loading_info=True)
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise EmbeddingsUnavailable(f"transformers cannot load {weights} as a GPT2Model: unreadable, truncated, "
                                    f"corrupt or of other shapes ({_first_line(exc)})") from None
    missing = sorted(info["missing_keys"])
    if missing:
        raise EmbeddingsUnavailable(f"{weights} lacks {len(missing)} tensors of GPT-2 ({', '.join(missing[:3])}"
                                    f"{', ...' if len(missing) > 3 else ''}): not a whole GPT-2 checkpoint")
    return model.float().eval()


def _wte(path: Path, *, load: bool) -> torch.Tensor | None:
    """The checkpoint in ``path`` checked and, when ``load``, its ``wte`` as [V, D] float32; without
    ``load`` only file names, the safetensors header or the zip directory of ``pytorch_model.bin`` are
    read, and ``None`` is returned.

    Raises:
        EmbeddingsUnavailable: as :func:`wte_from_dir`.
    """
    from safetensors import SafetensorError, safe_open

    weights = _weights_file(path)
    if weights.name == "model.safetensors":
        try:
            with safe_open(weights, framework="pt") as f:
                key = _wte_key(f, weights)
                return f.get_tensor(key).float() if load else None  # [V, D]
        except EmbeddingsUnavailable:
            raise
        except (SafetensorError, OSError, RuntimeError) as exc:
            raise EmbeddingsUnavailable(f"{weights} is unreadable, truncated or corrupt "
                                        f"({_first_line(exc)})") from None
    if not load:
        _check_archive(weights)
        return None
    from transformers import AutoModel

    try:
        model = AutoModel.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, RuntimeError) as exc:
        raise EmbeddingsUnavailable(f"transformers cannot load {weights} with its config.json: unreadable, "
                                    f"truncated or corrupt ({_first_line(exc)})") from None
    return model.get_input_embeddings().weight.detach().float()  # [V, D]


def _weights_file(path: Path) -> Path:
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


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
