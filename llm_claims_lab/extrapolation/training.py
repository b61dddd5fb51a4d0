"""Post A's training of the length-extrapolation model: its initial weights, its batches and its loop.

Training (and evaluation) run on one CPU thread: these small operations gain nothing from a second (see
``benchmarks/bench_extrapolation.py``), ``pytest -n 2`` can then train two models at once, and the weights
do not depend on the machine's core count. :data:`TRAINING_CODE` lists the code the trained weights depend on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.positional import attention
from llm_claims_lab.core.devices import one_thread
from llm_claims_lab.positional import absolute, biases, nope, rope
from llm_claims_lab.extrapolation.model import (ExtrapolationConfig, ExtrapolationModel, FixedRandomPositions,
                                                positional_scheme)


def initial_model(config: ExtrapolationConfig, seed: int) -> tuple[ExtrapolationModel, torch.Tensor]:
    """The post's initial model for ``seed`` and the CPU random state right after it was built.

    Uses torch's global generator as the post does, inside :func:`torch.random.fork_rng`, so the
    caller's global random state is left untouched.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = ExtrapolationModel(config)
        return model, torch.get_rng_state()


def data_generator(seed: int, cpu_state: torch.Tensor, device: torch.device) -> torch.Generator:
    """The generator of the post's batches: on CPU the global stream continues after the model's
    initialisation; on CUDA it is CUDA's own generator, seeded by the same ``manual_seed``."""
    g = torch.Generator(device)
    if device.type == "cpu":
        g.set_state(cpu_state)
    else:
        g.manual_seed(seed)
    return g


def train(config: ExtrapolationConfig, seed: int, device: torch.device, *, checkpoints: Sequence[int] = (),
          progress: cache.Progress | None = None) -> cache.Tensors:
    """Train post A's model; return, for each checkpoint step ``s`` (and ``config.steps``), its weights
    as ``step{s}/<parameter>``. Every step's sequences have length ``train_len``, or on mixed lengths
    (:attr:`ExtrapolationConfig.mixed_lengths`) a length drawn for the step. Runs on one CPU thread when ``device`` is the CPU. The weights at step
    ``s`` do not depend on later checkpoints: a run to 12,000 steps passes through the 3000-step run."""
    model, cpu_state = initial_model(config, seed)
    model.to(device)
    g = data_generator(seed, cpu_state, device)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    saved: cache.Tensors = {}
    with one_thread() if device.type == "cpu" else contextlib.nullcontext():
        for step in range(1, config.steps + 1):
            T = (int(torch.randint(2, config.max_len + 1, (1,), generator=g, device=device)) if config.mixed_lengths
                 else config.train_len)  # a mixed-length step draws its length first, from the same stream
            x = torch.randint(0, config.vocab_size, (config.batch_size, T), generator=g, device=device)  # [B, T]
            loss = model.loss(x)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step in checkpoints or step == config.steps:
                saved.update({f"step{step}/{k}": v.detach().clone() for k, v in model.state_dict().items()})
            if progress is not None and (step % 100 == 0 or step == config.steps):
                progress(step, config.steps)
    return saved


# What trained weights depend on (their cache fingerprint); editing evaluation or reports retrains nothing.
TRAINING_CODE = (ExtrapolationConfig, positional_scheme, ExtrapolationModel, one_thread, initial_model,
                 data_generator, train, absolute, biases, rope, attention, nope, FixedRandomPositions)
