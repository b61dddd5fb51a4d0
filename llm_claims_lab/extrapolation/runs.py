"""Runs of the length-extrapolation protocol, each trained once through the weight cache and evaluated once per
run and length, also through the cache (:class:`ExtrapolationLab`)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Collection, Sequence

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.devices import one_thread
from llm_claims_lab.extrapolation.evaluation import (
    EVAL_SEED_OFFSET,
    EVAL_SEQUENCES,
    Evaluation,
    Run,
    eval_batch,
    eval_generator,
    evaluate_batch,
)
from llm_claims_lab.extrapolation.guards import check_run
from llm_claims_lab.extrapolation.model import CLIP_DISTANCE, ExtrapolationConfig
from llm_claims_lab.extrapolation.training import TRAINING_CODE, initial_model, train

# Post A's protocol at twice its training length (sequences of 40, positions to 80; evaluated at 40 and 80): post B's
# 'long context comes from training long' ('모델 전체가 긴 문맥에서 훈련되고 정렬되어야 생긴다')
LONG_CONTEXT = ExtrapolationConfig(train_len=40, max_len=80)
CURVE_STEPS = (750, 1500, 3000, 6000)  # training budgets of the steps sweep: ¼× … 2× the protocol's 3000
# What an evaluation's result depends on beyond the trained weights (its cache fingerprint).
EVALUATION_CODE = (eval_generator, eval_batch, evaluate_batch)


class ExtrapolationLab:
    """Trained and evaluated runs of the protocol, each trained once through ``weights``
    (a :class:`llm_claims_lab.core.cache.WeightCache`). A run is evaluated lazily, one length at a time and only at
    the lengths something reads (:class:`~llm_claims_lab.extrapolation.evaluation.Evaluation`), each result
    cached beside the weights and fingerprinted like them, so that every (weights, step, length) is computed
    once per run however many processes read it.

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
        trained; processes that ask at once split the training (:meth:`llm_claims_lab.core.cache.WeightCache.fetch_many`)."""
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

    def prepare(self, scheme: str, seed: int) -> None:
        """Train (or load) the weights this lab uses for ``(scheme, seed)``, evaluating nothing: the steps sweep's
        run for a swept scheme, the protocol's run otherwise (a session's builds, split between processes)."""
        if scheme in self.sweep:
            self.curves_of([(scheme, seed)])
        else:
            self.runs_of([(scheme, seed)])

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
        if config.base_scheme == "relative_clipped":  # a module constant, not in the training code's source
            spec["clip_distance"] = CLIP_DISTANCE
        length = "" if config.train_len == ExtrapolationConfig.train_len else f"len{config.train_len}-"
        name = f"extrapolation-{length}{config.scheme}-seed{seed}" + ("-curve" if checkpoints else "")
        return cache.Entry(name, cache.fingerprint(spec, code=TRAINING_CODE, device=self.device),
                           lambda progress: train(config, seed, self.device, checkpoints=checkpoints,
                                                  progress=progress))

    def _fetch(self, plan: Sequence[tuple[ExtrapolationConfig, int]],
               checkpoints: Sequence[int]) -> list[dict[int, Run]]:
        """For each (config, seed): ``{step: Run}`` for every saved step."""
        keys = [(c, seed, tuple(checkpoints)) for c, seed in plan]
        return self.weights.fetch_once(self._runs, keys, lambda key: self.entry(*key),
                                       lambda key, entry, saved: self._rebuild(key[0], key[1], entry, saved))

    def _rebuild(self, config: ExtrapolationConfig, seed: int, entry: cache.Entry,
                 saved: cache.Tensors) -> dict[int, Run]:
        """The model of each saved step, with its evaluation left to first use.

        Raises:
            RunCheckError: a step's model is no measurement of its scheme (:func:`check_run`).
        """
        runs = {}
        for step in sorted({int(name.split("/")[0][4:]) for name in saved}):
            prefix = f"step{step}/"
            model, _ = initial_model(config, seed)
            model.load_state_dict({k[len(prefix):]: v for k, v in saved.items() if k.startswith(prefix)})
            check_run(model, step)
            model.to(self.device)
            compute = functools.partial(self._evaluation, entry, step, model, seed)
            correct = Evaluation(config.eval_lens, compute, part=0)
            runs[step] = Run(config, seed, step, model, correct, correct.sibling(1))
        return runs

    def evaluation_entry(self, weights: cache.Entry, step: int, L: int,
                         build: Callable[[cache.Progress], cache.Tensors]) -> cache.Entry:
        """The cache entry of one evaluation: the weights of ``weights`` after ``step`` steps at length ``L``."""
        spec = {"weights": weights.fingerprint, "step": step, "length": L, "sequences": EVAL_SEQUENCES,
                "eval_seed_offset": EVAL_SEED_OFFSET}
        return cache.Entry(f"{weights.name}-step{step}-eval{L}",
                           cache.fingerprint(spec, code=EVALUATION_CODE, device=self.device), build)

    def _evaluation(self, weights: cache.Entry, step: int, model, seed: int,
                    L: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Correctness ``[N, L − 1]`` and attention by offset ``[2L − 1]`` of ``model`` at length ``L``, computed
        once per run through the cache."""
        def build(progress: cache.Progress) -> cache.Tensors:
            with one_thread() if self.device.type == "cpu" else contextlib.nullcontext():
                correct, attention = evaluate_batch(model, eval_batch(model.config, seed, L, self.device))
            return {"correct": correct, "attention": attention}

        saved = self.weights.fetch(self.evaluation_entry(weights, step, L, build))
        return saved["correct"], saved["attention"]
