"""``python -m pytest`` in a child process that starts with torch already imported: the tests' pytest runs.

About eighty tests run pytest in a child process (the planted-bug runs of ``tests/test_*_catch_bugs.py``, the
cache's cold and warm runs, the catalogue …). Each child of ``python -m pytest`` imported torch (about 1.2 CPU-s)
and, at its first optimizer, ``torch._dynamo`` (``torch.optim.Optimizer.__init__`` is wrapped by
``torch._disable_dynamo``, which imports it on first call: about 2 CPU-s), then scipy and matplotlib, before
running anything: about 4 CPU-s a child, the largest share of what the tests cost beside the models they train.

Here each child is forked from :mod:`multiprocessing`'s *forkserver*: a process of its own (one per test process,
started on first use) that has imported :data:`PRELOAD` and nothing of this project, so every child starts with
those modules in memory and imports the rest (pytest's plugins, the harness, the suite, the conftest with its
planted bug) fresh, as a new interpreter would. The child is set up as ``python -m pytest ARGS`` would be: the
working directory, exactly the environment given, ``sys.path`` (the directory, ``PYTHONPATH``, then the
interpreter's own), ``sys.argv``, stdin from ``/dev/null``, stdout and stderr to files; torch's thread count from
the thread variables as a new interpreter's torch finds it (it reads them as it loads; the server loaded torch
under whatever its first caller had set); the exit functions run at its end (``tests/test_child_pytest.py``
compares a child with a new interpreter).
What it does not reproduce: a locale or ``PYTHONIOENCODING`` other than UTF-8, ``PYTHONWARNINGS``, warnings that
the preloaded modules emit when imported. Tests of those keep a real subprocess (``tests/test_paths_and_locale.py``,
the harness's own tests, which must run without this project installed).

``python benchmarks/bench_child_pytest.py`` times the claim modules of a planted-bug run both ways and checks that
they write the same rows.
"""

from __future__ import annotations

import atexit
import functools
import gc
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

# What every child gets already imported: torch and what its first optimizer imports, and the numeric and plotting
# libraries the claims use. No pytest plugin and nothing of this project: pytest rewrites the asserts of plugin
# modules as it imports them, and the planted bugs must patch a fresh copy of the project.
PRELOAD = ["torch", "torch._dynamo", "torch.optim", "numpy", "scipy.stats", "matplotlib.figure",
           "matplotlib.backends.backend_agg", "safetensors.torch", "filelock", "pytest"]

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(PRELOAD)


# What sets torch's intra-op thread count as it loads (through MKL's mkl_get_max_threads: MKL_NUM_THREADS, else
# OMP_NUM_THREADS, at most one per physical core unless MKL_DYNAMIC is false).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC")


@functools.cache
def _new_interpreter(threads: tuple[tuple[str, str], ...]) -> tuple[tuple[str, ...], int]:
    """What a new interpreter starts with that a fork of the server does not, under the thread variables
    ``threads``: ``sys.path`` less its first entry (the script's directory) and ``PYTHONPATH``, and torch's thread
    count (asked of a new interpreter, once per set of values, rather than modelled here)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", *THREAD_VARIABLES)} | dict(threads)
    code = "import json, sys, torch; print(json.dumps([sys.path[1:], torch.get_num_threads()]))"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tempfile.gettempdir(), capture_output=True,
                         text=True, check=True).stdout
    path, count = json.loads(out)
    return tuple(path), count


def _child(args: Sequence[str], cwd: str, env: dict[str, str], interpreter_path: Sequence[str], threads: int,
           out: str, err: str) -> None:
    """In the forked child: become ``python -m pytest ARGS`` run in ``cwd`` with ``env``, then exit with its code."""
    for fileno, path in ((0, os.devnull), (1, out), (2, err)):
        fd = os.open(path, os.O_RDONLY if fileno == 0 else os.O_WRONLY)
        os.dup2(fd, fileno)
        os.close(fd)
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False, buffering=1)
    sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False,
                                       buffering=1)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.path[:] = [cwd, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep)), *interpreter_path]
    sys.argv = [str(Path(pytest.__file__).with_name("__main__.py")), *args]
    gc.freeze()  # the preloaded modules' objects: pytest's gc.collect() at its end need not walk them again
    sys.modules["torch"].set_num_threads(threads)  # what a new interpreter's torch reads as it loads
    try:
        code = pytest.console_main()
    finally:
        atexit._run_exitfuncs()  # multiprocessing ends its children with os._exit, which skips them
        sys.stdout.flush()
        sys.stderr.flush()
    sys.exit(code)


def run(args: Sequence[str | os.PathLike[str]], *, cwd: str | os.PathLike[str], env: Mapping[str, str] | None = None,
        timeout: float | None = None) -> pytest.RunResult:
    """``python -m pytest ARGS`` in ``cwd`` with ``env`` (default: this process's), in a child forked from the
    preloaded server: its exit code, stdout and stderr lines and wall time, as ``pytester.run`` gives them.

    Raises:
        subprocess.TimeoutExpired: the child ran past ``timeout`` seconds (it is killed first).
    """
    args = [os.fspath(a) for a in args]
    env = dict(os.environ if env is None else env)
    with tempfile.TemporaryDirectory(prefix="child-pytest-") as tmp:
        out, err = Path(tmp, "stdout"), Path(tmp, "stderr")
        out.touch()
        err.touch()
        path, threads = _new_interpreter(tuple((k, env[k]) for k in THREAD_VARIABLES if k in env))
        start = time.perf_counter()  # the run's own wall time, not the new interpreter asked once above
        child = _CONTEXT.Process(target=_child, args=(args, os.fspath(cwd), env, path, threads, str(out),
                                                      str(err)))
        child.start()
        child.join(timeout)
        if child.exitcode is None:
            child.kill()
            child.join()
            raise subprocess.TimeoutExpired(["python", "-m", "pytest", *args], timeout)
        lines = [p.read_text(encoding="utf-8", errors="replace").splitlines() for p in (out, err)]
        return pytest.RunResult(child.exitcode, lines[0], lines[1], time.perf_counter() - start)


def runpytest(pytester: pytest.Pytester, *args: str | os.PathLike[str],
              timeout: float | None = None) -> pytest.RunResult:
    """``pytester.runpytest_subprocess(*args)`` in a preloaded child: in ``pytester.path``, with a fresh
    ``--basetemp`` there, and the directory first on ``PYTHONPATH``. Prints the run's output, as pytester does."""
    basetemp = tempfile.mkdtemp(prefix="runpytest-", dir=pytester.path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pytester.path), env.get("PYTHONPATH", "")]))
    result = run([f"--basetemp={basetemp}", *args], cwd=pytester.path, env=env, timeout=timeout)
    print("\n".join(result.outlines))
    print("\n".join(result.errlines), file=sys.stderr)
    return result
