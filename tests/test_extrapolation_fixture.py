"""The extrapolation fixture is post A's protocol: same initial weights and batches, the same function
(the fast path against the post's step-by-step computation), and positional schemes that match their
references (ALiBi's slopes, T5's buckets)."""

from __future__ import annotations

import json
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from llm_claims_lab.extrapolation import model as extrapolation  # patched below: ExtrapolationModel's module
from llm_claims_lab.core.cache import WeightCache
from llm_claims_lab.extrapolation import (
    EVAL_SEQUENCES,
    HELD_SCHEMES,
    FixedRandomPositions,
    SCHEMES,
    ExtrapolationConfig,
    ExtrapolationLab,
    ExtrapolationModel,
    data_generator,
    eval_batch,
    eval_generator,
    evaluate,
    initial_model,
    train,
)
from llm_claims_lab.positional import (
    ALiBiBias,
    ClippedRelativePositionBias,
    T5RelativePositionBias,
    alibi_slopes,
    t5_bucket,
)


def posts_initial_weights(scheme: str, seed: int) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Post A's module, initialised as its script does, and its first batch (CPU stream)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        weights = {"tok_emb.weight": nn.Embedding(50, 128).weight.detach()}
        if scheme == "learned":
            weights["pos.weight"] = torch.randn(40, 128) * 0.02
        elif scheme == "relative":
            weights["pos.bias"] = torch.zeros(79)
        for name in ("Wq", "Wk", "Wv"):
            weights[f"attn.{name}"] = torch.randn(128, 128) / 128**0.5
        out = nn.Linear(128, 50)
        weights["out.weight"], weights["out.bias"] = out.weight.detach(), out.bias.detach()
        return weights, torch.randint(0, 50, (256, 20))


@pytest.mark.parametrize("scheme", ["learned", "sinusoidal", "relative"])
def test_initial_weights_and_first_batch_are_the_posts(scheme):
    expected, batch = posts_initial_weights(scheme, 42)
    model, cpu_state = initial_model(ExtrapolationConfig(scheme=scheme), 42)
    state = model.state_dict()
    assert state.keys() == expected.keys()
    assert all(torch.equal(state[k], expected[k]) for k in expected)
    first = torch.randint(0, 50, (256, 20), generator=data_generator(42, cpu_state, torch.device("cpu")))
    assert torch.equal(first, batch)


def _perturbed(scheme: str) -> ExtrapolationModel:
    model, _ = initial_model(ExtrapolationConfig(scheme=scheme), 0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith("pos."):
                p.copy_(torch.randn(p.shape, generator=torch.Generator().manual_seed(1)))  # not all zero
    return model


@pytest.mark.parametrize("scheme", SCHEMES)
def test_fast_path_is_the_posts_function(scheme):
    """Logits and gradients of the fast path equal the post's computation to float64 rounding."""
    model = _perturbed(scheme).double()
    for L in model.config.eval_lens:
        x = torch.randint(0, 50, (4, L), generator=torch.Generator().manual_seed(L))
        fast, plain = model(x), model.forward_plain(x)
        assert (fast - plain).abs().max() < 1e-12
        grads = []
        for logits in (fast, plain):
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, 50), x[:, 1:].reshape(-1))
            grads.append(torch.autograd.grad(loss, list(model.parameters()), retain_graph=True))
        assert max((a - b).abs().max().item() for a, b in zip(*grads)) < 1e-12


def test_training_follows_the_posts_loop():
    """Five steps of :func:`train` and of the post's loop (step-by-step forward, global generator) from
    seed 42 end at the same weights, up to float32 rounding."""
    config = ExtrapolationConfig(scheme="learned", steps=5)
    fast = train(config, 42, torch.device("cpu"))
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(42)
        model = ExtrapolationModel(config)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for _ in range(5):
            x = torch.randint(0, 50, (256, 20))
            loss = F.cross_entropy(model.forward_plain(x)[:, :-1].reshape(-1, 50), x[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    for name, p in model.state_dict().items():
        assert (fast[f"step5/{name}"] - p).abs().max() < 1e-5, name



def test_mixed_lengths_draw_each_steps_length_from_the_same_stream(monkeypatch):
    """A ``*_mixed`` run draws one length per step, uniform on 2 … max_len, before the step's tokens; a fixed-length
    run draws no length (its stream, and so its weights, are those of the protocol)."""
    seen = []
    loss = ExtrapolationModel.loss
    monkeypatch.setattr(ExtrapolationModel, "loss", lambda self, x: seen.append(x.shape) or loss(self, x))
    train(ExtrapolationConfig(scheme="sinusoidal_mixed", steps=40), 1, torch.device("cpu"))
    lengths = {T for _, T in seen}
    assert all(B == 256 for B, _ in seen) and lengths <= set(range(2, 41)) and len(lengths) > 10
    g = torch.Generator().manual_seed(0)
    _, cpu_state = initial_model(ExtrapolationConfig(scheme="sinusoidal_mixed"), 1)
    g.set_state(cpu_state)
    assert seen[0][1] == int(torch.randint(2, 41, (1,), generator=g))  # the first draw after the initial weights
    seen.clear()
    train(ExtrapolationConfig(scheme="sinusoidal", steps=3), 1, torch.device("cpu"))
    assert [T for _, T in seen] == [20, 20, 20]

def test_held_out_positions_are_left_out_of_the_loss_only():
    """A ``*_spread`` or ``*_held`` run's loss is the post's cross-entropy over every query position but its held-out
    ones (their rows still enter the attention); any other run's is the post's over all positions."""
    x = torch.randint(0, 50, (8, 20), generator=torch.Generator().manual_seed(0))
    assert {ExtrapolationConfig(scheme=s).held_out for s in HELD_SCHEMES} == {(3, 7, 11, 15), (7, 8, 9, 10, 11)}
    for scheme in HELD_SCHEMES:
        kept = [i for i in range(19) if i not in ExtrapolationConfig(scheme=scheme).held_out]
        model, _ = initial_model(ExtrapolationConfig(scheme=scheme), 0)
        logits = model.forward_plain(x)  # [B, T, V]
        expected = F.cross_entropy(logits[:, kept].reshape(-1, 50), x[:, [i + 1 for i in kept]].reshape(-1))
        assert torch.allclose(model.loss(x), expected, rtol=0, atol=1e-6)
        assert not torch.allclose(model.loss(x), F.cross_entropy(logits[:, :-1].reshape(-1, 50), x[:, 1:].reshape(-1)))
    model, _ = initial_model(ExtrapolationConfig(scheme="sinusoidal"), 0)
    assert torch.equal(model.loss(x), F.cross_entropy(model(x)[:, :-1].reshape(-1, 50), x[:, 1:].reshape(-1)))
    with pytest.raises(ValueError, match="need train_len ≥ 13"):
        ExtrapolationConfig(scheme="sinusoidal_held", train_len=10)


def test_fixed_random_coordinates_are_the_learned_tables_draw_at_the_sinusoids_scale():
    """``random_fixed``: post A's learned-table draw (same place in the stream) scaled from 0.02 to the sinusoid's
    RMS per coordinate, a buffer no optimizer reaches; the evaluation reads its held-out and trained positions."""
    learned, _ = initial_model(ExtrapolationConfig(scheme="learned"), 7)
    fixed, _ = initial_model(ExtrapolationConfig(scheme="random_fixed_held"), 7)
    assert torch.allclose(fixed.pos(40), learned.pos.weight.detach() / 0.02 * FixedRandomPositions.STD, rtol=1e-6,
                          atol=0)
    assert not [n for n, _ in fixed.pos.named_parameters()] and "pos.table" in fixed.state_dict()
    sin = extrapolation.SinusoidalPositionalEncoding(128)(40)
    assert abs(fixed.pos(40).pow(2).mean().sqrt() / sin.pow(2).mean().sqrt() - 1) < 0.05  # the same scale
    with pytest.raises(ValueError, match="past its end"):
        fixed.pos(41)


def test_alibi_slopes_match_the_reference():
    assert alibi_slopes(8) == [2.0 ** -k for k in range(1, 9)]
    assert alibi_slopes(1) == [2.0 ** -8]
    assert alibi_slopes(6) == [2.0 ** -k for k in (2, 4, 6, 8, 1, 3)]  # 4 heads', then every other of 8
    twelve = [2.0**-k for k in range(1, 9)] + [2.0 ** -(k / 2) for k in (1, 3, 5, 7)]  # 8 heads', then 16's
    assert all(math.isclose(a, b, rel_tol=1e-15) for a, b in zip(alibi_slopes(12), twelve, strict=True))
    with pytest.raises(ValueError):
        alibi_slopes(0)
    bias = ALiBiBias(2, direction=None)(3, 3)  # [H, T, T]: slopes 2^−4, 2^−8, symmetric
    assert bias.shape == (2, 3, 3)
    assert bias[0, 0, 2].item() == -2 * 2.0**-4 and bias[1, 2, 0].item() == -2 * 2.0**-8
    right = ALiBiBias(2)(3, 3)  # mirrored causal mask: query i sees keys j ≥ i
    assert right[0, 0].tolist() == [0.0, -2.0**-4, -2 * 2.0**-4]
    assert right[1, 2].tolist() == [float("-inf"), float("-inf"), 0.0]
    with pytest.raises(ValueError, match="direction"):
        ALiBiBias(2, direction="left")


def test_t5_buckets_match_hugging_face():
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    offsets = torch.arange(-300, 301)
    assert torch.equal(t5_bucket(offsets), t5.T5Attention._relative_position_bucket(offsets))
    assert T5RelativePositionBias(3)(5, 7).shape == (3, 5, 7)


def test_clipped_bias_shares_the_edge_scalar():
    bias = ClippedRelativePositionBias(2)
    with torch.no_grad():
        bias.bias.copy_(torch.arange(5.0))  # offsets −2 … 2
    assert bias(1, 6)[0, 0].tolist() == [2.0, 3.0, 4.0, 4.0, 4.0, 4.0]
    assert bias(6, 1)[0, :, 0].tolist() == [2.0, 1.0, 0.0, 0.0, 0.0, 0.0]


def test_nonsense_is_refused(monkeypatch):
    with pytest.raises(ValueError, match="unknown positional scheme"):
        ExtrapolationConfig(scheme="absolute")
    with pytest.raises(ValueError, match="train_len"):
        ExtrapolationConfig(train_len=50)
    model, _ = initial_model(ExtrapolationConfig(scheme="learned"), 0)
    with pytest.raises(ValueError, match="past its end"):  # the 40-row table has no row 40
        model(torch.zeros(1, 41, dtype=torch.long))
    monkeypatch.setattr(extrapolation, "positional_scheme", lambda config: ALiBiBias(4))
    with pytest.raises(ValueError, match="has 8 head"):
        ExtrapolationModel(ExtrapolationConfig(scheme="alibi"))
    assert ExtrapolationConfig(scheme="learned").eval_lens == (20, 40)
    assert ExtrapolationConfig(scheme="rope").eval_lens == (20, 40, 80)


def test_lab_trains_once_and_reloads_the_same_run(tmp_path):
    config = ExtrapolationConfig(steps=5)
    first = ExtrapolationLab(WeightCache(tmp_path, run_id="a"), torch.device("cpu"), config=config)
    second = ExtrapolationLab(WeightCache(tmp_path, run_id="b"), torch.device("cpu"), config=config)
    a, b = first.run("relative", 7), second.run("relative", 7)
    assert all(torch.equal(a.correct[L], b.correct[L]) for L in (20, 40))
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    built = [e["entry"] for e in events if e["event"] == "build"]
    # the weights once, and one evaluation per length read; the second lab loads all three
    assert len(built) == 3 and sum("-eval" in key for key in built) == 2
    assert sorted(e["entry"] for e in events if e["event"] == "load") == sorted(built)


def test_a_run_is_evaluated_only_at_the_lengths_read_and_as_a_whole_evaluation_would(tmp_path):
    cache = WeightCache(tmp_path, run_id="a")
    run = ExtrapolationLab(cache, torch.device("cpu"), config=ExtrapolationConfig(scheme="rope", steps=5)).run("rope", 3)
    assert list(run.correct) == [20, 40, 80] and 80 in run.attention  # keys cost nothing
    acc40 = run.accuracy(40)
    events = (tmp_path / "events.jsonl").read_text()
    assert "-eval40" in events and "-eval20" not in events and "-eval80" not in events
    correct, attention = evaluate(run.model, 3, (20, 40, 80))
    assert torch.equal(100 * correct[40].double().mean(0), acc40)
    assert all(torch.equal(run.attention[L], attention[L]) for L in (20, 40, 80))
    # each length's batch is the one a single generator gives when the lengths are drawn in order
    g = eval_generator(3, torch.device("cpu"))
    for L in (20, 40, 80):
        x = torch.randint(0, 50, (EVAL_SEQUENCES, L), generator=g)
        assert torch.equal(x, eval_batch(run.config, 3, L, torch.device("cpu")))
