"""A run on a GPU is judged by the calibration measured on its device type when one is committed
(``calibration/<name>-cuda.json``, written by ``calibrate_<name>.py --device cuda``), else by the CPU's, and every
row it judges names the file and, for the CPU's, says so (issue 31, item 5): the heads rows and the word2vec rows
here, as the extrapolation rows do (``tests/test_device.py``). The device calibrations are fakes in a temporary
directory (the committed CPU file with its values changed); ``calibration/`` is only read.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from llm_claims_lab.core.calibration_files import calibration_path, committed_calibration
from llm_claims_lab.heads.rows import ROWS, HeadsCalibration
from llm_claims_lab.word2vec.lab import seed_noise, seed_noise_for

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION_DIR = ROOT / "calibration"
FALLBACK = "committed: judged with the CPU calibration"
GPU_TORCH = "2.13.0+cu126"  # what the fake device calibrations say they were measured under


def _committed(directory: Path, name: str, *, device: bool, change=None) -> None:
    """Copy the committed CPU calibration ``name`` into ``directory``; with ``device``, also a fake
    ``<stem>-cuda.json`` (its torch version GPU_TORCH, its values changed by ``change``, in place)."""
    text = (CALIBRATION_DIR / name).read_text(encoding="utf-8")
    (directory / name).write_text(text, encoding="utf-8")
    if device:
        data = {**json.loads(text), "torch": GPU_TORCH, "device": "cuda (a fake GPU)"}
        change(data)
        calibration_path(name, "cuda", directory).write_text(json.dumps(data), encoding="utf-8")


def _double_heads_values(data: dict) -> None:
    data["per_seed"] = {row: [2 * v for v in values] for row, values in data["per_seed"].items()}


def _double_word2vec_sds(data: dict) -> None:
    data["sd"] = {quantity: 2 * sd for quantity, sd in data["sd"].items()}


def test_the_device_file_is_named_for_the_device_type(tmp_path: Path) -> None:
    assert calibration_path("heads.json", "cpu", tmp_path) == tmp_path / "heads.json"
    assert calibration_path("heads.json", "cuda:1", tmp_path) == tmp_path / "heads-cuda.json"
    assert calibration_path("word2vec.json", torch.device("mps"), tmp_path) == tmp_path / "word2vec-mps.json"


def test_a_missing_cpu_calibration_is_not_called_a_fallback(tmp_path: Path) -> None:
    """On the CPU the file read is always the run's own; its reader says when it is missing."""
    assert committed_calibration("heads.json", "cpu", tmp_path) == (tmp_path / "heads.json", "")


# --- heads ---

def test_heads_on_cuda_read_a_committed_heads_cuda_json(tmp_path: Path) -> None:
    _committed(tmp_path, "heads.json", device=True, change=_double_heads_values)
    cpu, cuda = HeadsCalibration.for_device("cpu", tmp_path), HeadsCalibration.for_device("cuda", tmp_path)
    assert cuda.path == tmp_path / "heads-cuda.json"
    for row in ROWS:
        assert cuda.sd(row, 10) == pytest.approx(2 * cpu.sd(row, 10))
        assert f"heads-cuda.json: torch {GPU_TORCH}" in cuda.describe(row)
        assert FALLBACK not in cuda.describe(row)


def test_heads_on_cuda_without_it_read_the_cpu_file_and_say_so(tmp_path: Path) -> None:
    _committed(tmp_path, "heads.json", device=False)
    cuda = HeadsCalibration.for_device("cuda", tmp_path)
    assert cuda.path == tmp_path / "heads.json"
    for row in ROWS:
        assert "heads.json: torch " in cuda.describe(row)
        assert cuda.describe(row).endswith(f"; no heads-cuda.json {FALLBACK}")


def test_heads_on_the_cpu_read_and_describe_as_before() -> None:
    """A run on the CPU reads heads.json, whatever device files are committed, and its rows' details are unchanged."""
    before, now = HeadsCalibration(CALIBRATION_DIR / "heads.json"), HeadsCalibration.for_device("cpu", CALIBRATION_DIR)
    assert now.path == CALIBRATION_DIR / "heads.json"
    assert [(now.sd(r, 10), now.describe(r)) for r in ROWS] == [(before.sd(r, 10), before.describe(r)) for r in ROWS]


@pytest.mark.parametrize("device_file", [True, False], ids=["heads-cuda.json", "none"])
def test_a_heads_row_on_cuda_is_judged_and_described_by_its_devices_calibration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device_file: bool) -> None:
    """The claims' own row function (``claims/test_heads.py``), given the ``heads_calibration`` fixture's
    calibration (``fixtures/calibrations.py``: ``HeadsCalibration.for_device``), judges a row measured on CUDA with the noise of the CUDA calibration
    when committed, else the CPU's, and its details name the file that judged it, the file the rows name."""
    from claims import test_heads as heads_claims

    _committed(tmp_path, "heads.json", device=device_file, change=_double_heads_values)
    monkeypatch.setattr(heads_claims, "per_seed", lambda lab, row: [0.6] * len(lab.seeds))
    lab = SimpleNamespace(device=torch.device("cuda"), seeds=list(range(42, 52)))
    judged = {}
    row = "heads.positional_vs_content[positional_head]"
    cal = HeadsCalibration.for_device(lab.device, tmp_path)  # as the heads_calibration fixture reads it
    heads_claims._verify_row(lambda value, **kw: judged.update(kw, value=value), lab, cal, row, {}, bound=0.5)
    expected = HeadsCalibration(tmp_path / ("heads-cuda.json" if device_file else "heads.json"))
    assert cal.path == tmp_path / ("heads-cuda.json" if device_file else "heads.json")  # the file the rows name
    assert judged["noise"] == expected.sd(row, 10)
    assert judged["details"]["noise"].startswith(expected.describe(row))
    assert (FALLBACK in judged["details"]["noise"]) is not device_file
    assert judged["details"]["what would decide it"]["calibration's mean from the bound (SEs)"] == round(
        expected.margin_sigmas(row, 0.5), 2)


# --- word2vec ---

WORD2VEC = json.loads((CALIBRATION_DIR / "word2vec.json").read_text(encoding="utf-8"))
QUANTITIES, SEEDS = WORD2VEC["sd"], f"{WORD2VEC['seeds'][0]}–{WORD2VEC['seeds'][-1]}"


def test_word2vec_on_cuda_reads_a_committed_word2vec_cuda_json(tmp_path: Path) -> None:
    _committed(tmp_path, "word2vec.json", device=True, change=_double_word2vec_sds)
    for quantity, cpu_sd in QUANTITIES.items():
        sd, note = seed_noise_for(quantity, "fast", "cuda", tmp_path)
        assert sd == pytest.approx(2 * cpu_sd)
        assert f"(word2vec-cuda.json, torch {GPU_TORCH})" in note and FALLBACK not in note


def test_word2vec_on_cuda_without_it_reads_the_cpu_file_and_says_so(tmp_path: Path) -> None:
    _committed(tmp_path, "word2vec.json", device=False)
    for quantity, cpu_sd in QUANTITIES.items():
        sd, note = seed_noise_for(quantity, "fast", "cuda", tmp_path)
        assert sd == cpu_sd
        assert "(word2vec.json, torch " in note and note.endswith(f"; no word2vec-cuda.json {FALLBACK}")


def test_word2vec_on_the_cpu_reads_and_notes_as_before() -> None:
    path = CALIBRATION_DIR / "word2vec.json"
    for quantity in QUANTITIES:
        assert seed_noise_for(quantity, "fast", "cpu", CALIBRATION_DIR) == seed_noise(quantity, "fast", path)


@pytest.mark.parametrize("device_file", [True, False], ids=["word2vec-cuda.json", "none"])
def test_the_word2vec_rows_noise_follows_the_labs_device(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device_file: bool) -> None:
    """What every word2vec row that reads a calibration calls (the ``w2v_seed_noise`` fixture's function,
    ``fixtures/calibrations.py``) takes the lab's device: the CUDA file when committed, else the CPU's, named and
    said so; the file it names for the rows' provenance is the one it reads."""
    from fixtures.calibrations import w2v_noise

    _committed(tmp_path, "word2vec.json", device=device_file, change=_double_word2vec_sds)
    lab = SimpleNamespace(device=torch.device("cuda"), config=SimpleNamespace(kernels="fast"))
    noise, path = w2v_noise(lab, tmp_path)
    sd, note = noise("trained")
    assert path == tmp_path / ("word2vec-cuda.json" if device_file else "word2vec.json")
    assert sd == pytest.approx((2 if device_file else 1) * QUANTITIES["trained"])
    file = "word2vec-cuda.json" if device_file else "word2vec.json"
    assert note.startswith(f"SD of ρ over training seeds {SEEDS} ({file}, ")
    assert (FALLBACK in note) is not device_file


def test_the_word2vec_calibration_takes_a_device() -> None:
    """``calibrate_word2vec.py --device cuda`` is how word2vec-cuda.json is made (as calibrate_heads.py's for heads)."""
    out = subprocess.run([sys.executable, str(CALIBRATION_DIR / "calibrate_word2vec.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert "--device" in out and "word2vec-<device type>.json" in " ".join(out.split())
