"""Every noise the report uses, recomputed independently (issue 43, item 5): from each committed calibration's raw
per-seed values with numpy (the sample SD, ``ddof=1``; ÷ √n only where n seeds are averaged; the evaluation set's
part never divided, since the seeds share it), against what the calibration files store and what the library's
noise functions return; and the Korean WS-353 reader against an independent reading of the published file (the csv
module; an identical pair scores 10).

Each check is a function returning what disagrees, so that the planted bugs of the audit are shown to fail it: a
5-seed SD computed with ``ddof = 0`` (in ``Calibration.diff_sd``, the heads' SD, or a calibration file), a √N division
applied to an evaluation-set noise, and WS-353 scores read one row off."""

from __future__ import annotations

import copy
import csv
import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from llm_claims_lab.core import stats
from llm_claims_lab.extrapolation import calibration as extrapolation_calibration
from llm_claims_lab.extrapolation.calibration import Calibration
from llm_claims_lab.heads import rows as heads_rows
from llm_claims_lab.heads.rows import HeadsCalibration
from llm_claims_lab.word2vec import ko_eval
from llm_claims_lab.word2vec.lab import seed_noise

ROOT = Path(__file__).resolve().parents[1]
CAL = ROOT / "calibration"
RTOL = 1e-9  # float64 arithmetic in two orders: agreement to rounding; ddof=0 at 5 seeds is off by 11 %, at 40 by 1.3 %
# word2vec.json and relative_bias.json keep each seed's value to 6–7 digits and their SD from the unrounded values:
# ~2e-5 apart, far inside the 1.3–11 % a ddof of 0 makes
ROUNDED_RTOL = 1e-4
SEEDS = (1, 2, 5, 10)  # how many run seeds a row averages (the suite's default 1; --claims-seeds N)


def _load(name: str) -> dict:
    return json.loads((CAL / name).read_text(encoding="utf-8"))


def _close(a: float, b: float, rtol: float = RTOL) -> bool:
    return math.isclose(a, b, rel_tol=rtol, abs_tol=1e-15)


def _sd(values) -> float:
    return float(np.std(np.asarray(values, dtype=np.float64), ddof=1))


def stored_noise_errors(data: dict, rtol: float = RTOL) -> list[str]:
    """Where a calibration's stored ``noise`` (``n``, ``mean``, ``sd``; ``eval_sd`` the RMS of the seeds' evaluation
    standard errors and ``seed_sd`` = √max(sd² − eval_sd², 0)) is not what its raw ``runs`` give, in every section
    (the protocol's and each ``steps_sweep`` one)."""
    out = []
    sections = {"protocol": data, **{f"steps {k}": v for k, v in data.get("steps_sweep", {}).items()}}
    for where, section in sections.items():
        for scheme, quantities in section["noise"].items():
            runs = section["runs"][scheme]
            if "sd" in quantities:  # one quantity per entry (relative_bias.json): runs[quantity] is its values
                quantities, runs = {scheme: quantities}, {scheme: runs}
            for quantity, n in quantities.items():
                values = runs[quantity]
                want = {"n": len(values), "mean": float(np.mean(values)), "sd": _sd(values)}
                if f"{quantity}_eval_se" in runs:
                    ev = float(np.sqrt(np.mean(np.square(runs[f"{quantity}_eval_se"]))))
                    want |= {"eval_sd": ev, "seed_sd": math.sqrt(max(want["sd"] ** 2 - ev ** 2, 0.0))}
                out += [f"{where} {scheme} {quantity} {k}: stored {n.get(k)}, recomputed {v}"
                        for k, v in want.items() if n.get(k) is None or not _close(n[k], v, rtol)]
    return out


def extrapolation_noise_errors(cal: Calibration) -> list[str]:
    """Where :meth:`Calibration.sd` and :meth:`Calibration.diff_sd` (the noise of every extrapolation row) are not
    the sample SD of the raw per-seed values (or of their paired differences) ÷ √seeds, floored at one evaluation
    sequence."""
    floor = 100 / cal.data["eval_sequences"]
    out = []
    for scheme, quantities in cal.data["noise"].items():
        for quantity in quantities:
            for k in SEEDS:
                got, want = cal.sd(scheme, quantity, seeds=k), max(_sd(cal.values(scheme, quantity)) / math.sqrt(k), floor)
                if not _close(got, want):
                    out.append(f"sd {scheme} {quantity} ×{k}: {got} ≠ {want}")
        for quantity in ("acc40", "new40", "seen40"):
            if quantity not in quantities:
                continue
            a, b = np.asarray(cal.values(scheme, quantity)), np.asarray(cal.values(scheme, "acc20"))
            for k in SEEDS:
                got = cal.diff_sd((scheme, quantity), (scheme, "acc20"), seeds=k)
                want = max(_sd(a - b) / math.sqrt(k), floor)
                if not _close(got, want):
                    out.append(f"diff_sd {scheme} {quantity} − acc20 ×{k}: {got} ≠ {want}")
    if "learned" in cal.data["runs"] and "sinusoidal" in cal.data["runs"]:
        a, b = (np.asarray(cal.values(s, "acc20")) for s in ("learned", "sinusoidal"))
        for k in SEEDS:
            got = cal.diff_sd(("learned", "acc20"), ("sinusoidal", "acc20"), seeds=k)
            if not _close(got, max(_sd(a - b) / math.sqrt(k), floor)):
                out.append(f"diff_sd learned − sinusoidal acc20 ×{k}: {got}")
    return out


def heads_noise_errors(cal: HeadsCalibration) -> list[str]:
    """Where a heads row's noise (:meth:`HeadsCalibration.sd`) or the file's stored summary is not the sample SD of
    the calibration seeds' values (÷ √seeds for a mean of that many runs)."""
    out = []
    for row, values in cal.data["per_seed"].items():
        for k in SEEDS:
            if not _close(cal.sd(row, k), _sd(values) / math.sqrt(k)):
                out.append(f"{row} ×{k}: {cal.sd(row, k)} ≠ {_sd(values) / math.sqrt(k)}")
        stored = cal.data["summary"][row]
        if not (_close(stored["sd"], _sd(values)) and _close(stored["mean"], float(np.mean(values)))):
            out.append(f"{row} summary {stored} ≠ mean {np.mean(values)}, sd {_sd(values)}")
    return out


def word2vec_noise_errors(path: Path) -> list[str]:
    """Where the word2vec calibration's stored SD of ρ, or what :func:`seed_noise` gives a row, is not the sample SD
    of the seeds' ρ."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for quantity, values in data["rho"].items():
        want = _sd(values)
        if not _close(data["sd"][quantity], want, ROUNDED_RTOL):
            out.append(f"stored sd {quantity}: {data['sd'][quantity]} ≠ {want}")
        got, _ = seed_noise(quantity, data["kernels"], path)
        if not _close(got, want, ROUNDED_RTOL):
            out.append(f"seed_noise {quantity}: {got} ≠ {want}")
    return out


def mean_over_seeds_errors() -> list[str]:
    """Where :func:`stats.mean_over_seeds` (a row's value and noise over the run's seeds) divides the evaluation
    set's noise by √n (the seeds share one evaluation set), or does not divide the seeds' SD by it."""
    out = []
    values, eval_sd, seed_sd = [0.21, 0.26, 0.19, 0.24], 0.06, 0.05
    for n in (2, 4):
        v = values[:n]
        got = stats.mean_over_seeds(v, eval_sd)[1]
        want = math.hypot(eval_sd, _sd(v) / math.sqrt(n))
        if not _close(got, want):
            out.append(f"{n} seeds, own spread: {got} ≠ {want}")
        got = stats.mean_over_seeds(v, eval_sd, seed_sd)[1]
        if not _close(got, math.hypot(eval_sd, seed_sd / math.sqrt(n))):
            out.append(f"{n} seeds, calibrated spread: {got}")
    if stats.mean_over_seeds(values[:1], eval_sd)[1] != eval_sd:
        out.append("one seed: its noise is the evaluation set's alone")
    return out


def ws353_errors(path: Path) -> list[str]:
    """Where :func:`ko_eval.load_ws353` differs from the csv module's reading of the same file, pair by pair, or an
    identical pair does not score 10 (WS-353's instructions: 10 for identical words; Finkelstein et al. 2002)."""
    with path.open(encoding="utf-8-sig", newline="") as fh:
        published = [(r["word 1"].strip(), r["word 2"].strip(), float(r["kor_score"])) for r in csv.DictReader(fh)]
    read = [(p.first, p.second, p.score) for p in ko_eval.load_ws353(path)]
    out = [f"pair {i + 1}: read {a}, published {b}" for i, (a, b) in enumerate(zip(read, published)) if a != b]
    if len(read) != len(published):
        out.append(f"{len(read)} pairs read, {len(published)} published")
    out += [f"identical pair {w1},{w2} scores {s}" for w1, w2, s in read if w1 == w2 and s != 10.0]
    return out


def test_the_stored_noise_of_each_calibration_is_its_raw_values() -> None:
    for name, rtol in (("extrapolation.json", RTOL), ("relative_bias.json", ROUNDED_RTOL)):
        assert stored_noise_errors(_load(name), rtol) == [], name


def test_the_extrapolation_rows_noise_is_recomputed() -> None:
    assert extrapolation_noise_errors(Calibration(extrapolation_calibration.load_calibration(CAL / "extrapolation.json"))) == []


def test_the_heads_rows_noise_is_recomputed() -> None:
    assert heads_noise_errors(HeadsCalibration(CAL / "heads.json")) == []


def test_the_word2vec_rows_noise_is_recomputed() -> None:
    assert word2vec_noise_errors(CAL / "word2vec.json") == []


def test_the_seeds_mean_divides_only_the_seeds_spread() -> None:
    assert mean_over_seeds_errors() == []


def test_the_ws353_reader_gives_the_published_scores(ko_eval_dir: Path) -> None:
    assert ws353_errors(ko_eval_dir / ko_eval.WS353_FILE) == []


# --- the planted bugs: each check above fails on one -------------------------------------------------------------

def test_planted_ddof0_in_diff_sd_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extrapolation_calibration.statistics, "stdev", statistics.pstdev)
    cal = Calibration(extrapolation_calibration.load_calibration(CAL / "extrapolation.json"))
    assert any(e.startswith("diff_sd") for e in extrapolation_noise_errors(cal))


def test_planted_ddof0_in_the_heads_noise_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heads_rows.statistics, "stdev", statistics.pstdev)
    assert heads_noise_errors(HeadsCalibration(CAL / "heads.json"))


def test_planted_ddof0_in_a_calibration_file_fails(tmp_path: Path) -> None:
    data = copy.deepcopy(_load("extrapolation.json"))
    noise = data["noise"]["learned"]["acc40"]
    noise["sd"] = float(np.std(data["runs"]["learned"]["acc40"], ddof=0))
    assert stored_noise_errors(data)
    w2v = _load("word2vec.json")
    w2v["sd"]["trained"] = float(np.std(w2v["rho"]["trained"], ddof=0))  # 5 seeds: 10.6 % smaller
    (tmp_path / "word2vec.json").write_text(json.dumps(w2v), encoding="utf-8")
    assert word2vec_noise_errors(tmp_path / "word2vec.json")


def test_planted_sqrt_n_on_the_evaluation_noise_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    right = stats.mean_over_seeds

    def divided(values, eval_sd, seed_sd=None):
        return right(values, eval_sd / math.sqrt(len(values)), seed_sd)

    monkeypatch.setattr(stats, "mean_over_seeds", divided)
    assert mean_over_seeds_errors()


def test_planted_ws353_scores_one_row_off_fails(ko_eval_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader gives each pair the next line's score: every pair disagrees with the csv reading, and the identical
    pair (호랑이, 호랑이) no longer scores 10."""
    right = ko_eval.load_ws353

    def one_row_off(path: Path) -> list[ko_eval.ScoredPair]:
        pairs = right(path)
        return [ko_eval.ScoredPair(p.first, p.second, pairs[(i + 1) % len(pairs)].score) for i, p in enumerate(pairs)]

    monkeypatch.setattr(ko_eval, "load_ws353", one_row_off)
    errors = ws353_errors(ko_eval_dir / ko_eval.WS353_FILE)
    assert len(errors) > 300 and any(e.startswith("identical pair 호랑이,호랑이") for e in errors)
