"""Where a calibration's independent tasks run: this machine's processes, or a Dask distributed cluster.

A calibration is a list of independent tasks (one scheme and seed: train, evaluate, return a few numbers). An
:class:`Executor` calls the task function on each and hands every result back to the caller, in this process, as
it arrives, so the caller writes it at once and an interrupted calibration resumes from what was written:

- ``local``: ``jobs`` processes of this machine (``concurrent.futures.ProcessPoolExecutor``, spawned), or this
  process alone at ``jobs=1``;
- ``dask``: a Dask distributed cluster (https://distributed.dask.org): the scheduler at ``address``
  (``tcp://host:8786``; started by hand, by ``dask-jobqueue`` on Slurm or by the Dask Kubernetes operator), or,
  without one, a ``LocalCluster`` of ``jobs`` worker processes of one thread each. Dask is an optional extra
  (``pip install -e ".[cluster]"``: ``dask[distributed]``, pure Python, about 5 MB).

Every task trains on one thread and through the weight cache, whose fingerprints name everything the weights
depend on, so a task's values do not depend on where it ran (``tests/test_calibration_cluster.py`` checks a reduced
calibration through a 2-worker cluster against the local path, value for value).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import multiprocessing
import os
from collections.abc import Callable, Hashable, Sequence
from typing import Any

KINDS = ("local", "dask")


@dataclasses.dataclass(frozen=True)
class Executor:
    """Where tasks run. ``kind``: ``local`` or ``dask``; ``jobs``: local processes, or the workers of a local Dask
    cluster; ``address``: a running Dask scheduler (then ``jobs`` is unused).

    Raises:
        ValueError: an unknown ``kind``, ``jobs`` below 1, or an ``address`` for the local executor.
    """

    kind: str = "local"
    jobs: int = 1
    address: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"executor {self.kind!r}: choose one of {', '.join(KINDS)}")
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs}")
        if self.address and self.kind != "dask":
            raise ValueError(f"a scheduler address ({self.address}) is for the dask executor, not {self.kind!r}")

    def describe(self) -> str:
        """One line for a log: where the tasks run."""
        if self.kind == "local":
            return "this process" if self.jobs == 1 else f"{self.jobs} local processes"
        return f"the Dask scheduler at {self.address}" if self.address else f"a local Dask cluster of {self.jobs} workers"

    def run(self, fn: Callable[..., Any], tasks: Sequence[tuple], on_result: Callable[[tuple, Any], None]) -> None:
        """Call ``fn(*task)`` for every task of ``tasks`` (each a tuple of picklable arguments; ``fn`` a module-level
        function, or one of a script's, which Dask sends by value) and ``on_result(task, value)`` here as each
        finishes, in the order they finish.

        Raises:
            ImportError: the dask executor without Dask installed, with the install command.
            Exception: the first failed task's, after the tasks already finished were handed to ``on_result``.
        """
        if not tasks:
            return
        if self.kind == "dask":
            return self._run_dask(fn, tasks, on_result)
        if self.jobs == 1:
            for task in tasks:
                on_result(task, fn(*task))
            return
        spawn = multiprocessing.get_context("spawn")  # no forked torch state; CUDA-safe
        with concurrent.futures.ProcessPoolExecutor(min(self.jobs, len(tasks)), mp_context=spawn) as pool:
            futures = {pool.submit(fn, *task): task for task in tasks}
            _hand_back(concurrent.futures.as_completed(futures), futures, on_result, lambda f: f.result())

    def _run_dask(self, fn: Callable[..., Any], tasks: Sequence[tuple],
                  on_result: Callable[[tuple, Any], None]) -> None:
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError as exc:
            raise ImportError('the dask executor needs Dask distributed: pip install -e ".[cluster]"') from exc
        # A LocalCluster's nannies run in this process and set their workers' variables in its environment
        # (distributed.nanny.pre-spawn-environ: OMP_NUM_THREADS=1, MKL_NUM_THREADS=1, MALLOC_TRIM_THRESHOLD_ …),
        # where every process this one starts later would inherit them: put back as they were once it is closed.
        environ = dict(os.environ)
        if self.address:
            client, cluster = Client(self.address), None
        else:
            cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            futures = {client.submit(fn, *task, pure=False): task for task in tasks}
            _hand_back(as_completed(futures), futures, on_result, lambda f: f.result())
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
            os.environ.clear()
            os.environ.update(environ)


def add_options(parser: argparse.ArgumentParser, *, jobs: int, what: str) -> None:
    """The options a calibration script takes for its executor: ``--jobs`` (default ``jobs``), ``--executor``,
    ``--scheduler`` and ``--worker-cache-dir``; ``what`` names the tasks in the help (e.g. "models trained")."""
    parser.add_argument("--jobs", type=int, default=jobs,
                        help=f"{what} at once: local processes, or the workers of a local Dask cluster "
                             f"(default {jobs})")
    parser.add_argument("--executor", choices=KINDS, default="local",
                        help="where the tasks run: local processes, or a Dask distributed cluster (default local)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="with --executor dask: a running scheduler, e.g. tcp://head:8786 (default: a local "
                             "cluster of --jobs workers)")
    parser.add_argument("--worker-cache-dir", default=None, metavar="DIR",
                        help="the weight cache on the workers' hosts (default: --cache-dir; on a cluster, a "
                             "directory of each host or a shared filesystem)")


def from_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Executor:
    """The executor :func:`add_options`' options name; a bad combination is the parser's usage error."""
    try:
        return Executor(args.executor, args.jobs, args.scheduler)
    except ValueError as exc:
        parser.error(str(exc).replace("a scheduler address", "--scheduler"))


def _hand_back(done, futures: dict[Hashable, tuple], on_result: Callable[[tuple, Any], None],
               result: Callable[[Any], Any]) -> None:
    """Hand each finished future's value to ``on_result``; after a failure, the ones that still finish too, then
    raise the first failure (so an interrupted calibration keeps all it could)."""
    failure: BaseException | None = None
    for future in done:
        try:
            value = result(future)
        except Exception as exc:  # noqa: BLE001 - re-raised below, after the finished tasks are kept
            failure = failure or exc
            continue
        on_result(futures[future], value)
    if failure is not None:
        raise failure
