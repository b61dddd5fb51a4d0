"""GPT-2's whole model and the measurements of claims/test_gpt2_contextual.py, on a tiny GPT-2.

The tiny GPT-2 (2 layers, 2 heads, 32 wide, GPT-2's 50,257 tokens and 1,024 positions, so that GPT-2's real
BPE can feed it) is built with transformers, saved with ``save_pretrained`` and loaded back through
:func:`llm_claims_lab.pretrained.embeddings.gpt2_model`, the function the claims use, its shape taken for GPT-2 small's
(``tiny_small``); no network is touched (the hub probe is replaced by ``False``). The measurements are checked on that model and on tensors whose answer is known.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import child_pytest
import pytest
import torch
from gpt2_checkpoints import taken_as_published, tiny_is_gpt2_small
from planted import run_with_bug
from safetensors.torch import save_file
from scipy.linalg import subspace_angles
# Imported in the test process before any in-process pytester run (see tests/test_gpt2_weights.py).
from transformers import GPT2Model  # noqa: F401

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab.core.subspaces import (centred_subspace, overlap, principal_cosines, random_overlaps,
                                           smallest_angle, variance_components)
from llm_claims_lab.pretrained.contextual import (BANK, MONEY_BANK, PASSAGES, RIVER_BANK, forward,
                                                  heads_at_least, passage_masses, positional_mass,
                                                  sense_split, sense_split_sd, word_states)
from llm_claims_lab.pretrained.embeddings import GPT2_DIR_ENV, EmbeddingsUnavailable, GPT2DirError, gpt2_model

ROOT = Path(__file__).resolve().parents[1]
TINY = {"n_layer": 2, "n_head": 2, "n_embd": 32}  # vocab_size and n_positions left at GPT-2's 50,257 and 1,024
TINY_SHAPE = {"vocab_size": 50257, "n_positions": 1024, **TINY}


@pytest.fixture
def tiny_small() -> Iterator[None]:
    """The tiny GPT-2's shape taken for GPT-2 small's, with which the loaders compare every checkpoint."""
    with tiny_is_gpt2_small(TINY_SHAPE):
        yield


def _tiny_gpt2(model_class: str = "GPT2Model", seed: int = 0):
    import transformers

    torch.manual_seed(seed)
    return getattr(transformers, model_class)(transformers.GPT2Config(**TINY)).eval()


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-gpt2")
    _tiny_gpt2().save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def tiny(tiny_dir: Path, gpt2_tokenizer) -> embeddings.Model:
    return embeddings.Model(embeddings.model_from_dir(tiny_dir), gpt2_tokenizer, str(tiny_dir))


# --- loading the whole model -----------------------------------------------------------------------

@pytest.mark.parametrize("model_class", ["GPT2Model", "GPT2LMHeadModel"])
def test_tiny_gpt2_loads_back_whole(tmp_path: Path, offline: None, tiny_small: None, model_class: str) -> None:
    saved = _tiny_gpt2(model_class)
    saved.save_pretrained(tmp_path)
    model, source = gpt2_model(tmp_path)
    assert source == f"--claims-gpt2-dir {tmp_path}" and not model.training
    assert model.config._attn_implementation == "eager"
    base = getattr(saved, "transformer", saved)
    assert all(torch.equal(p, base.state_dict()[name]) for name, p in model.state_dict().items())


def test_the_local_hf_cache_is_read_without_network(tmp_path: Path, offline: None, tiny_small: None) -> None:
    """The same search as gpt2_wte: a snapshot of 'gpt2' in the Hugging Face cache layout."""
    repo = tmp_path / "models--gpt2"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    saved = _tiny_gpt2()
    saved.save_pretrained(repo / "snapshots" / "0123abcd")
    model, source = gpt2_model(cache_dir=tmp_path)
    assert source == "Hugging Face cache: gpt2" and torch.equal(model.wpe.weight, saved.wpe.weight)


def test_nothing_found_says_how_to_provide_the_weights(tmp_path: Path, offline: None) -> None:
    with pytest.raises(EmbeddingsUnavailable, match=r"hub not reachable\)\. To run the GPT-2 claims, pass "
                                                     r"--claims-gpt2-dir DIR or set CLAIMS_GPT2_DIR=DIR"):
        gpt2_model(cache_dir=tmp_path)


def test_a_checkpoint_without_every_tensor_is_refused(tmp_path: Path, offline: None, tiny_small: None) -> None:
    """wte alone loads for gpt2_wte, but a model would keep random layers: refused, naming the file."""
    _tiny_gpt2().config.save_pretrained(tmp_path)
    save_file({"wte.weight": torch.zeros(50257, 32)}, tmp_path / "model.safetensors")
    embeddings.wte_from_dir(tmp_path)
    with pytest.raises(GPT2DirError, match=rf"{tmp_path}/model\.safetensors lacks \d+ tensors of GPT-2 \(h\.0\."):
        gpt2_model(tmp_path)


@pytest.mark.parametrize("problem", ["truncated", "other-shapes"])
def test_unloadable_weights_are_a_clear_error(tmp_path: Path, offline: None, tiny_small: None,
                                               problem: str) -> None:
    _tiny_gpt2().save_pretrained(tmp_path)
    weights = tmp_path / "model.safetensors"
    if problem == "truncated":  # seen in the header, before transformers is asked
        weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
        said = rf"{weights} is unreadable, truncated or corrupt \(SafetensorError"
    else:  # no config.json: GPT2Config() expects 768 wide, the tensors are 32 wide
        (tmp_path / "config.json").unlink()
        said = rf"transformers cannot load {weights} as a GPT2Model"
    with pytest.raises(GPT2DirError, match=said):
        gpt2_model(tmp_path)


def test_gpt2_model_fixture_skips_offline_saying_how(pytester: pytest.Pytester, offline: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "_cached_snapshot", lambda repo, cache_dir: None)  # an empty cache
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile("def test_needs_gpt2(gpt2_model):\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--no-claims-report", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*GPT-2 weights not available*hub not reachable*--claims-gpt2-dir DIR*"])


@pytest.mark.parametrize("published", [True, False], ids=["taken_as_published", "not_published"])
def test_contextual_claims_run_on_given_weights(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                tiny_dir: Path, published: bool) -> None:
    """The claims module end to end on the tiny GPT-2 through --claims-gpt2-dir. Its file taken for the published
    one: every row that needs the weights is measured (none skipped or in error), and ' bank' is one point at the
    embedding layer. As it is (not the published file): every such row skips, naming the file and the value
    measured, and judges no post. (The untrained controls, which need no weights, are left out: they build a
    full-size GPT-2.)"""
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    shape = "\nimport llm_claims_lab.pretrained.embeddings\nllm_claims_lab.pretrained.embeddings.GPT2_SMALL = " + repr(TINY_SHAPE)
    _, rows = run_with_bug(pytester, monkeypatch, ["test_gpt2_contextual.py"],  # the tiny model's shape (and file)
                           shape + (taken_as_published(tiny_dir) if published else ""),
                           f"--claims-gpt2-dir={tiny_dir}", "-k", "not untrained")
    assert len(rows) == 6
    if not published:
        assert all(r["verdict"] == "skipped" and f"{tiny_dir}" in r["reason"] and "is not the published GPT-2 small"
                   in r["reason"] and "measured on it, not judged" in r["reason"] for r in rows.values()), rows
        return
    assert {r["verdict"] for r in rows.values()} <= {"holds", "refuted", "inconclusive"}
    assert rows["gpt2.bank_senses[one_point]"]["measured"] == [1, 0.0]
    assert rows["gpt2.bank_senses[one_point]"]["as_expected"] is True


def test_a_model_of_another_shape_is_not_gpt2(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                              tiny_dir: Path) -> None:
    """A named directory with a smaller GPT-2 is a usage error before anything is measured (it would otherwise be
    judged as GPT-2 small); tests/test_gpt2_weights.py tries each dimension in turn."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile("def test_needs_gpt2(gpt2_model):\n    pass\n")
    result = child_pytest.runpytest(pytester, "-p", "no:cacheprovider", "--no-claims-report",
                                              f"--claims-gpt2-dir={tiny_dir}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{tiny_dir}/model.safetensors is not GPT-2 small: n_embd = 32 (GPT-2 small: "
                                 "768), n_layer = 2 (GPT-2 small: 12)*"])


# --- the texts ---------------------------------------------------------------------------------------

def test_every_bank_sentence_has_one_bank_at_token_9(gpt2_tokenizer) -> None:
    bank = gpt2_tokenizer.encode(BANK)
    assert len(bank) == 1 and len(RIVER_BANK) == len(MONEY_BANK) == 6
    for sentence in RIVER_BANK + MONEY_BANK:
        ids = gpt2_tokenizer.encode(sentence)
        assert ids.count(bank[0]) == 1 and ids.index(bank[0]) == 9, sentence


def test_passages_are_40_to_60_tokens(gpt2_tokenizer) -> None:
    assert all(40 <= len(gpt2_tokenizer.encode(p)) <= 60 for p in PASSAGES)


# --- measurements on the tiny model ------------------------------------------------------------------

def test_forward_returns_every_layer_and_causal_maps(tiny: embeddings.Model) -> None:
    ids = tiny.tokenizer.encode(PASSAGES[0])[:12]
    hidden, attentions = forward(tiny.model, ids)
    assert hidden.shape == (3, 12, 32) and attentions.shape == (2, 2, 12, 12)
    embedded = tiny.model.wte.weight[ids] + tiny.model.wpe.weight[:12]  # [T, D]: layer 0 is wte + wpe
    assert torch.equal(hidden[0], embedded.detach().double())
    assert torch.allclose(attentions.sum(-1), torch.ones(2, 2, 12, dtype=torch.float64))
    assert (attentions.triu(1) == 0).all()


def test_word_states_find_the_word_by_its_characters(tiny: embeddings.Model) -> None:
    states, ids, positions = word_states(tiny.model, tiny.tokenizer, RIVER_BANK + MONEY_BANK)
    assert states.shape == (3, 12, 32) and set(positions) == {9}
    assert set(ids) == set(tiny.tokenizer.encode(BANK))
    assert (states[0] == states[0, :1]).all() and not (states[-1] == states[-1, :1]).all()
    _, ids, _ = word_states(tiny.model, tiny.tokenizer, ["Two banks merged.", "The bank merged."])
    assert ids[0] == tiny.tokenizer.encode(" banks")[0] != ids[1]  # ' banks' is its own token: another id
    with pytest.raises(ValueError, match="' bank' does not occur in 'A river.'"):
        word_states(tiny.model, tiny.tokenizer, ["A river."])


def test_positional_masses_of_the_tiny_model_are_fractions(tiny: embeddings.Model) -> None:
    masses = passage_masses(tiny.model, tiny.tokenizer, PASSAGES[:2])
    assert set(masses) == {"previous", "self", "first"}
    assert all(m.shape == (2, 2, 2) and ((m >= 0) & (m <= 1)).all() for m in masses.values())


# --- measurements on tensors with a known answer ---------------------------------------------------------

def test_sense_split_by_hand() -> None:
    e = torch.eye(3, dtype=torch.float64)
    states = torch.stack([e[0], e[0], e[1], e[1] + e[2]])[None]  # [1, N=4, D=3]
    senses = torch.tensor([0, 0, 1, 1])
    within = (1 + 1 / math.sqrt(2)) / 2  # pairs (0, 1) and (2, 3)
    across = (0 + 0 + 0 + 0) / 4
    assert sense_split(states, senses).item() == pytest.approx(within - across)
    same = torch.ones(2, 4, 3, dtype=torch.float64)
    assert torch.equal(sense_split(same, senses), torch.zeros(2, dtype=torch.float64))


def test_sense_split_sd_equals_a_plain_bootstrap() -> None:
    """The vectorised bootstrap against a loop over the same draws, pair by pair; a sentence drawn twice is
    never paired with itself (with three sentences per sense, some draws keep a single pair within a sense)."""
    states = torch.randn(2, 6, 5, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    senses = torch.tensor([0, 0, 0, 1, 1, 1])
    sd = sense_split_sd(states, senses, 300, torch.Generator().manual_seed(1))
    g = torch.Generator().manual_seed(1)  # the same draws: each sense's pool in turn, [n, pool size]
    picks = torch.cat([torch.randint(3, (300, 3), generator=g), 3 + torch.randint(3, (300, 3), generator=g)], 1)
    cos = torch.nn.functional.cosine_similarity(states[:, :, None], states[:, None, :], dim=-1)  # [L + 1, N, N]
    draws = []
    for pick in picks.tolist():
        pairs = [(i, j) for i in pick for j in pick if i != j]
        within = [cos[:, i, j] for i, j in pairs if senses[i] == senses[j]]
        across = [cos[:, i, j] for i, j in pairs if senses[i] != senses[j]]
        if within:
            draws.append(torch.stack(within).mean(0) - torch.stack(across).mean(0))
    assert torch.allclose(sd, torch.stack(draws).std(0), atol=1e-12)


def test_sense_split_sd_is_seeded_and_positive() -> None:
    states = torch.randn(3, 12, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    senses = torch.tensor([0] * 6 + [1] * 6)
    first = sense_split_sd(states, senses, 200, torch.Generator().manual_seed(1))
    assert first.shape == (3,) and (first > 0).all()
    assert torch.equal(first, sense_split_sd(states, senses, 200, torch.Generator().manual_seed(1)))


def test_positional_mass_of_known_maps() -> None:
    t = 6
    previous = torch.zeros(t, t, dtype=torch.float64)
    previous[0, 0] = 1
    previous[torch.arange(1, t), torch.arange(t - 1)] = 1  # every query on the token before it
    uniform = torch.ones(t, t, dtype=torch.float64).tril()
    uniform /= uniform.sum(-1, keepdim=True)  # causal and even: 1 / (t + 1) on each key
    mass = positional_mass(torch.stack([previous, uniform])[None])  # [L=1, H=2, T, T]
    assert mass["previous"].tolist() == [[1.0, pytest.approx(sum(1 / (q + 1) for q in range(2, t)) / 4)]]
    assert mass["first"][0, 0] == 0 and mass["self"][0, 0] == 0
    assert mass["first"][0, 1] == pytest.approx(mass["self"][0, 1])


def test_heads_at_least_names_layer_dot_head_largest_first() -> None:
    mass = torch.tensor([[0.2, 0.7], [0.9, 0.5]])
    assert heads_at_least(mass, 0.5) == ["1.0", "0.1", "1.1"]
    assert heads_at_least(mass, 0.95) == []


def test_variance_components_and_the_centred_subspace() -> None:
    g = torch.Generator().manual_seed(0)
    basis = torch.linalg.qr(torch.randn(16, 3, generator=g, dtype=torch.float64)).Q  # [D, K]
    coords = torch.randn(500, 3, generator=g, dtype=torch.float64) * torch.tensor([10.0, 5.0, 1.0])
    rows = coords @ basis.T + 7.0  # [N, D]: a shifted 3-dimensional cloud, variances 100 : 25 : 1
    assert variance_components(rows, 0.5) == 1 and variance_components(rows, 0.9) == 2
    assert variance_components(rows, 0.999) == 3
    found = centred_subspace(rows, 3)
    assert torch.allclose(found.T @ found, torch.eye(3, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(principal_cosines(basis, found), torch.ones(3, dtype=torch.float64), atol=1e-9)


def test_principal_cosines_agree_with_scipy() -> None:
    g = torch.Generator().manual_seed(0)
    a, b = (torch.linalg.qr(torch.randn(20, 4, generator=g, dtype=torch.float64)).Q for _ in range(2))
    angles = torch.from_numpy(subspace_angles(a.numpy(), b.numpy()))  # radians, largest first
    assert torch.allclose(principal_cosines(a, b), angles.cos().sort(descending=True).values, atol=1e-12)


def test_overlap_and_smallest_angle_at_the_extremes() -> None:
    e = torch.eye(4, dtype=torch.float64)
    assert overlap(principal_cosines(e[:, :2], e[:, 2:])).item() == 0
    shared = principal_cosines(e[:, :2], e[:, 1:3])  # one direction in common
    assert overlap(shared).item() == 0.5
    assert smallest_angle(shared) == 0 and smallest_angle(principal_cosines(e[:, :2], e[:, 2:])) == 90


def test_random_overlaps_average_k_over_d_and_are_seeded() -> None:
    basis = torch.eye(64, dtype=torch.float64)[:, :8]  # any subspace: the draws are rotation-invariant
    draws = random_overlaps(basis, 1000, torch.Generator().manual_seed(0), chunk=300)
    assert draws.shape == (1000,) and draws.mean().item() == pytest.approx(8 / 64, abs=0.003)
    assert torch.equal(draws, random_overlaps(basis, 1000, torch.Generator().manual_seed(0), chunk=300))

