"""The GPT-2 loading path of :func:`llm_claims_lab.embeddings.gpt2_wte`, the function the GPT-2 claims use,
and the check of a directory named by --claims-gpt2-dir or $CLAIMS_GPT2_DIR.

Each test builds a tiny GPT-2 with transformers, saves it with ``save_pretrained`` (or a broken variant of
it) and loads it back; no network is touched (the hub probe is replaced by ``False``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from gpt2_checkpoints import hf_cache_snapshot, tiny_gpt2, truncate
from safetensors.torch import save_file

from llm_claims_lab.embeddings import (
    GPT2_DIR_ENV,
    EmbeddingsUnavailable,
    GPT2DirError,
    check_gpt2_dir,
    gpt2_wte,
)

# the harness is the plugin of its entry point; the suite's options and device come from fixtures/
SUITE_CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n'


# --- GPT-2 loading path -------------------------------------------------------------------------

# their checkpoints name the table wte.weight and transformer.wte.weight
@pytest.mark.parametrize("model_class", ["GPT2Model", "GPT2LMHeadModel"])
def test_tiny_gpt2_saved_locally_loads_back(tmp_path: Path, offline: None, model_class: str) -> None:
    model = tiny_gpt2(model_class)
    model.save_pretrained(tmp_path)
    table, source = gpt2_wte(tmp_path)
    assert torch.equal(table, model.get_input_embeddings().weight.detach())
    assert table.shape == (11, 8) and table.dtype == torch.float32
    assert source == f"--claims-gpt2-dir {tmp_path}"


def test_directory_from_the_environment_variable(tmp_path: Path, offline: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_gpt2()
    model.save_pretrained(tmp_path)
    monkeypatch.setenv(GPT2_DIR_ENV, str(tmp_path))
    table, source = gpt2_wte()
    assert torch.equal(table, model.wte.weight.detach())
    assert source == f"{GPT2_DIR_ENV}={tmp_path}"


def test_local_hf_cache_is_read_without_network(tmp_path: Path, offline: None) -> None:
    model = tiny_gpt2()
    model.save_pretrained(hf_cache_snapshot(tmp_path))
    table, source = gpt2_wte(cache_dir=tmp_path)
    assert torch.equal(table, model.wte.weight.detach())
    assert source == "Hugging Face cache: gpt2"


def test_cache_with_tokenizer_files_only_says_so(tmp_path: Path, offline: None) -> None:
    """What the GPT-2 tokenizer leaves in the cache (config.json, no weights) is reported, not loaded."""
    tiny_gpt2().config.save_pretrained(hf_cache_snapshot(tmp_path))
    with pytest.raises(EmbeddingsUnavailable, match=r"Face cache: gpt2: .*0123abcd has no model\.safetensors, "
                                                     r"nor config\.json \+ pytorch_model\.bin \(found: config\.json\)"):
        gpt2_wte(cache_dir=tmp_path)


def test_checkpoint_without_safetensors_loads_through_transformers(tmp_path: Path, offline: None) -> None:
    model = tiny_gpt2()
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
    tiny_gpt2().save_pretrained(hf_cache_snapshot(tmp_path / "cache"))
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
    model = tiny_gpt2()
    model.config.save_pretrained(tmp_path)
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")
    check_gpt2_dir(tmp_path)
    truncate(tmp_path / "pytorch_model.bin")
    with pytest.raises(GPT2DirError, match=r"pytorch_model\.bin is truncated or corrupt \(BadZipFile"):
        check_gpt2_dir(tmp_path)
    with pytest.raises(GPT2DirError, match=r"transformers cannot load .*pytorch_model\.bin .*truncated"):
        gpt2_wte(tmp_path)


# --- a directory named by --claims-gpt2-dir or $CLAIMS_GPT2_DIR ------------------------------------

def _named_gpt2_dir(root: Path, case: str) -> Path:
    """A directory for ``case``: 'missing' (none), 'no-weights' (a tokenizer file only), 'truncated'
    (a tiny GPT-2 whose model.safetensors lost its second half)."""
    path = root / case
    if case == "no-weights":
        path.mkdir()
        (path / "vocab.json").write_text("{}")
    elif case == "truncated":
        tiny_gpt2().save_pretrained(path)
        truncate(path / "model.safetensors")
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
    pytester.makeconftest(SUITE_CONFTEST)
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
    tiny_gpt2().save_pretrained(pytester.path / "gpt2")
    pytester.makeconftest(SUITE_CONFTEST)
    pytester.makepyfile("def test_nothing():\n    pass\n")
    assert pytester.runpytest("--claims-gpt2-dir", str(pytester.path / "gpt2")).ret == pytest.ExitCode.OK
