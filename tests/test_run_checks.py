"""The checks a trained extrapolation run passes before a row reads it (:func:`llm_claims_lab.extrapolation.check_run`).

The planted bugs that reach the rows through training are in ``test_trained_claims_catch_bugs.py``
(``sinusoidal_trains_a_table``, ``raw_integer_nan``); these are the same checks on untrained models, in milliseconds.
"""

from __future__ import annotations

import pytest
import torch

from llm_claims_lab.extrapolation import SCHEMES, ExtrapolationConfig, RunCheckError, check_run, initial_model
from llm_claims_lab.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_scheme_as_built_passes(scheme: str) -> None:
    check_run(initial_model(ExtrapolationConfig(scheme=scheme), 0)[0], 0)


def test_non_finite_weights_are_refused() -> None:
    model, _ = initial_model(ExtrapolationConfig(scheme="raw_integer"), 0)
    with torch.no_grad():
        model.out.weight[0, 0] = float("nan")
    with pytest.raises(RunCheckError, match=r"non-finite weights \(out.weight\)"):
        check_run(model, 3000)


def test_a_parameter_free_scheme_with_a_table_is_refused() -> None:
    config = ExtrapolationConfig(scheme="sinusoidal")
    model, _ = initial_model(config, 0)
    model.pos = LearnedPositionalEmbedding(config.max_len, config.d_model)
    with pytest.raises(RunCheckError, match="has trainable parameters"):
        check_run(model, 3000)


def test_fixed_random_coordinates_that_train_are_refused() -> None:
    config = ExtrapolationConfig(scheme="random_fixed_held")
    model, _ = initial_model(config, 0)
    model.pos = LearnedPositionalEmbedding(config.max_len, config.d_model, init_std=2 ** -0.5)  # forgot to freeze
    with pytest.raises(RunCheckError, match="has trainable parameters"):
        check_run(model, 3000)


def test_a_sinusoid_with_another_base_is_refused() -> None:
    model, _ = initial_model(ExtrapolationConfig(scheme="sinusoidal"), 0)
    model.pos = SinusoidalPositionalEncoding(model.config.d_model, base=1000.0)
    with pytest.raises(RunCheckError, match="differs from the fixed sinusoid"):
        check_run(model, 3000)


def test_a_run_without_positions_that_sees_positions_is_refused() -> None:
    model, _ = initial_model(ExtrapolationConfig(scheme="nope"), 0)
    model.pos = SinusoidalPositionalEncoding(model.config.d_model)  # parameter-free, so only the zero check sees it
    with pytest.raises(RunCheckError, match="a position signal leaks"):
        check_run(model, 3000)
