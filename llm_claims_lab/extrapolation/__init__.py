"""Post A's length-extrapolation duel (exp. 3, ``pe_probe.py --exp extrapolate``): model, training, evaluation.

The protocol is the post's (post A, exp. 3), every default of :class:`ExtrapolationConfig`:
50 tokens, ``d_model=128``, token embedding + one positional scheme + one single-head attention layer
without mask (``Wq, Wk, Wv`` drawn ``randn/√D``) + ``Linear(D, V)``; at position ``i`` predict token
``i+1``; 3000 Adam steps (lr 1e-3) on batches of 256 random sequences of length 20; evaluation on 4096
random sequences of length 20, then 40 (then 80 for the schemes beyond the post). The random stream is
the post's too: ``torch.manual_seed(seed)``, the modules initialised in the post's order by torch's own
initialisers, one ``randint`` batch per step, and the evaluation batches drawn from the same stream
after training (on CUDA, batches come from CUDA's generator, as in the post, which ran on CUDA).

Modules:

- :mod:`~llm_claims_lab.extrapolation.model`: the configuration, the positional schemes and the model
  (its fast forward pass and the post's step-by-step one);
- :mod:`~llm_claims_lab.extrapolation.training`: the post's initial weights, batches and training loop, and
  :data:`TRAINING_CODE`, the code the cached weights are fingerprinted by;
- :mod:`~llm_claims_lab.extrapolation.evaluation`: the evaluation batches, what a trained model measures
  (:class:`Run`, :func:`measure`) and the probes of its attention and positional tables;
- :mod:`~llm_claims_lab.extrapolation.guards`: the checks a trained run passes before its accuracy is read
  (finite weights; the positional module its scheme names);
- :mod:`~llm_claims_lab.extrapolation.runs`: :class:`ExtrapolationLab`, runs trained once through the
  weight cache and evaluated once per length, lazily, through the same cache;
- :mod:`~llm_claims_lab.extrapolation.calibration`: the committed calibration (per-seed values) and the noise
  it gives each measured quantity (:class:`Calibration`), read from the calibration directory the caller names;
- :mod:`~llm_claims_lab.extrapolation.figures`: accuracy by position and the learned relative bias.

May import :mod:`llm_claims_lab.core` and :mod:`llm_claims_lab.positional` (``tests/test_library_layout.py``).
Every public name of these modules is importable from this package.
"""

from llm_claims_lab.extrapolation.calibration import (
    CALIBRATION,
    RELATIVE_PROBES,
    Calibration,
    calibration_path,
    load_calibration,
    relative_probes_for,
    relative_probes_path,
)
from llm_claims_lab.extrapolation.evaluation import (
    EVAL_SEED_OFFSET,
    EVAL_SEQUENCES,
    Evaluation,
    PerLength,
    Run,
    correct_with_offsets_masked,
    order_blind_ceiling,
    eval_batch,
    eval_generator,
    evaluate,
    evaluate_batch,
    measure,
    measures,
    positional_peak_gap,
    quantities,
    relative_bias_probes,
)
from llm_claims_lab.extrapolation.guards import PARAMETER_FREE, RunCheckError, check_run
from llm_claims_lab.extrapolation.model import (
    ALIBI_HEADS,
    BEYOND_SCHEMES,
    CLIP_DISTANCE,
    CLIP_SCHEMES,
    CLIP_SWEEP,
    CONTROL_SCHEMES,
    MASK,
    MASKED_SCHEMES,
    MIXED,
    MIXED_SCHEMES,
    HELD,
    HELD_SCHEMES,
    SPREAD,
    FixedRandomPositions,
    NAIVE_SCHEMES,
    NO_POSITION_SCHEMES,
    POST_SCHEMES,
    SCHEMES,
    SWEPT_SCHEMES,
    ExtrapolationConfig,
    ExtrapolationModel,
    positional_scheme,
)
from llm_claims_lab.extrapolation.runs import CURVE_STEPS, EVALUATION_CODE, LONG_CONTEXT, ExtrapolationLab
from llm_claims_lab.extrapolation.training import (
    TRAINING_CODE,
    data_generator,
    initial_model,
    one_thread,
    train,
)
from llm_claims_lab.extrapolation.figures import plot_accuracy_by_position, plot_relative_bias

__all__ = [
    "ALIBI_HEADS", "BEYOND_SCHEMES", "CALIBRATION", "CLIP_DISTANCE", "CLIP_SCHEMES", "CLIP_SWEEP", "MASK",
    "MASKED_SCHEMES", "MIXED", "MIXED_SCHEMES", "HELD", "HELD_SCHEMES", "SPREAD",
    "FixedRandomPositions", "PARAMETER_FREE", "RELATIVE_PROBES", "CONTROL_SCHEMES", "CURVE_STEPS",
    "EVAL_SEED_OFFSET", "EVAL_SEQUENCES", "EVALUATION_CODE", "LONG_CONTEXT", "NAIVE_SCHEMES", "NO_POSITION_SCHEMES", "POST_SCHEMES", "SCHEMES",
    "SWEPT_SCHEMES", "TRAINING_CODE", "Calibration", "Evaluation", "ExtrapolationConfig", "ExtrapolationLab",
    "ExtrapolationModel", "PerLength", "Run", "RunCheckError", "calibration_path", "check_run", "correct_with_offsets_masked", "data_generator",
    "eval_batch", "eval_generator", "evaluate", "evaluate_batch", "initial_model",
    "load_calibration", "measure", "measures", "one_thread", "order_blind_ceiling", "plot_accuracy_by_position", "plot_relative_bias",
    "positional_peak_gap", "positional_scheme", "quantities", "relative_bias_probes", "relative_probes_for",
    "relative_probes_path", "train",
]
