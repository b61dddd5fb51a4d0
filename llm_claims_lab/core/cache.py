"""A persistent cache of trained weights: each model is trained once, then loaded.

An :class:`Entry` names what to build and fingerprints everything its weights depend on (config,
source of the code that trains, torch version, device; see :func:`fingerprint`). The entry's file is
``<root>/<name>-<hash of the fingerprint>.safetensors``; an unchanged fingerprint trains nothing.

- Once per run, across processes: building happens under a :class:`filelock.FileLock` beside the
  entry, so pytest-xdist workers (or calibration jobs) that ask for the same entry wait for the one
  that builds it, then load it. :meth:`WeightCache.fetch_many` first builds the entries nobody else
  is building, then waits for the rest, so workers asking for the same list share the work.
- Safe storage: safetensors only (no pickle). A file is written to a temp name and moved into place
  (``os.replace``), so a reader sees a complete entry or none. Its metadata holds the fingerprint and
  a SHA-256 of every tensor; a file that fails to load, or whose fingerprint or checksum does not
  match, is reported and rebuilt. Temp files left by a killed build are removed when a cache is opened (those
  whose entry nobody is building) and by the next build of their entry.
- The labs get their models through :meth:`WeightCache.fetch_once`: kept per process, else loaded or built.
- ``retrain=True`` rebuilds each entry once per run (the run id is stored in the entry).
- Every load and build is appended to ``<root>/events.jsonl`` (time, entry, pid, xdist worker, run id; a build's
  wall and CPU seconds), which is how a run shows what it trained (:mod:`llm_claims_lab.core.build_log` reads it);
  builds report progress through ``say``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import inspect
import json
import os
import platform
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import torch
from filelock import FileLock, Timeout
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from llm_claims_lab.core.atomic import temporary_files, write_atomic
from llm_claims_lab.core.devices import cuda_numerics
from llm_claims_lab.core.errors import InputFault

Tensors = dict[str, torch.Tensor]
Say = Callable[[str], None]
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def code_digest(objects: Iterable[Any]) -> str:
    """SHA-256 of the source of modules, classes or functions (``inspect.getsource``), in order.

    Read once per process and remembered, so that a file edited during a run does not change the
    fingerprints of the code that is running.

    Raises:
        OSError / TypeError: an object without retrievable source (e.g. a builtin).
    """
    return _code_digest(tuple(objects))


@functools.cache
def _code_digest(objects: tuple[Any, ...]) -> str:
    h = hashlib.sha256()
    for obj in objects:
        h.update(inspect.getsource(obj).encode())
    return h.hexdigest()


def describe_device(device: torch.device | str) -> str:
    """What of a device can change trained weights: its type and model (``cpu (x86_64)``; on CUDA the GPU
    model and the numerics settings of :func:`llm_claims_lab.core.devices.cuda_numerics`, ``cuda (NVIDIA H200; CUDA
    12.6, …, TF32 off, deterministic on, …)``); not its index, so identical GPUs share entries."""
    device = torch.device(device)
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)}; {cuda_numerics()})"
    return f"{device.type} ({platform.machine()})"


def fingerprint(config: Mapping[str, Any], *, code: Iterable[Any],
                device: torch.device | str) -> dict[str, Any]:
    """Everything trained weights depend on: ``config`` (JSON-serialisable), the source of ``code``,
    the torch version and the device (:func:`describe_device`)."""
    return {"config": dict(config), "code": code_digest(code), "torch": torch.__version__,
            "device": describe_device(device)}


def digest(value: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of a fingerprint's canonical JSON: what a report names trained weights by."""
    return hashlib.sha256(_canonical(value).encode()).hexdigest()


def _canonical(value: Mapping[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def tensors_digest(tensors: Mapping[str, torch.Tensor]) -> str:
    """SHA-256 over names, dtypes, shapes and bytes of ``tensors`` (in name order)."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name].detach().to("cpu").contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


class CacheUnwritable(InputFault, RuntimeError):
    """A trained entry could not be stored (a full disk, a directory made read-only during the run); the message
    names the cache and the fix. The rows that needed the entry error."""


class Progress:
    """Reports a long build through ``say``: a line at most every ``every_s`` seconds (done/total,
    %, elapsed and estimated remaining seconds), and one when done."""

    def __init__(self, say: Say, label: str, *, every_s: float = 10.0) -> None:
        self.say, self.label, self.every_s = say, label, every_s
        self.start = self.last = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - self.last < self.every_s:
            return
        self.last = now
        elapsed = now - self.start
        eta = elapsed * (total - done) / done if done else float("nan")
        self.say(f"{self.label}: {done}/{total} ({100 * done / total:.0f} %), {elapsed:.0f} s"
                 + (f", about {eta:.0f} s left" if done < total else ""))


@dataclasses.dataclass(frozen=True)
class Entry:
    """One cached artefact: ``name`` (readable prefix of the file name), ``fingerprint`` (a
    JSON-serialisable mapping; its hash keys the file), ``build`` (trains and returns the tensors;
    called with a :class:`Progress` to report through)."""

    name: str
    fingerprint: Mapping[str, Any]
    build: Callable[[Progress], Tensors]

    @property
    def key(self) -> str:
        return f"{self.name}-{hashlib.sha256(_canonical(self.fingerprint).encode()).hexdigest()[:16]}"


class WeightCache:
    """A directory of trained weights shared by processes (see the module docstring).

    ``root``: the directory (created). ``run_id``: identifies this run across its processes (for
    ``retrain`` and the event log). ``retrain``: rebuild every entry once in this run. ``say``: where
    progress and rebuild notices go (default: nowhere).
    """

    def __init__(self, root: Path | str, *, run_id: str, retrain: bool = False,
                 say: Say | None = None) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.run_id, self.retrain = run_id, retrain
        self.say = say or (lambda message: None)
        self._remove_stale()

    def _remove_stale(self) -> None:
        """Remove the temporary files of builds that were killed: those whose entry's lock is free (a build
        writes its file holding the lock, so a file under a held lock is being written now and is kept)."""
        for stale in temporary_files(self.root, "*.safetensors"):
            key = stale.name[1:].split(".safetensors.")[0]
            try:
                with FileLock(self.root / f"{key}.lock", timeout=0):
                    stale.unlink(missing_ok=True)
            except Timeout:
                continue

    def path(self, entry: Entry) -> Path:
        """The entry's file (it may not exist yet)."""
        return self.root / f"{entry.key}.safetensors"

    def fetch(self, entry: Entry) -> Tensors:
        """The entry's tensors (on CPU): loaded when a valid file exists, else built and stored."""
        return self.fetch_many([entry])[0]

    def fetch_many(self, entries: Sequence[Entry]) -> list[Tensors]:
        """Tensors of every entry, in order. Entries whose lock is free are built (or loaded) first;
        those another process holds are awaited afterwards, so concurrent callers split the work.

        Raises:
            Whatever an entry's ``build`` raises; that entry is then left absent (no partial file).
            CacheUnwritable: a built entry could not be written.
        """
        found: dict[str, Tensors] = {}
        busy = []
        for entry in entries:
            if entry.key in found:
                continue
            tensors = self._read(entry, quiet=True)  # safe without the lock: files appear whole
            if tensors is not None:
                self._log("load", entry)
                found[entry.key] = tensors
                continue
            try:
                with FileLock(self._lock_path(entry), timeout=0):
                    found[entry.key] = self._load_or_build(entry)
            except Timeout:  # another process is building it
                busy.append(entry)
        for entry in busy:
            with FileLock(self._lock_path(entry)):
                found[entry.key] = self._load_or_build(entry)
        return [found[entry.key] for entry in entries]

    def fetch_once(self, memo: MutableMapping[K, V], keys: Sequence[K], entry: Callable[[K], Entry],
                   load: Callable[[K, Entry, Tensors], V]) -> list[V]:
        """The labs' one way to train once through the cache: the value of every key, in order, from ``memo`` (the
        lab's, per process) when there, else made from its entry (``entry(key)``) by ``load(key, entry, tensors)``
        and remembered. The missing entries are fetched together (:meth:`fetch_many`: loaded, or built and stored)."""
        missing = [key for key in dict.fromkeys(keys) if key not in memo]
        entries = [entry(key) for key in missing]
        for key, found, tensors in zip(missing, entries, self.fetch_many(entries)):
            memo[key] = load(key, found, tensors)
        return [memo[key] for key in keys]

    def _load_or_build(self, entry: Entry) -> Tensors:
        """Under the entry's lock: its tensors from the file if valid, else from a new build."""
        tensors = self._read(entry)
        if tensors is None:
            return self._build(entry)
        self._log("load", entry)
        return tensors

    def _lock_path(self, entry: Entry) -> Path:
        return self.root / f"{entry.key}.lock"

    def _read(self, entry: Entry, *, quiet: bool = False) -> Tensors | None:
        """The entry's tensors, or ``None`` when absent, unreadable, mismatched or due for retraining.
        A rejected file is reported (unless ``quiet``) and left for :meth:`_build` to replace."""
        path = self.path(entry)
        if not path.exists():
            return None
        try:
            with safe_open(path, framework="pt") as f:
                meta, names = f.metadata() or {}, list(f.keys())
                tensors = {name: f.get_tensor(name) for name in names}
        except (SafetensorError, OSError, ValueError) as exc:
            why = f"unreadable ({exc})"
        else:
            if meta.get("fingerprint") != _canonical(entry.fingerprint):
                why = "its stored fingerprint differs from the requested one"
            elif meta.get("sha256") != tensors_digest(tensors):
                why = "checksum mismatch: the tensors were altered or truncated"
            else:
                return tensors if not self.retrain or meta.get("run_id") == self.run_id else None
        if not quiet:
            self.say(f"cache entry {path.name} is corrupt: {why}; rebuilding it")
            self._log("corrupt", entry, why=why)
        return None

    def _build(self, entry: Entry) -> Tensors:
        for stale in temporary_files(self.root, self.path(entry).name):  # left by a build that was killed
            stale.unlink(missing_ok=True)
        self.say(f"training {entry.key} (cache: {self.root})")
        self._log("build-start", entry)
        start, cpu_start = time.perf_counter(), time.process_time()
        built = entry.build(Progress(self.say, entry.key))
        tensors = {name: t.detach().to("cpu").contiguous() for name, t in built.items()}
        seconds, cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
        metadata = {"fingerprint": _canonical(entry.fingerprint), "sha256": tensors_digest(tensors),
                    "run_id": self.run_id, "build_s": f"{seconds:.1f}",
                    "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
        try:
            write_atomic(self.path(entry), lambda tmp: save_file(tensors, tmp, metadata=metadata))
        except OSError as exc:  # the temp file is gone (write_atomic): nothing half-written is left
            raise CacheUnwritable(f"the weight cache {self.root} cannot be written ({exc.strerror or exc}) while "
                                  f"storing {self.path(entry).name}; nothing was kept. Fix: free space on its disk, "
                                  "or name another with --claims-cache-dir or $CLAIMS_CACHE_DIR") from None
        self._log("build", entry, seconds=round(seconds, 1), cpu_s=round(cpu_s, 1))
        return tensors

    def _log(self, event: str, entry: Entry, **extra: Any) -> None:
        record = {"time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"), "event": event,
                  "entry": entry.key, "pid": os.getpid(), "run_id": self.run_id,
                  "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), **extra}
        line = (json.dumps(record) + "\n").encode()
        fd = os.open(self.root / "events.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one short O_APPEND write: lines of concurrent processes never interleave
        finally:
            os.close(fd)
