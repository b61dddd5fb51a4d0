"""The ``fast`` skip-gram kernels keep post A's sums: the tables' gradients through
:class:`llm_claims_lab.word2vec.skipgram.Lookup` are bit for bit those through ``nn.Embedding`` (each row summed in index order
from zero by its dense backward), on one CPU thread as training runs, with rows drawn many times over as the
negatives are."""

from __future__ import annotations

import pytest
import torch

from llm_claims_lab.word2vec import skipgram
from llm_claims_lab.core.devices import one_thread


def _grads(model: skipgram.SkipGram, batch) -> list[torch.Tensor]:
    model.zero_grad(set_to_none=True)
    model.loss(*batch).backward()
    return [model.w_in.weight.grad.clone(), model.w_out.weight.grad.clone()]


@pytest.mark.parametrize("vocab_size", [10_000, 50])  # post A's V; and a V where every row is drawn ~200 times
def test_lookup_gradients_are_nn_embeddings_bit_for_bit(vocab_size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = skipgram.SkipGramConfig(seed=0)
    torch.manual_seed(0)
    model = skipgram.SkipGram(vocab_size, cfg.dim, kernels="fast")
    ids = torch.randint(0, vocab_size, (50_000,))
    with one_thread():
        batch = skipgram.sample_batch(ids, vocab_size, cfg, torch.device("cpu"))
        lookup = _grads(model, batch)
        monkeypatch.setattr(skipgram.Lookup, "apply", lambda weight, index: torch.nn.functional.embedding(index, weight))
        embedding = _grads(model, batch)
    assert all(torch.equal(a, b) for a, b in zip(lookup, embedding))


def test_snapshots_are_the_table_at_their_step_and_change_nothing() -> None:
    """The steps sweep's tables (``SkipGramConfig.snapshots``) are copies taken during the run: the final weights are
    bit for bit those of a run that keeps none, and a snapshot is the final table of a run that stops there."""
    ids = torch.randint(0, 500, (5_000,), generator=torch.Generator().manual_seed(0))
    run = lambda **kw: skipgram.train(ids, 500, skipgram.SkipGramConfig(seed=1, **kw), torch.device("cpu"))  # noqa: E731
    model, _, kept = run(steps=30, snapshots=(10, 20))
    plain, _, none = run(steps=30, snapshots=())
    short, _, _ = run(steps=20, snapshots=())
    assert sorted(kept) == [10, 20] and none == {}
    assert torch.equal(model.w_in.weight, plain.w_in.weight)
    assert torch.equal(kept[20], short.w_in.weight)
