"""Shared by the length-extrapolation claims (``test_extrapolation*.py``): the protocol's source and
deviation, the effect-size tolerances, post A's table, and the mean and calibrated noise of a row over seeds.

Not a test module (no ``test_`` prefix): the claim modules import it as ``claims.extrapolation_common``, a name that resolves
from the repository root (``pythonpath = ["."]``) under every pytest import mode, ``importlib`` included.
"""

from __future__ import annotations

import statistics

from llm_claims_harness.declare import Quote, at_least, at_most, close
from llm_claims_lab.extrapolation import CURVE_STEPS, EVAL_SEQUENCES, Calibration, ExtrapolationLab, measure

SOURCE = "Post A, exp. 3 'pe_probe.py --exp extrapolate'"
CHANCE = 100 / 50  # % : one token in 50
SWEEP_STEPS = max(CURVE_STEPS)  # 2× the protocol's 3000
DEVIATION = (f"Evaluated on {EVAL_SEQUENCES:,} sequences per length drawn from their own generator (seed + 10⁶), "
             "not 4,096 drawn from the training stream as in the post, so that evaluation noise is small and "
             "independent of training; trained on the run's device (each row's device): on the CPU the batches come from "
             "the CPU generator, whose numbers for the same seed differ from those of CUDA's, which the post used; on "
             "CUDA from CUDA's, as in the post. Noise: the calibration of the row's device type, or the CPU's, as each "
             "row names. The forward pass is reassociated (same function, float rounding only).")
REPRODUCE = close(reason="effect size: within 5 pp of the post's number, a tenth of the ~50 pp between success (100 %) "
                  "and the post's failure (~50 %); a smaller gap changes nothing the post concludes, and exceeds "
                  "the post's own single-run noise (≤ 1.96 × seed SD ≈ 1.3 pp at most)", atol=5.0)
KEEPS = at_least(-5.0, reason="effect size: 'keeps its accuracy' = loses at most 5 pp from length 20, a fifth of the "
                       "smallest failure the post reports (relative bias: −23.4 pp at 40)")
NOT_AUTOMATIC = at_most(KEEPS.bound, reason=f"effect size: 'not solved automatically' = the model does not keep at the "
                                     f"longer length the accuracy it has at the training length, i.e. it loses more "
                                     f"than the {-KEEPS.bound:g} pp that 'keeps its accuracy' allows (the beyond rows' "
                                     "bound: a fifth of the smallest failure post A reports, −23.4 pp at 40)")
# post B, '왜 하필 sin과 cos인가': the sentence pos.sin_relative_rules_easy and extrap.sin_relative_rule_carries read
EASY_TO_LEARN = Quote("sinusoidal positional encoding은 모델이 이런 상대 위치 규칙을 배우기 쉬운 좌표계를 깔아 준다",
                      "sinusoidal positional encoding lays down coordinates in which the model easily learns such "
                      "relative-position rules")
LEARNS = at_least(95.0, reason="effect size: the task is learned at the training length when at most 5 pp short of the "
                        "100 % that post A's three schemes reach")


def _mean(lab: ExtrapolationLab, scheme: str, seeds: list[int], quantity: str, *, sweep: bool = False) -> float:
    """Mean over ``seeds`` of a :func:`measure` quantity (after the sweep's longest budget with ``sweep``)."""
    runs = [c[SWEEP_STEPS] for c in lab.curves([scheme], seeds)] if sweep else lab.runs([scheme], seeds)
    return statistics.fmean(measure(run, quantity) for run in runs)


def _noise(cal: Calibration, scheme: str, quantity: str, seeds: list[int]) -> tuple[float, dict]:
    """The SD of a mean over ``seeds`` of ``quantity``, and the details that say where it comes from."""
    return cal.sd(scheme, quantity, seeds=len(seeds)), {"noise": cal.describe(scheme, quantity),
                                                        "seeds": len(seeds)}


POST_RUNS = {"learned": (100.0, 52.4), "sinusoidal": (100.0, 50.8), "relative": (100.0, 76.6)}  # % at 20, 40


def _drop_noise(cal: Calibration, scheme: str, L: int, seeds: list[int]) -> tuple[float, dict]:
    """The SD of a mean over ``seeds`` of ``acc{L} − acc20``, and details: where it comes from and how many
    calibration seeds fell below the :data:`KEEPS` bound (a heavy tail shows there, not in the SD)."""
    sd = cal.diff_sd((scheme, f"acc{L}"), (scheme, "acc20"), seeds=len(seeds))
    drops = [b - a for a, b in zip(cal.values(scheme, "acc20"), cal.values(scheme, f"acc{L}"))]
    below = sum(d < KEEPS.bound for d in drops)
    return sd, {"noise": f"SD of acc{L} − acc20 over {len(drops)} calibration seeds of {scheme}{cal.note}",
                f"calibration seeds below {KEEPS.bound:g} pp": f"{below} of {len(drops)} (worst {min(drops):.1f} pp)",
                "seeds": len(seeds)}
