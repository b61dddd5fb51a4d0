"""Keep freed host memory in the process, so that a training step does not page-fault its tensors in anew.

glibc's malloc hands memory above its *trim threshold* back to the kernel when it is freed, and serves
blocks above its *mmap threshold* with a fresh ``mmap``. A training step allocates and frees the same
megabyte-sized tensors thousands of times (the dense ``[V, D]`` gradients of skip-gram's tables, the
``[B, H, T, V]`` arrays of the extrapolation model), so each step touched fresh pages: measured on the
2-core CI machine, 1.8 M minor page faults and 6–8 s of kernel time in 1,500 skip-gram steps, a quarter
of the step (``benchmarks/bench_host_memory.py``). Fixed thresholds (``mallopt``, the tunables glibc
documents in "Memory Allocation Tunables") keep that memory in the process's heap, to be reused.

Where memory sits changes no arithmetic: trained weights are bit-identical either way (the benchmark checks
it). On a C library other than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import platform

# glibc's mallopt parameters (malloc.h)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 * 2**20  # blocks below 32 MiB (glibc's largest mmap threshold on 64-bit) come from the heap
TRIM_THRESHOLD = 512 * 2**20  # up to 512 MiB of freed heap top stays in the process


@functools.cache
def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds for this process (once; later calls do nothing).

    Returns whether they were set: False where the C library is not glibc or refuses the values.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return False
    # Setting one fixes both (glibc stops adapting them), so set both.
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
