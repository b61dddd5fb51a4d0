"""Weights that are not the published GPT-2 small never judge a post: the GPT-2 embedding claims run on a random
table of GPT-2 small's shape (``--claims-gpt2-dir``) give post A the same counts as a run without any weights, each
row that read the table skipped with a reason naming the file, its sha256, the published one and the value measured;
and :func:`claims.gpt2_common.judged_on_published` hands ``verify`` through for the published weights only.

Issue 32's reproduction: a ``model.safetensors`` holding a random ``wte`` made ``gpt2.king_man_woman``'s three post
rows refuted (top-1 ``' AES'``) and counted against post A. No network is touched (the hub probe is ``False``, the
Hugging Face cache an empty folder).
"""

from __future__ import annotations

import collections
import json
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file
# Imported before the in-process pytester runs, which drop the modules a run imported first: a second import of
# GPT2Model's modules fails on torch's operator registrations (see tests/test_gpt2_weights.py).
from transformers import GPT2Model  # noqa: F401

from claims.gpt2_common import judged_on_published
from llm_claims_lab.pretrained import embeddings
from llm_claims_lab.pretrained.embeddings import GPT2_DIR_ENV, PUBLISHED_SHA256, GPT2Source
from llm_claims_lab.pretrained.gpt2_published import file_sha256

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = "test_gpt2_embeddings.py"


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> list[dict]:
    """The GPT-2 embedding claims run in ``pytester`` offline with ``args``; the rows of its results.json."""
    from huggingface_hub import constants

    (pytester.path / "hf").mkdir(exist_ok=True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(pytester.path / "hf"))
    monkeypatch.setattr(embeddings, "hub_reachable", lambda: False)
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    # under another name: in a run of claims/ and tests/ together, this process has imported the module already
    shutil.copy(ROOT / "claims" / CLAIMS, pytester.path / CLAIMS.replace(".py", "_copy.py"))
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    report = pytester.path / f"report{len(args)}"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--claims-report-dir={report}", *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    return json.loads((report / "results.json").read_text(encoding="utf-8"))["claims"]


def _post_counts(rows: list[dict]) -> collections.Counter:
    return collections.Counter((r["post"], r["verdict"]) for r in rows if r["kind"] == "post")


def test_a_random_table_of_gpt2s_shape_leaves_the_posts_counts_unchanged(pytester: pytest.Pytester,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    weights = pytester.path / "random" / "model.safetensors"
    weights.parent.mkdir()
    save_file({"wte.weight": torch.randn(50257, 768, generator=torch.Generator().manual_seed(0))}, weights)  # 154 MB
    without = _run(pytester, monkeypatch)
    on_random = _run(pytester, monkeypatch, "--claims-gpt2-dir", str(weights.parent))
    weights_rows = [r for r in on_random if r["id"] != "gpt2.wte_shape"]  # wte_shape: GPT2Config's, not the table's
    assert len(weights_rows) >= 9 and {r["verdict"] for r in weights_rows} == {"skipped"}
    assert _post_counts(on_random) == _post_counts(without)
    for row in weights_rows:
        for part in (str(weights), file_sha256(weights), PUBLISHED_SHA256["model.safetensors"],
                     "measured on it, not judged: "):
            assert part in row["reason"], f"{row['id']}: {part} not in {row['reason']}"
    shape = next(r for r in on_random if r["id"] == "gpt2.wte_shape")
    assert shape["verdict"] == "holds" and file_sha256(weights) in str(shape["details"])


def test_verify_is_handed_through_for_the_published_weights_only(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted bug the end-to-end test would also catch, checked here cheaply: a source whose file is the
    published one (its digest planted), a plain description (an untrained control), and another file."""
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"not GPT-2")
    verify = object()
    assert judged_on_published(verify, "untrained GPT2Model(GPT2Config()), seed 0") is verify
    with pytest.raises(pytest.skip.Exception, match="not the published GPT-2 small.*not judged: 0.5"):
        judged_on_published(verify, GPT2Source("--claims-gpt2-dir x", weights))(0.5, details={})
    monkeypatch.setitem(PUBLISHED_SHA256, "model.safetensors", file_sha256(weights))
    assert judged_on_published(verify, GPT2Source("--claims-gpt2-dir x", weights)) is verify
