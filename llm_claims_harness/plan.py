"""The run plan: the seeds and the device of a run, decided once at configure time and handed down (to the
``seed``, ``seeds`` and ``run_plan`` fixtures, the rows and the report header)."""

from __future__ import annotations

import dataclasses

import pytest

PLAN = pytest.StashKey["RunPlan"]()


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """``seed`` (``--claims-seed``), ``seeds`` (the ``--claims-seeds`` seeds trained claims run: ``seed`` and the
    ones after it), ``device`` (the suite's ``pytest_claims_device``, default ``cpu``) and ``device_name`` (a
    person's name for it)."""

    seed: int
    seeds: tuple[int, ...]
    device: str
    device_name: str

    @classmethod
    def of(cls, config: pytest.Config) -> RunPlan:
        seed, n = config.getoption("claims_seed"), config.getoption("claims_seeds")
        device = config.hook.pytest_claims_device(config=config) or "cpu"
        name = config.hook.pytest_claims_device_name(config=config, device=device) or device
        return cls(seed=seed, seeds=tuple(range(seed, seed + n)), device=device, device_name=name)


    def at_least(self, n: int) -> tuple[int, ...]:
        """The run's seeds, extended to ``n`` when it has fewer: ``seed`` … ``seed + max(n, len(seeds)) − 1``, for a
        protocol that needs ``n`` seeds."""
        return tuple(range(self.seed, self.seed + max(n, len(self.seeds))))


def plan(config: pytest.Config) -> RunPlan:
    """This run's plan (built at configure time)."""
    return config.stash[PLAN]
