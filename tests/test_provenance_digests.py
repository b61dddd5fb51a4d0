"""The digests the suite's rows name their inputs by (``fixtures/provenance.py``; issue 33): a trained table's
digest is the one its cache file is named by, a table's sha256 is of its bytes, a fingerprint changes with what the
weights depend on."""

from __future__ import annotations

import hashlib

import torch

from fixtures.provenance import table_sha256, weights_fingerprint
from llm_claims_lab.core import cache


def _one(x):  # stand-ins for the training code a fingerprint hashes the source of
    return x


def _two(x):
    return -x


def test_a_weights_digest_names_its_cache_file() -> None:
    entry = cache.Entry("toy", cache.fingerprint({"steps": 3}, code=[_one], device="cpu"), build=lambda progress: {})
    assert entry.key == f"toy-{cache.digest(entry.fingerprint)[:16]}"


def test_a_fingerprint_moves_with_what_the_weights_depend_on() -> None:
    base = weights_fingerprint({"steps": 3}, [_one], "cpu")
    assert base.startswith("fingerprint:") and len(base) == len("fingerprint:") + 64
    assert base == weights_fingerprint({"steps": 3}, [_one], "cpu")
    assert len({base, weights_fingerprint({"steps": 4}, [_one], "cpu"), weights_fingerprint({"steps": 3}, [_two], "cpu")}) == 3


def test_a_table_is_named_by_its_bytes() -> None:
    table = torch.arange(6, dtype=torch.float32).reshape(2, 3)  # [V, D]
    assert table_sha256(table) == "sha256:" + hashlib.sha256(table.numpy().tobytes()).hexdigest()
    assert table_sha256(table.T.contiguous().T) == table_sha256(table)  # C order whatever the strides
    assert table_sha256(table.double()) != table_sha256(table)


def test_a_tokenizer_is_named_by_its_vocabulary_and_merges() -> None:
    """The same BPE model hashes the same however it was loaded; one merge less, another hash."""
    from tokenizers import Tokenizer, models

    from fixtures.provenance import tokenizer_sha256

    def tok(merges):
        bpe = models.BPE(vocab={"a": 0, "b": 1, "ab": 2}, merges=merges)
        return type("T", (), {"backend_tokenizer": Tokenizer(bpe)})()

    assert tokenizer_sha256(tok([("a", "b")])) == tokenizer_sha256(tok([("a", "b")]))
    assert tokenizer_sha256(tok([("a", "b")])) != tokenizer_sha256(tok([]))


def test_each_calibration_names_the_file_it_read(tmp_path) -> None:
    """The fixtures name a calibration by the file its loader read (``.path``, ``["path"]``), never by a second
    lookup that could pick another: the CPU file where no device file is committed, the device's where it is."""
    import shutil

    from fixtures import CALIBRATION_DIR
    from llm_claims_lab.extrapolation import Calibration, relative_probes_for

    for name in ("extrapolation.json", "relative_bias.json"):
        shutil.copy(CALIBRATION_DIR / name, tmp_path / name)
    assert Calibration.for_device("cuda", tmp_path).path == tmp_path / "extrapolation.json"
    assert relative_probes_for("cuda", tmp_path)["path"] == tmp_path / "relative_bias.json"
    shutil.copy(CALIBRATION_DIR / "extrapolation.json", tmp_path / "extrapolation-cuda.json")
    assert Calibration.for_device("cuda", tmp_path).path == tmp_path / "extrapolation-cuda.json"
