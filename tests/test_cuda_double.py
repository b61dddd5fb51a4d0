"""The trainers' CUDA branches, run without a GPU on a test double of CUDA.

PyTorch's ``meta`` device holds shapes without data, but it accepts what CUDA refuses: a CPU generator for a
meta draw, and a CPU tensor indexed by a meta index; and it has no generator, so ``torch.Generator(device)``
(the trainers' CUDA branch) cannot run on it. :class:`CudaLike` is a torch-function mode over ``meta`` that
refuses both, as CUDA does, gives ``meta`` a stand-in generator, and counts host-to-device copies. Each
trainer runs its whole non-CPU branch under it, so a device mix, a generator of the wrong device, or a copy
from the host every step shows up on any machine.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

from llm_claims_lab.heads import lab as heads
from llm_claims_lab.extrapolation import ExtrapolationConfig, eval_batch, train

META = torch.device("meta")
RealGenerator = torch.Generator
# ops that move or compare tensors across devices, which CUDA allows too
CROSS_DEVICE = {torch.Tensor.to, torch.Tensor.copy_, torch.Tensor.cpu, torch._has_compatible_shallow_copy_type}


class Generator(RealGenerator):
    """``torch.Generator`` that also exists on ``meta`` (which has none): there it reports ``meta`` as its device
    and is seeded like any other; the draw itself is left to the op (meta draws nothing)."""

    def __new__(cls, device: str | torch.device = "cpu") -> Generator:
        on_meta = torch.device(device).type == "meta"
        g = super().__new__(cls, "cpu" if on_meta else device)
        g.on_meta = on_meta
        return g

    @property
    def device(self) -> torch.device:
        return META if self.on_meta else super().device


class CudaLike(TorchFunctionMode):
    """Refuse, as CUDA does, an op whose tensors are on two devices (a 0-dim CPU tensor, a scalar, aside) and a
    draw whose generator is on another device than the draw; count copies from the CPU to ``meta``."""

    def __init__(self) -> None:
        super().__init__()
        self.host_copies = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        g = kwargs.pop("generator", None)
        tensors = [t for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        devices = {t.device for t in tensors if not (t.device.type == "cpu" and t.dim() == 0)}
        if len(devices) > 1 and func not in CROSS_DEVICE:
            raise RuntimeError(f"Expected all tensors to be on the same device, got {sorted(map(str, devices))} "
                               f"in {getattr(func, '__name__', func)}")
        if g is not None:
            where = torch.device(kwargs.get("device", "cpu")) if not tensors else next(iter(devices), META)
            if g.device.type != where.type:
                raise RuntimeError(f"a {g.device.type} generator for a draw on {where.type} (CUDA refuses it)")
            if where.type != "meta":
                kwargs["generator"] = g
        if func is torch.Tensor.to and args and isinstance(args[0], torch.Tensor) and args[0].device.type == "cpu":
            target = [a for a in (*args[1:], kwargs.get("device")) if isinstance(a, (str, torch.device))]
            if target and torch.device(target[0]).type == "meta":
                self.host_copies += 1
        return func(*args, **kwargs)


@pytest.fixture
def cuda_like(monkeypatch: pytest.MonkeyPatch) -> CudaLike:
    monkeypatch.setattr(torch, "Generator", Generator)
    with CudaLike() as mode:
        yield mode


def test_the_double_refuses_what_cuda_refuses(cuda_like: CudaLike) -> None:
    with pytest.raises(RuntimeError, match="generator for a draw on meta"):
        torch.randint(0, 5, (3,), generator=RealGenerator(), device=META)
    with pytest.raises(RuntimeError, match="same device"):
        torch.arange(5)[torch.zeros(2, dtype=torch.long, device=META)]
    torch.randint(0, 5, (3,), generator=torch.Generator(META), device=META)  # the right generator is accepted


def _copies(mode: CudaLike, run) -> int:
    """Host-to-device copies while ``run()`` runs."""
    mode.host_copies = 0
    run()
    return mode.host_copies


@pytest.mark.parametrize("scheme", ["learned", "sinusoidal", "relative", "alibi", "rope"])
def test_extrapolation_training_on_a_cuda_like_device(cuda_like: CudaLike, scheme: str) -> None:
    config = ExtrapolationConfig(scheme=scheme, steps=3)
    saved = train(config, 1, META, checkpoints=(2,))  # also the warm-up of any one-off copy
    assert {t.device for t in saved.values()} == {META} and any(k.startswith("step2/") for k in saved)
    few = _copies(cuda_like, lambda: train(config, 1, META))
    assert _copies(cuda_like, lambda: train(dataclasses.replace(config, steps=9), 1, META)) == few  # none per step


def test_extrapolation_evaluation_batches_on_a_cuda_like_device(cuda_like: CudaLike) -> None:
    config = ExtrapolationConfig(scheme="rope")
    for L in config.eval_lens:  # drawn from eval_generator on the device, as ExtrapolationLab evaluates
        assert eval_batch(config, 1, L, META, sequences=4).shape == (4, L)


def test_heads_training_copies_nothing_from_the_host_per_step(cuda_like: CudaLike) -> None:
    config = dataclasses.replace(heads.ADD, steps=3)
    heads.train(config, 1, META)  # warm-up
    few = _copies(cuda_like, lambda: heads.train(config, 1, META))
    assert _copies(cuda_like, lambda: heads.train(dataclasses.replace(config, steps=9), 1, META)) == few
