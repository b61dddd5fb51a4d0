"""RoPE keeps its frequencies on the device it rotates on (issue 31) and still rotates, on the CPU, exactly
as the paper's formula does: bit for bit, so the move is certified at float-rounding level (zero) and the
weights trained before it stay valid (``calibration/calibrate_extrapolation.py --certify-code 42`` checks the
trained weights themselves).

The reference is Su et al. 2021 (RoFormer), eq. 34: ``R x = x ⊙ cos(mθ) + rot(x) ⊙ sin(mθ)`` with
``rot(x) = (−x₂, x₁, −x₄, x₃, …)``, each ``θ_i`` shared by one (2i, 2i+1) pair, and post B's (Vaswani et
al.'s) ``θ_i = 1/base^(2i/D)``; angles in float32 or wider, the rotation in float32 or wider, as
:func:`~llm_claims_lab.positional.apply_rope`'s dtype rule says.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from llm_claims_lab.positional import BASE, RotaryPositionEmbedding, apply_rope
from llm_claims_lab.positional.absolute import _angle_dtype
from llm_claims_lab.positional.rope import _frequencies_on

Rope = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def paper_rope(x: torch.Tensor, positions: torch.Tensor, *, theta_exponent_sign: bool = False,
               halves: bool = False) -> torch.Tensor:
    """Su et al. 2021 eq. 34 on ``x: [..., T, D]`` at ``positions: [T]`` → ``[..., T, D]``. The two flags
    plant a broken variant: ``theta_exponent_sign`` computes ``θ_i`` as ``base^(−2i/D)`` (the same number,
    rounded differently), ``halves`` pairs channel ``i`` with ``i + D/2`` (GPT-NeoX's layout, not the
    paper's)."""
    D, wide, work = x.shape[-1], _angle_dtype(x.dtype), torch.promote_types(x.dtype, torch.float32)
    two_i = torch.arange(0, D, 2, dtype=wide)  # [D/2]
    theta = BASE ** (-two_i / D) if theta_exponent_sign else 1.0 / BASE ** (two_i / D)  # [D/2]
    angle = positions.to(wide)[:, None] * theta  # [T, D/2]
    cos, sin = angle.cos().to(work), angle.sin().to(work)  # [T, D/2]
    v = x.to(work)
    if halves:
        first, second = v[..., : D // 2], v[..., D // 2:]
        return torch.cat([first * cos - second * sin, second * cos + first * sin], -1).to(x.dtype)
    rot = torch.stack([-v[..., 1::2], v[..., 0::2]], -1).flatten(-2)  # [..., T, D]: (−x₂, x₁, −x₄, …)
    return (v * cos.repeat_interleave(2, -1) + rot * sin.repeat_interleave(2, -1)).to(x.dtype)


def rotates_as_the_paper(rope: Rope, reference: Rope = paper_rope) -> bool:
    """Whether ``rope`` gives ``reference``'s bits on random queries of every dtype, width and kind of
    position the suite rotates (the extrapolation model's ±(T−1) offsets, far positions up to 10⁶)."""
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        for D, T in ((2, 1), (6, 8), (128, 39), (64, 80)):
            x = (3 * torch.randn(2, T, D, generator=g)).to(dtype)  # [2, T, D]
            far = torch.randint(-10**6, 10**6, (T,), generator=g)  # [T]
            for positions in (torch.arange(T), torch.arange(T) - T // 2, far):
                if not torch.equal(rope(x, positions), reference(x, positions)):
                    return False
    return True


def test_rope_rotates_as_the_paper_bit_for_bit_on_the_cpu() -> None:
    assert rotates_as_the_paper(apply_rope)
    assert rotates_as_the_paper(RotaryPositionEmbedding())


@pytest.mark.parametrize("planted", ["theta_exponent_sign", "halves"])
def test_a_rounding_level_or_layout_change_is_caught(planted: str) -> None:
    """The bitwise check is sharp: frequencies that differ from the code's in their last bit only, or the
    half-split layout (a rotation with the same relative property), both fail it."""
    assert not rotates_as_the_paper(apply_rope, lambda x, p: paper_rope(x, p, **{planted: True}))


def test_frequencies_are_cached_per_device_and_stay_the_cpus() -> None:
    _frequencies_on.cache_clear()
    on_meta = _frequencies_on(128, BASE, torch.float32, torch.device("meta"))
    assert on_meta.device.type == "meta" and on_meta.shape == (64,)
    assert _frequencies_on(128, BASE, torch.float32, torch.device("meta")) is on_meta  # built once
    assert _frequencies_on.cache_info().misses == 1


def test_a_cache_filled_without_autograd_still_trains() -> None:
    """The cache is shared by every call: one filled under ``torch.inference_mode`` must still serve a
    backward pass."""
    _frequencies_on.cache_clear()
    with torch.inference_mode():
        apply_rope(torch.randn(3, 16), torch.arange(3))
    x = torch.randn(3, 16, requires_grad=True)
    apply_rope(x, torch.arange(3)).square().sum().backward()
    assert x.grad is not None and x.grad.shape == (3, 16)
