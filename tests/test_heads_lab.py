"""The toy models of ``llm_claims_lab/heads/lab.py``: the task's targets, the measures on attention built by hand, the
subspace angle on tables built by hand, the model on the ``meta`` device, and planted measurement bugs that
must flip the claims of ``claims/test_heads.py`` (run in a subprocess on this run's weight cache, so they train
only what the claims would train anyway)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import textwrap
from pathlib import Path

import child_pytest
import pytest

from harness_toy import LOCAL_REPORT
import torch

from llm_claims_lab.core.json_files import InputFileError
from llm_claims_lab.heads import lab as heads
from llm_claims_lab.heads.rows import ROWS, HeadsCalibration, configuration_name, configurations
from llm_claims_lab.core.devices import one_thread
from fixtures.options import cache_dir

ROOT = Path(__file__).resolve().parents[1]
META = torch.device("meta")


def _batch(config: heads.HeadsConfig, n: int = 256) -> heads.Batch:
    return heads.sample(config, n, torch.Generator().manual_seed(0))


def test_lookup_targets() -> None:
    c = heads.SPECIALISATION
    b = _batch(c)
    K, NV = c.keys, c.values
    stored = b.x < K * NV
    assert (stored.sum(1) == K).all()
    keys = torch.where(stored, b.x // NV, b.x - K * NV)  # [B, T]: each key once stored, once queried
    assert (keys.sort(1).values == torch.arange(K).repeat_interleave(2)).all()
    assert (b.prev[:, 1:] == b.x[:, :-1]).all() and (b.prev[:, 0] == heads.IGNORE).all()
    query = b.match >= 0
    assert (query == ~stored).all()
    found = b.x.gather(1, b.match.clamp(min=0))  # [B, T]: the token each query points to
    assert (found[query] // NV == keys[query]).all() and (found[query] < K * NV).all()
    assert (b.second[query] == found[query] % NV).all() and (b.second[~query] == heads.IGNORE).all()


def test_control_targets_are_positional() -> None:
    lookup, control = _batch(heads.SPECIALISATION), _batch(heads.CONTROL)
    assert torch.equal(lookup.x, control.x) and torch.equal(lookup.match, control.match)  # the same sequences
    assert (control.second[:, :-1] == control.x[:, 1:]).all() and (control.second[:, -1] == heads.IGNORE).all()


def _designed_attention(model: heads.HeadsModel, x: torch.Tensor, heads_: list[str]) -> torch.Tensor:
    """Attention ``[B, H, T, T]`` that puts all its mass on i − 1 ('prev') or on the query's key ('content';
    stored tokens attend to themselves) per head."""
    c = model.config
    B, T = x.shape
    keys = torch.where(x < c.keys * c.values, x // c.values, x - c.keys * c.values)
    stored = x < c.keys * c.values
    same = (keys[:, :, None] == keys[:, None, :]) & stored[:, None, :] & ~stored[:, :, None]  # [B, T, T]
    content = torch.where(stored[:, :, None], torch.eye(T, dtype=torch.bool), same).float()
    prev = torch.eye(T).roll(-1, 1)  # row i on key i − 1
    prev[0] = torch.eye(T)[0]  # row 0, which has no key before it, on itself
    prev = prev.expand(B, T, T)
    return torch.stack([prev if h == "prev" else content for h in heads_], 1)


def test_measure_reads_designed_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    model = heads.initial_model(heads.SPECIALISATION, 0)
    forward = heads.HeadsModel.forward

    def designed(self, x):
        prev, second, _ = forward(self, x)
        return prev, second, _designed_attention(self, x, ["content", "prev"])

    monkeypatch.setattr(heads.HeadsModel, "forward", designed)
    m = heads.measure(model, 0, sequences=128)
    assert m.offsets[-1] == [0.0, 1.0] and m.content == [1.0, 0.0]
    assert heads.specialisation(m) == {"positional": 1.0, "content": 1.0, "least_positional": 0.0}


def test_specialisation_of_one_head_doing_both() -> None:
    """One head on both jobs is not two specialised heads: the other head's content score is what counts."""
    m = heads.Measures({}, {-1: [0.9, 0.1]}, [0.9, 0.1])
    assert heads.specialisation(m)["content"] == 0.1


def _with_tables(tok: torch.Tensor, pos: torch.Tensor) -> heads.HeadsModel:
    config = dataclasses.replace(heads.ADD, d_model=tok.shape[1])
    model = heads.initial_model(config, 0)
    with torch.no_grad():
        model.tok_emb.weight.copy_(tok)
        model.pos.weight.copy_(pos)
    return model


def test_subspace_angle_on_built_tables() -> None:
    g = torch.Generator().manual_seed(0)
    c = heads.ADD
    tok = torch.randn(c.vocab_size, 32, generator=g)
    pos = torch.randn(c.seq_len, 32, generator=g)
    apart = _with_tables(torch.cat([tok[:, :16], torch.zeros(c.vocab_size, 16)], 1),
                         torch.cat([torch.zeros(c.seq_len, 16), pos[:, 16:]], 1))
    assert heads.subspace_angle(apart, 4) == pytest.approx(90.0)
    basis = torch.randn(4, 32, generator=g)  # both tables inside one 4-dimensional subspace
    shared = _with_tables(torch.randn(c.vocab_size, 4, generator=g) @ basis,
                          torch.randn(c.seq_len, 4, generator=g) @ basis)
    assert heads.subspace_angle(shared, 4) == pytest.approx(0.0, abs=1e-3)
    with pytest.raises(ValueError, match="added"):
        heads.subspace_angle(heads.initial_model(heads.CONCAT["concat_half"], 0), 4)


@pytest.mark.parametrize("config", [heads.SPECIALISATION, heads.CONTROL, heads.ADD, *heads.CONCAT.values()],
                         ids=lambda c: f"{c.task}-{c.pe}-{c.combine}")
def test_model_on_meta(config: heads.HeadsConfig) -> None:
    """Forward pass and one training step on ``meta``: no tensor of the model is built on the CPU."""
    model = heads.initial_model(config, 0).to(META)
    b = _batch(config, 2)
    batch = heads.Batch(*(t.to(META) for t in dataclasses.astuple(b)))
    prev, second, attn = model(batch.x)
    assert attn.shape == (2, config.num_heads, config.seq_len, config.seq_len) and prev.device == META
    opt = torch.optim.Adam(model.parameters())
    model.loss(batch).backward()
    opt.step()
    assert all(p.device == META for p in model.parameters())


MUTATIONS = {
    # the content score read from the positional head itself instead of the other head
    "content_of_positional_head": ("positional_vs_content", """
        import llm_claims_lab.heads.lab as H
        def broken(m):
            per_head = [max(m.offsets[o][h] for o in m.offsets) for h in range(len(m.content))]
            best = max(range(len(per_head)), key=per_head.__getitem__)
            return {"positional": per_head[best], "content": m.content[best], "least_positional": min(per_head)}
        H.specialisation = broken
        """, {"heads.positional_vs_content[content_head]"}),
    # principal angles between the token table and itself
    "angle_to_itself": ("subspaces", """
        import math, llm_claims_lab.heads.lab as H
        from scipy.linalg import subspace_angles
        from llm_claims_lab.core.subspaces import centred_subspace
        def broken(model, k):
            basis = centred_subspace(model.tok_emb.weight.detach(), k).numpy()
            return math.degrees(float(subspace_angles(basis, basis).min()))
        H.subspace_angle = broken
        """, {"heads.subspaces[trained]", "heads.subspaces[pushed_apart]"}),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_claims_fail_on_broken_measurement(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                           pytestconfig: pytest.Config, mutation: str) -> None:
    claim, patch, broken_rows = MUTATIONS[mutation]
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    shutil.copy(ROOT / "claims" / "test_heads.py", pytester.path / "test_heads.py")
    conftest = (ROOT / "conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(conftest + "\n# --- planted bug ---\n" + textwrap.dedent(patch))
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", "-k", claim,
                                              f"--claims-cache-dir={cache_dir(pytestconfig)}",
                                              f"--claims-seed={pytestconfig.getoption('claims_seed')}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    assert {r["id"] for r in rows if r["as_expected"] is False} == broken_rows


def test_batches_drawn_ahead_train_the_weights_of_per_step_draws() -> None:
    """train() draws every step's batch before the first step (one host-to-device copy): on the CPU the weights
    are bit for bit those of drawing each batch at its step, as the loop did before."""
    config = dataclasses.replace(heads.ADD, steps=25)
    model = heads.initial_model(config, 3)
    g = torch.Generator().manual_seed(3 + heads.DATA_SEED_OFFSET)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    with one_thread():
        for _ in range(config.steps):
            loss = model.loss(heads.sample(config, config.batch_size, g))
            opt.zero_grad()
            loss.backward()
            opt.step()
    trained = heads.train(config, 3, torch.device("cpu"))
    assert all(torch.equal(trained[k], v) for k, v in model.state_dict().items())


def _calibration(tmp_path: Path, values: list[float], cpu_s: float = 2.0) -> HeadsCalibration:
    """A heads calibration of ``values`` for every row and ``cpu_s`` per model of every configuration."""
    names = {configuration_name(c) for row in ROWS for c in configurations(row)}
    path = tmp_path / "heads.json"
    path.write_text(json.dumps({"per_seed": {row: values for row in ROWS}, "training_code": "x",
                                "seeds": list(range(1, len(values) + 1)), "torch": torch.__version__,
                                "cpu_s_per_model": {name: cpu_s for name in names}}))
    return HeadsCalibration(path)


def test_seeds_to_decide_are_the_fewest_that_reach_the_odds(tmp_path: Path) -> None:
    """At the calibration's mean 0.55 and SD 0.1013 (40 values), a bound of 0.5 is decided (3 SDs of a mean of n seeds)
    in 80 % of runs from n = ⌈((3 + z₀.₈) · 0.1013 / 0.05)²⌉ = 61 seeds, not from 60; the cost counts every model the
    row reads."""
    row = "heads.add_vs_concat[concat_half]"
    cal = _calibration(tmp_path, [0.45, 0.65] * 20)
    n = cal.seeds_to_decide(row, 0.5, 3.0, 0.8)
    assert n == 61
    assert cal.decision_odds(row, 0.5, n, 3.0) >= 0.8 > cal.decision_odds(row, 0.5, n - 1, 3.0)
    assert cal.decision_odds(row, 0.5, 10, 3.0) == pytest.approx(0.0751, abs=1e-3)  # Φ(0.05 / (0.1013 / √10) − 3)
    assert cal.cpu_s(row, n) == n * 2 * 2.0  # concat_half and the add model it is paired with
    assert cal.cpu_s("heads.positional_vs_content[positional_head]", 10) == 10 * 2.0


def test_a_calibration_without_the_training_cost_names_the_script(tmp_path: Path) -> None:
    cal = _calibration(tmp_path, [0.1, 0.2])
    data = json.loads(cal.path.read_text())
    del data["cpu_s_per_model"]["lookup-learned-concat_full"]
    cal.path.write_text(json.dumps(data))
    with pytest.raises(InputFileError, match=r"lookup-learned-concat_full.*calibrate_heads\.py"):
        HeadsCalibration(cal.path)
