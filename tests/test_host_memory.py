"""The suite's processes keep freed memory for reuse (:mod:`llm_claims_lab.core.host_memory`)."""

from __future__ import annotations

import platform
import resource

import pytest
import torch

from llm_claims_lab.core.host_memory import keep_freed_memory

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's")


@glibc
def test_a_run_reuses_freed_tensors_instead_of_faulting_them_in():
    """This process is a pytest process of the suite: its configure hook set the thresholds, so 50 steps that
    each allocate, zero and free four 8 MiB tensors (as a training step does its gradients) fault their
    8,192 pages in about once, not 50 times (409,600 faults under glibc's default, adaptive thresholds)."""
    assert keep_freed_memory.cache_info().currsize == 1  # called before any test
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(50):
        step = [torch.zeros(2**21) for _ in range(4)]  # 4 × [2M] float32, 8 MiB each
        del step
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before < 50_000
