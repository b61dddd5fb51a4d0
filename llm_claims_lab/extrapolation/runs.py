"""Runs of the length-extrapolation protocol, each trained once through the weight cache and evaluated once
per process (:class:`ExtrapolationLab`)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Collection, Sequence

import torch

from llm_claims_lab import cache
from llm_claims_lab.extrapolation.evaluation import Run, eval_generator, evaluate
from llm_claims_lab.extrapolation.model import ExtrapolationConfig
from llm_claims_lab.extrapolation.training import TRAINING_CODE, initial_model, one_thread, train

CURVE_STEPS = (750, 1500, 3000, 6000)  # training budgets of the steps sweep: ¼× … 2× the protocol's 3000


class ExtrapolationLab:
    """Trained and evaluated runs of the protocol, each trained once through ``weights``
    (a :class:`llm_claims_lab.cache.WeightCache`) and evaluated once per process.

    ``device``: where to train and evaluate. ``config``: the protocol (the scheme field is set per run).
    ``sweep``: schemes whose runs are taken from the steps sweep (:meth:`curves`), whose checkpoint at
    ``config.steps`` is the protocol's run (the same training), so a suite that needs both trains once;
    for the others :meth:`runs` trains exactly ``config.steps`` (e.g. the calibration, which needs no sweep).
    """

    def __init__(self, weights: cache.WeightCache, device: torch.device, *,
                 config: ExtrapolationConfig = ExtrapolationConfig(), sweep: Collection[str] = ()) -> None:
        self.weights, self.device, self.config, self.sweep = weights, torch.device(device), config, sweep
        self._runs: dict[tuple, dict[int, Run]] = {}  # (config, seed, checkpoints) -> {step: Run}

    def run(self, scheme: str, seed: int) -> Run:
        """The run of ``scheme`` for ``seed`` at the protocol's step count."""
        return self.runs([scheme], [seed])[0]

    def runs(self, schemes: Sequence[str], seeds: Sequence[int]) -> list[Run]:
        """Runs for every (scheme, seed), scheme-major, at the protocol's step count. Missing weights are
        trained; processes that ask at once split the training (:meth:`llm_claims_lab.cache.WeightCache.fetch_many`)."""
        return self.runs_of([(scheme, seed) for scheme in schemes for seed in seeds])

    def runs_of(self, pairs: Sequence[tuple[str, int]]) -> list[Run]:
        """:meth:`runs` for a list of ``(scheme, seed)`` pairs, trained in that order."""
        swept = [pair for pair in pairs if pair[0] in self.sweep]
        plain = [pair for pair in pairs if pair[0] not in self.sweep]
        plan = [(dataclasses.replace(self.config, scheme=scheme), seed) for scheme, seed in plain]
        found = dict(zip(swept, (curve[self.config.steps] for curve in self.curves_of(swept))))
        found |= dict(zip(plain, (by_steps[self.config.steps] for by_steps in self._fetch(plan, checkpoints=()))))
        return [found[pair] for pair in pairs]

    def curves(self, schemes: Sequence[str], seeds: Sequence[int]) -> list[dict[int, Run]]:
        """For every (scheme, seed), scheme-major: runs after each of :data:`CURVE_STEPS` steps, taken
        from one training run, each evaluated as the post's script run with ``--steps`` that many."""
        return self.curves_of([(scheme, seed) for scheme in schemes for seed in seeds])

    def curves_of(self, pairs: Sequence[tuple[str, int]]) -> list[dict[int, Run]]:
        """:meth:`curves` for a list of ``(scheme, seed)`` pairs, trained in that order."""
        steps = sorted({*CURVE_STEPS, self.config.steps})
        plan = [(dataclasses.replace(self.config, scheme=scheme, steps=steps[-1]), seed) for scheme, seed in pairs]
        return self._fetch(plan, checkpoints=steps)

    def entry_of(self, scheme: str, seed: int) -> cache.Entry:
        """The cache entry this lab trains for ``(scheme, seed)``: the steps sweep's run for a swept scheme
        (:meth:`curves_of`), the protocol's run otherwise."""
        if scheme in self.sweep:
            steps = sorted({*CURVE_STEPS, self.config.steps})
            return self.entry(dataclasses.replace(self.config, scheme=scheme, steps=steps[-1]), seed, steps)
        return self.entry(dataclasses.replace(self.config, scheme=scheme), seed, ())

    def entry(self, config: ExtrapolationConfig, seed: int, checkpoints: Sequence[int]) -> cache.Entry:
        """The cache entry of one training run: ``config`` for ``seed``, weights saved at ``checkpoints``."""
        spec = {**dataclasses.asdict(config), "num_heads": config.num_heads, "seed": seed,
                "checkpoints": sorted(checkpoints)}
        name = f"extrapolation-{config.scheme}-seed{seed}" + ("-curve" if checkpoints else "")
        return cache.Entry(name, cache.fingerprint(spec, code=TRAINING_CODE, device=self.device),
                           lambda progress: train(config, seed, self.device, checkpoints=checkpoints,
                                                  progress=progress))

    def _fetch(self, plan: Sequence[tuple[ExtrapolationConfig, int]],
               checkpoints: Sequence[int]) -> list[dict[int, Run]]:
        """For each (config, seed): ``{step: Run}`` for every saved step."""
        keys = [(c, seed, tuple(checkpoints)) for c, seed in plan]
        missing = [k for k in keys if k not in self._runs]
        tensors = self.weights.fetch_many([self.entry(*k) for k in missing])
        for key, saved in zip(missing, tensors):
            self._runs[key] = self._evaluate(key[0], key[1], saved)
        return [self._runs[k] for k in keys]

    def _evaluate(self, config: ExtrapolationConfig, seed: int, saved: cache.Tensors) -> dict[int, Run]:
        """Rebuild the model of each saved step and evaluate it on the seed's evaluation batches."""
        runs = {}
        for step in sorted({int(name.split("/")[0][4:]) for name in saved}):
            prefix = f"step{step}/"
            model, _ = initial_model(config, seed)
            model.load_state_dict({k[len(prefix):]: v for k, v in saved.items() if k.startswith(prefix)})
            model.to(self.device)
            with one_thread() if self.device.type == "cpu" else contextlib.nullcontext():
                correct, attn = evaluate(model, eval_generator(seed, self.device), config.eval_lens)
            runs[step] = Run(config, seed, step, model, correct, attn)
        return runs
