"""The GPT-2 loading path of :func:`llm_claims_lab.pretrained.embeddings.gpt2_wte`, the function the GPT-2 claims use,
and the check of a directory named by --claims-gpt2-dir or $CLAIMS_GPT2_DIR.

Each test builds a tiny GPT-2 with transformers, saves it with ``save_pretrained`` (or a broken variant of
it) and loads it back, the tiny shape taken for GPT-2 small's (``tiny_small``); GPT-2 small's own shape is
written as a sparse file of zeros. No network is touched (the hub probe is replaced by ``False``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness_toy import LOCAL_REPORT
import torch
from gpt2_checkpoints import (gpt2_shapes, hf_cache_snapshot, sparse_safetensors, tiny_gpt2, tiny_is_gpt2_small,
                              truncate, write_config)
from safetensors.torch import save_file
# Imported in the test process before any in-process pytester run: pytester drops the modules a run
# imported first when it ends, and a second import of GPT2Model's modules fails on torch's operator
# registrations ("Only a single TORCH_LIBRARY ..."): the tests depended on which ran first in a worker.
from transformers import GPT2Model  # noqa: F401

from llm_claims_lab.pretrained import embeddings
from llm_claims_lab.pretrained.embeddings import (
    GPT2_DIR_ENV,
    EmbeddingsUnavailable,
    GPT2DirError,
    check_gpt2_dir,
    gpt2_wte,
)

# the harness is the plugin of its entry point; the suite's options and device come from fixtures/
SUITE_CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n'
ROOT = Path(__file__).resolve().parents[1]
GPT2_CLAIMS = ["test_gpt2_embeddings.py", "test_gpt2_contextual.py"]




@pytest.fixture
def tiny_small() -> Iterator[None]:
    with tiny_is_gpt2_small():
        yield


# --- GPT-2 loading path -------------------------------------------------------------------------

# their checkpoints name the table wte.weight and transformer.wte.weight
@pytest.mark.parametrize("model_class", ["GPT2Model", "GPT2LMHeadModel"])
def test_tiny_gpt2_saved_locally_loads_back(tmp_path: Path, offline: None, tiny_small: None,
                                            model_class: str) -> None:
    model = tiny_gpt2(model_class)
    model.save_pretrained(tmp_path)
    table, source = gpt2_wte(tmp_path)
    assert torch.equal(table, model.get_input_embeddings().weight.detach())
    assert table.shape == (11, 8) and table.dtype == torch.float32
    assert source == f"--claims-gpt2-dir {tmp_path}"


def test_directory_from_the_environment_variable(tmp_path: Path, offline: None, tiny_small: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    model = tiny_gpt2()
    model.save_pretrained(tmp_path)
    monkeypatch.setenv(GPT2_DIR_ENV, str(tmp_path))
    table, source = gpt2_wte()
    assert torch.equal(table, model.wte.weight.detach())
    assert source == f"{GPT2_DIR_ENV}={tmp_path}"


def test_local_hf_cache_is_read_without_network(tmp_path: Path, offline: None, tiny_small: None) -> None:
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


def test_checkpoint_without_safetensors_loads_through_transformers(tmp_path: Path, offline: None,
                                                                     tiny_small: None) -> None:
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


def test_truncated_pytorch_model_bin_is_caught_by_the_cheap_check(tmp_path: Path, offline: None,
                                                                   tiny_small: None) -> None:
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
    """GPT-2 small's tensors (zeros, a sparse file) and config.json."""
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    sparse_safetensors(pytester.path / "gpt2", gpt2_shapes())
    write_config(pytester.path / "gpt2")
    pytester.makeconftest(SUITE_CONFTEST)
    pytester.makepyfile("def test_nothing():\n    pass\n")
    assert pytester.runpytest("--claims-gpt2-dir", str(pytester.path / "gpt2")).ret == pytest.ExitCode.OK


# --- weights of another shape than GPT-2 small's: never measured as GPT-2 ------------------------------------

OTHER_SHAPES = {  # planted: a wte alone (its shape) or GPT-2 small with one field changed; what the error says
    "wte-rows-fewer": ([50000, 768], "model.safetensors is not GPT-2 small: vocab_size = 50000 (GPT-2 small: 50257)"),
    "wte-rows-more": ([50300, 16], "model.safetensors is not GPT-2 small: vocab_size = 50300 (GPT-2 small: 50257), "
                                   "n_embd = 16 (GPT-2 small: 768)"),
    "wte-width-16": ([50257, 16], "model.safetensors is not GPT-2 small: n_embd = 16 (GPT-2 small: 768)"),
    "wte-width-1024": ([50257, 1024], "model.safetensors is not GPT-2 small: n_embd = 1024 (GPT-2 small: 768)"),
    "n_layer": ({"n_layer": 6}, "model.safetensors is not GPT-2 small: n_layer = 6 (GPT-2 small: 12)"),
    "n_head": ({"n_head": 16}, "config.json is not GPT-2 small: n_head = 16 (GPT-2 small: 12)"),
    "n_embd": ({"n_embd": 1024, "n_head": 16}, "model.safetensors is not GPT-2 small: n_embd = 1024 (GPT-2 small: "
                                               "768)"),
    "n_positions": ({"n_positions": 2048}, "model.safetensors is not GPT-2 small: n_positions = 2048 (GPT-2 small: "
                                           "1024)"),
    "vocab_size": ({"vocab_size": 50258}, "model.safetensors is not GPT-2 small: vocab_size = 50258 (GPT-2 small: "
                                          "50257)"),
}


def _plant(path: Path, planted: str) -> str:
    """The weights of ``OTHER_SHAPES[planted]`` in ``path`` (zeros, a sparse file); returns what the error says."""
    shape, problem = OTHER_SHAPES[planted]
    if isinstance(shape, list):
        sparse_safetensors(path, {"wte.weight": shape})
    else:
        sparse_safetensors(path, gpt2_shapes(**shape))
        write_config(path, **shape)
    return problem


@pytest.mark.parametrize("claims", GPT2_CLAIMS)
@pytest.mark.parametrize("planted", list(OTHER_SHAPES))
def test_gpt2_claims_refuse_a_named_dir_of_another_shape(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                         planted: str, claims: str) -> None:
    """Each dimension of GPT-2 small in turn, through --claims-gpt2-dir: the run of the claims stops before
    measuring, with a usage error naming the file and the dimension; no row is reported."""
    path = pytester.path / "weights"
    problem = _plant(path, planted)
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    shutil.copy(ROOT / "claims" / claims, pytester.path / claims.replace(".py", "_copy.py"))  # see below
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--claims-gpt2-dir", str(path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: GPT-2 weights: --claims-gpt2-dir {path}: {path}/{problem}. Expected*"])
    assert not (pytester.path / LOCAL_REPORT).exists()


@pytest.mark.parametrize("claims", GPT2_CLAIMS)
def test_gpt2_claims_error_on_a_cached_copy_of_another_shape(pytester: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch, claims: str) -> None:
    """The only GPT-2 in the Hugging Face cache (a default source) is [50257, 16]: every row that reads the
    weights errors, naming the file and the repair; none is measured, none skipped as if there were none."""
    from huggingface_hub import constants

    snapshot = hf_cache_snapshot(pytester.path / "hf", "openai-community/gpt2")
    weights = sparse_safetensors(snapshot, {"wte.weight": [50257, 16]})
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(pytester.path / "hf"))
    monkeypatch.setattr(embeddings, "hub_reachable", lambda: False)
    monkeypatch.delenv(GPT2_DIR_ENV, raising=False)
    # under another name: in a run of claims/ and tests/ together, this process has imported the module already
    shutil.copy(ROOT / "claims" / claims, pytester.path / claims.replace(".py", "_copy.py"))
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    result = pytester.runpytest("-p", "no:cacheprovider", "-k", "not untrained")
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    offline = [r for r in rows if r["id"] == "gpt2.wte_shape"]  # decided from GPT2Config, not the weights
    assert all(r["verdict"] == "holds" and "not measured" in str(r["details"]) for r in offline)
    rows = [r for r in rows if r not in offline]
    assert len(rows) >= 6 and {r["verdict"] for r in rows} == {"error"}
    assert "skipped" not in result.parseoutcomes()
    result.stdout.fnmatch_lines([f"*EmbeddingsUnusable: GPT-2 weights found, none usable*{weights} is not GPT-2 "
                                 "small: n_embd = 16 (GPT-2 small: 768) (a damaged download or another model: "
                                 "delete*"])
