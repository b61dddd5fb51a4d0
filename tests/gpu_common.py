"""What the GPU check's modules share (:mod:`gpu_check`, issue 31, item 3): the repository root, the seed, the
environment variables through which the check talks to its pytest processes, and :class:`Result`, one check's
outcome."""

from __future__ import annotations

import dataclasses
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 42
READBACK_ENV = "GPU_CHECK_READBACK"  # directory each pytest process writes its read-back to
PIN_ENV = "GPU_CHECK_PIN_NUMERICS"  # dry run on the CPU only: the plugin pins what the suite pins on CUDA


@dataclasses.dataclass
class Result:
    """One check: ``passed``, ``compared`` (entries it compared: 0 fails), one-line ``summary``, ``failures``
    (one line each), ``details`` (JSON)."""

    name: str
    compared: int
    failures: list[str]
    summary: str
    details: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.compared == 0:
            self.failures.insert(0, f"{self.name}: compared 0 entries")

    @property
    def passed(self) -> bool:
        return not self.failures

    def line(self) -> str:
        head = f"{'PASS' if self.passed else 'FAIL'} {self.name}: {self.summary} ({self.compared} compared)"
        return "\n".join([head, *(f"    {f}" for f in self.failures[:20])])
