"""Checks that a trained run is the run its scheme names, before any row reads an accuracy from it.

A trained model whose weights went non-finite scores its argmax on NaN logits, an accuracy that measures nothing;
a parameter-free scheme (sinusoidal PE, the raw integers, ALiBi, RoPE) whose module holds trainable parameters, or
sinusoidal PE that is not the fixed table of Vaswani et al. 2017 (post A, exp. 3 ``sinusoidal``), is another scheme
under its name (issue 43: a sinusoidal scheme that trained a learned table passed every sinusoidal row, 52.49 % at
40). :func:`check_run` raises on either, so each row that reads the run errors with the reason instead of judging it.
"""

from __future__ import annotations

import torch

from llm_claims_lab.extrapolation.model import ExtrapolationModel
from llm_claims_lab.positional import sinusoidal_table

PARAMETER_FREE = ("sinusoidal", "raw_integer", "alibi", "alibi_symmetric", "rope", "nope",
                  "random_fixed")  # base schemes with no weights


class RunCheckError(RuntimeError):
    """A trained run is not a measurement of its scheme: non-finite weights, or a positional module that is not
    the one the scheme names."""


def check_run(model: ExtrapolationModel, step: int) -> None:
    """Check a trained ``model`` (after ``step`` steps) before its accuracy is read.

    Raises:
        RunCheckError: a parameter is NaN or infinite; a parameter-free scheme's positional module has trainable
            parameters; sinusoidal PE's table ``[2·max_len, D]`` differs from :func:`sinusoidal_table` by more
            than float32 rounding (``4 · ε₃₂ · 2·max_len``: the angle ``pos · ω`` is rounded to about ``ε₃₂ · pos``,
            and sin and cos are 1-Lipschitz; 3.8e-5 at the protocol's 80 positions; a wrong base differs by ~1);
            NoPE's table is not all zeros.
    """
    c = model.config
    where = f"the {c.scheme} run after {step:,} steps"
    bad = [name for name, p in model.named_parameters() if not torch.isfinite(p).all()]
    if bad:
        raise RunCheckError(f"{where} has non-finite weights ({', '.join(bad)}): training diverged, and an accuracy "
                            "read from NaN logits measures nothing")
    learnable = [name for name, _ in model.pos.named_parameters()]
    if c.base_scheme in PARAMETER_FREE and learnable:
        raise RunCheckError(f"{where}: its positional module {type(model.pos).__name__} has trainable parameters "
                            f"({', '.join(learnable)}), but {c.base_scheme} is parameter-free: the run is another "
                            "scheme under its name")
    if c.base_scheme == "sinusoidal":
        T = 2 * c.max_len
        with torch.no_grad():
            table = model.pos(T).detach().to("cpu", torch.float64)  # [T, D]
        gap = (table - sinusoidal_table(T, c.d_model, dtype=torch.float64)).abs().max().item()
        if not gap <= 4 * torch.finfo(torch.float32).eps * T:
            raise RunCheckError(f"{where}: its positional table differs from the fixed sinusoid of Vaswani et al. "
                                f"2017 by up to {gap:.3g}: the run is another scheme under its name")
    if c.base_scheme == "nope":
        with torch.no_grad():
            leak = model.pos(2 * c.max_len).abs().max().item()  # [2·max_len, D] must be zeros
        if leak != 0:
            raise RunCheckError(f"{where}: its positional table is not zero (up to {leak:.3g}): a position signal "
                                "leaks into the run without positions")
