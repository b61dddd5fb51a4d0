"""Every trained model keeps its tensors on its module's device.

PyTorch's ``meta`` device holds shapes without data and refuses to combine with a CPU tensor, so a
forward pass and a training step on ``meta`` find any tensor built on the CPU inside a model (the
sinusoidal table once was: every sinusoidal row errored on CUDA) without a GPU.
"""

from __future__ import annotations

import pytest

from harness_toy import LOCAL_REPORT
import torch

from fixtures import CALIBRATION_DIR
from llm_claims_lab.extrapolation import SCHEMES, ExtrapolationConfig, ExtrapolationModel
from llm_claims_lab.word2vec.skipgram import SkipGram, SkipGramConfig, sample_batch

# the harness is the plugin of its entry point; the suite's options and device come from fixtures/
SUITE_CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.reporting", "fixtures.runtime"]\n'

META = torch.device("meta")


def _step(model: torch.nn.Module, loss: torch.Tensor) -> None:
    """One training step as the suite's trainers take it: backward, then Adam."""
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    opt.zero_grad()
    loss.backward()
    opt.step()
    assert all(p.device == META for p in model.parameters())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_extrapolation_model_on_meta(scheme: str) -> None:
    config = ExtrapolationConfig(scheme=scheme)
    model = ExtrapolationModel(config).to(META)
    for T in (config.train_len, *config.eval_lens):  # [B, T] token ids at every evaluated length
        x = torch.zeros(2, T, dtype=torch.long, device=META)
        assert model(x).shape == (2, T, config.vocab_size)
        assert model.forward_plain(x).device == META
        assert model.forward_with_attention(x)[1].shape == (2, T, T)
    _step(model, model.loss(torch.zeros(2, config.train_len, dtype=torch.long, device=META)))


def test_skipgram_on_meta() -> None:
    cfg = SkipGramConfig(seed=0)  # shapes only: no draw is kept
    model = SkipGram(100, cfg.dim).to(META)
    ids = torch.zeros(1000, dtype=torch.long, device=META)  # [N] corpus ids
    center, ctx, neg = sample_batch(ids, 100, cfg, META)
    _step(model, model.loss(center, ctx, neg))


@pytest.fixture
def numerics_restored():
    """Every setting pin_cuda_numerics touches, put back after the test."""
    api = (torch.backends.cuda.matmul, torch.backends.cudnn.conv, torch.backends.cudnn.rnn)
    before = ([m.fp32_precision for m in api], torch.backends.cudnn.benchmark,
              torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    yield
    for m, value in zip(api, before[0]):
        m.fp32_precision = value
    torch.backends.cudnn.benchmark = before[1]
    torch.use_deterministic_algorithms(before[2], warn_only=before[3])


def test_cuda_numerics_pinned_strict_and_named(numerics_restored) -> None:
    """What a CUDA run pins is what the fingerprint and the report name: TF32 off through the fp32_precision
    API, and deterministic algorithms strict (an op without a deterministic kernel raises, not warns)."""
    from llm_claims_lab.core.devices import cuda_numerics, pin_cuda_numerics

    torch.backends.cuda.matmul.fp32_precision = "tf32"
    torch.use_deterministic_algorithms(True, warn_only=True)
    assert "TF32 on" in cuda_numerics() and "deterministic warn-only" in cuda_numerics()
    pin_cuda_numerics()
    assert "TF32 off (matmul ieee, conv ieee)" in cuda_numerics() and "deterministic strict" in cuda_numerics()
    assert torch.are_deterministic_algorithms_enabled() and not torch.is_deterministic_algorithms_warn_only_enabled()


def test_cuda_numerics_never_read_the_legacy_tf32_flags(numerics_restored, monkeypatch) -> None:
    """Newer torch raises on reading ``allow_tf32`` once ``fp32_precision`` is set: neither pinning nor
    describing the numerics may touch it."""
    from llm_claims_lab.core import devices

    class Refusing:
        def __init__(self, real):
            object.__setattr__(self, "real", real)

        def __getattr__(self, name):
            if name == "allow_tf32":
                raise RuntimeError("legacy TF32 API read after fp32_precision was set")
            return getattr(self.real, name)

        def __setattr__(self, name, value):
            if name == "allow_tf32":
                raise RuntimeError("legacy TF32 API set")
            setattr(self.real, name, value)

    monkeypatch.setattr(torch.backends.cuda, "matmul", Refusing(torch.backends.cuda.matmul))
    devices.pin_cuda_numerics()
    assert "TF32 off" in devices.cuda_numerics()


def test_gpu_run_without_its_calibration_is_judged_by_the_cpu_one_named(monkeypatch) -> None:
    from llm_claims_lab.extrapolation import calibration as extrapolation  # Calibration's module, patched
    from llm_claims_lab.core.cache import code_digest

    data = extrapolation.load_calibration(CALIBRATION_DIR / extrapolation.CALIBRATION)
    monkeypatch.setattr(extrapolation, "load_calibration",
                        lambda path: {**data, "training_code": code_digest(extrapolation.TRAINING_CODE)})
    cpu = extrapolation.Calibration.for_device("cpu", CALIBRATION_DIR)
    assert cpu.note == f" (extrapolation.json: {data['device']}, torch {data['torch']})"
    cuda = extrapolation.Calibration.for_device("cuda", CALIBRATION_DIR)
    assert "no extrapolation-cuda.json committed: judged with the CPU calibration" in cuda.note
    assert cuda.note in cuda.describe("rope", "acc40")


def test_calibration_under_other_training_code_says_so(monkeypatch) -> None:
    from llm_claims_lab.extrapolation import calibration as extrapolation  # Calibration's module, patched

    data = extrapolation.load_calibration(CALIBRATION_DIR / extrapolation.CALIBRATION)
    monkeypatch.setattr(extrapolation, "load_calibration", lambda path: {
        **data, "training_code": "0" * 64, "equivalent_training_code": {}})
    note = extrapolation.Calibration.for_device("cpu", CALIBRATION_DIR).note
    assert "calibrated under training code 000000000000" in note


ROW_DEVICE = '''
from llm_claims_harness.declare import claim, exact


@claim(id="toy.on_device", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=exact(reason="integers"), reference="1")
def test_on_device(verify, device):
    verify(1, reference=1)

@claim(id="toy.on_cpu", source="test", kind="beyond", expect_source="arithmetic", statement="s",
       tolerance=exact(reason="integers"), reference="1")
def test_on_cpu(verify):
    verify(1, reference=1)
'''


def test_each_row_records_its_device(pytester: pytest.Pytester) -> None:
    """Rows that use the ``device`` fixture ran there; the others on the CPU (here both are the CPU)."""
    import json

    pytester.makeconftest(SUITE_CONFTEST)
    pytester.makepyfile(test_toy=ROW_DEVICE)
    pytester.runpytest("-p", "no:cacheprovider", "--claims-device", "cpu").assert_outcomes(passed=2)
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    assert {r["id"]: r["device"] for r in rows} == {"toy.on_device": "cpu", "toy.on_cpu": "cpu"}
    assert "  - device cpu: " in (pytester.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")
    assert "(rows: cpu 2)" in (pytester.path / LOCAL_REPORT / "CLAIMS.md").read_text(encoding="utf-8")


def test_header_says_which_rows_ran_where() -> None:
    import dataclasses

    from llm_claims_harness.pages import run_lines
    from llm_claims_harness.row import Row

    row = Row.from_dict({"id": "x", "claim_id": "x", "case": None, "post": None, "section": None, "kind": "beyond",
                         "source": "s", "statement": "s", "post_value": None, "unit": "",
                         "tolerance": {"kind": "close", "reason": "r"}, "expected_verdict": "holds",
                         "expect_source": "e", "preregistered_expect": "holds", "preregistered_source": "e",
                         "revision": None, "quote": None, "version": 1, "version_note": "", "deviation": ""})
    rows = [dataclasses.replace(row, device=d) for d in ("cuda:0", "cuda:0", "cpu")]
    lines = run_lines("abcdef123456", {"device": "cuda: NVIDIA H200 (CUDA 12.6, …)"}, rows)
    assert "device cuda: NVIDIA H200 (CUDA 12.6, …) (rows: cuda:0 2, cpu 1)" in lines[2]
    assert lines[0].startswith("- **Run `abcdef12`**: 3 rows")


def test_relative_bias_rows_on_a_gpu_name_the_cpu_calibration_that_judges_them() -> None:
    from llm_claims_lab.extrapolation import relative_probes_for

    assert relative_probes_for("cpu", CALIBRATION_DIR)["note"].startswith("relative_bias.json: torch ")
    cuda = relative_probes_for("cuda", CALIBRATION_DIR)["note"]
    assert "no relative_bias-cuda.json committed: judged with the CPU calibration" in cuda


@pytest.mark.parametrize("script", ["calibrate_extrapolation.py", "calibrate_relative_bias.py", "calibrate_heads.py"])
def test_every_calibration_script_takes_a_device(script: str) -> None:
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "calibration" / script
    out = subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True, check=True).stdout
    assert "--device" in out


def test_extrapolation_deviation_names_no_fixed_device() -> None:
    """The extrapolation rows' deviation is true on every device: it says where the run trained, not 'CPU'."""
    from claims.extrapolation_common import DEVIATION

    assert "trained on CPU" not in DEVIATION and "the run's device" in DEVIATION
