"""Calibrate the length-extrapolation claims: run post A's protocol for many seeds and keep every value.

Writes ``calibration/extrapolation.json``: for each scheme and seed the values the claims measure
(:func:`llm_claims_lab.extrapolation.evaluation.measures`), and per quantity its noise components
(:func:`llm_claims_lab.core.stats.noise_components`: evaluation and seed). ``claims/test_extrapolation*.py`` take
each stochastic row's noise from them. Seeds ``1 … N`` are disjoint from the suite's 42; the two ALiBi schemes
(about 3× per step) run the first ``--alibi-seeds``, the controls the first ``--control-seeds``.

Each (scheme, seed) is one task, run on ``--executor`` (``local``: ``--jobs`` processes; ``dask``: a local Dask
cluster of ``--jobs`` workers, or the scheduler at ``--scheduler ADDRESS``:
:mod:`llm_claims_lab.core.executors`); each result is kept in the cache as it arrives, so an interrupted run
resumes, and ``--merge-only`` writes the JSON from the whole seeds measured so far. Weights go through the weight
cache (``--cache-dir``, default ``$CLAIMS_CACHE_DIR`` or ``.cache/claims``; on the workers ``--worker-cache-dir``).

Usage, from the repository root (about 90 minutes on two cores; docs/trained.md has the steps sweep's
``--steps 6000``, a new scheme's ``--schemes`` after ``--certify-code 42``, and a cluster's command lines)::

    python calibration/calibrate_extrapolation.py --seeds 20 --jobs 2
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import sys
import uuid
from pathlib import Path

import torch

from llm_claims_lab.core import cache
from llm_claims_lab.core.atomic import write_text_atomic
from llm_claims_lab.core.devices import pin_cuda_numerics, usable_device
from llm_claims_lab.core.executors import Executor, add_options, from_options
from llm_claims_lab.core.host_memory import keep_freed_memory
from llm_claims_lab.extrapolation import (
    CONTROL_SCHEMES,
    CURVE_STEPS,
    EVAL_SEQUENCES,
    SCHEMES,
    SWEPT_SCHEMES,
    TRAINING_CODE,
    ExtrapolationConfig,
    ExtrapolationLab,
    calibration_path,
    measures,
)
from llm_claims_lab.core.stats import noise_components

ROOT = Path(__file__).resolve().parents[1]


def _lab(cache_dir: str | Path, device: str, run_id: str, train_steps: int | None) -> ExtrapolationLab:
    """The lab a task trains and evaluates with: the protocol's, its swept schemes trained as the suite trains them
    (the steps sweep's run, whose checkpoint at the protocol's steps is the protocol's run), or, with
    ``train_steps`` (a dry run), that many steps and no sweep."""
    def say(message: str) -> None:
        print(f"[{os.getpid()}] {message}", file=sys.stderr, flush=True)

    weights = cache.WeightCache(Path(cache_dir), run_id=run_id, say=say)
    if train_steps:
        return ExtrapolationLab(weights, torch.device(device), config=ExtrapolationConfig(steps=train_steps))
    return ExtrapolationLab(weights, torch.device(device), sweep=SWEPT_SCHEMES)


def _result_path(args: argparse.Namespace, scheme: str, seed: int) -> Path:
    """Where one (scheme, seed)'s measures are kept: in the cache, named by what they depend on (and by the
    checkpoint, with ``--steps``, or the budget, with ``--train-steps``)."""
    key = f"{cache.code_digest(TRAINING_CODE)[:12]}-eval{EVAL_SEQUENCES}"
    name = (f"{scheme}-seed{seed}" + (f"-steps{args.steps}" if args.steps else "")
            + (f"-train{args.train_steps}" if args.train_steps else ""))
    return Path(args.cache_dir) / "calibration-extrapolation" / key / f"{name}.json"


def measure_task(cache_dir: str, device: str, run_id: str, steps: int | None, train_steps: int | None,
                 scheme: str, seed: int) -> dict[str, float]:
    """One task of the calibration, wherever it runs (:class:`llm_claims_lab.core.executors.Executor`): train (or
    load from the weight cache at ``cache_dir``, that host's or a shared one) and evaluate ``scheme`` at ``seed``;
    its measures (:func:`llm_claims_lab.extrapolation.evaluation.measures`, at the checkpoint after ``steps`` when
    given), rounded to 6 decimals."""
    keep_freed_memory()  # as the suite's processes do: no value changes, fewer page faults
    if torch.device(device).type == "cuda":
        pin_cuda_numerics()
    lab = _lab(cache_dir, device, run_id, train_steps)
    run = lab.curves_of([(scheme, seed)])[0][steps] if steps else lab.runs_of([(scheme, seed)])[0]
    return {k: round(v, 6) for k, v in measures(run).items()}


def _measure(args: argparse.Namespace, executor: Executor, plan: list[tuple[str, int]]) -> None:
    """Measure every (scheme, seed) of ``plan`` whose result is not kept yet, on the run's executor, keeping each
    result as it arrives (so an interrupted calibration resumes where it stopped)."""
    todo = [(scheme, seed) for scheme, seed in plan if not _result_path(args, scheme, seed).exists()]
    print(f"calibrate_extrapolation: {len(todo)} of {len(plan)} tasks to run, on {executor.describe()}",
          file=sys.stderr, flush=True)

    def keep(task: tuple, values: dict[str, float]) -> None:
        scheme, seed = task[-2:]
        path = _result_path(args, scheme, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(values) + "\n")
        print(f"measured {scheme} seed {seed}", file=sys.stderr, flush=True)

    tasks = [(str(args.worker_cache_dir or args.cache_dir), args.device, args.run_id, args.steps, args.train_steps,
              scheme, seed) for scheme, seed in todo]
    executor.run(measure_task, tasks, keep)


def read_calibration(path: Path) -> dict:
    """The calibration file at ``path``; exits with a message when it is missing or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        sys.exit(f"{path}: cannot read the calibration ({type(exc).__name__}: {exc}); run the full calibration first")


def certify_code(args: argparse.Namespace, seed: int) -> None:
    """Certify that today's training code trains the same weights as the code the calibration was measured
    under: for every scheme, ``seed``'s training as the suite runs it (the steps sweep's 6000 steps for a swept
    scheme), from the recorded code (found in the cache) and from today's (trained if absent), must give
    bit-identical weights at every checkpoint (:func:`llm_claims_lab.core.cache.tensors_digest`). On success today's code
    digest is added to the file's ``equivalent_training_code`` with the evidence; otherwise exits naming the
    schemes that differ (then recalibrate). The recorded weights may be those of a code certified before. With
    seed 42 the training is the suite's own, so it costs nothing extra."""
    data = read_calibration(args.out)
    old, new = data["training_code"], cache.code_digest(TRAINING_CODE)
    if new == old or new in data.get("equivalent_training_code", {}):
        return print(f"{args.out}: today's training code {new[:12]} is already the calibrated one", file=sys.stderr)
    lab, differ, digests = _lab(args.cache_dir, args.device, args.run_id, None), [], {}
    added = data.get("added_schemes", {})  # scheme -> the code it was calibrated under, when not ``old``

    def missing(progress: cache.Progress) -> cache.Tensors:
        raise SystemExit(f"{args.cache_dir} holds no seed-{seed} weights trained under the calibrated code: "
                         "certify where the calibration ran, or recalibrate")

    # Schemes new in today's code have no recorded weights: they are calibrated afterwards (--schemes). The
    # recorded weights are those of the calibrated code or, where the cache holds only those, of a code already
    # certified equivalent to it (same weights, bit for bit).
    for scheme in [s for s in SCHEMES if s in data["runs"]]:
        today = lab.entry_of(scheme, seed)
        codes = [added.get(scheme, {}).get("code", old), *data.get("equivalent_training_code", {})]
        candidates = [cache.Entry(today.name, {**today.fingerprint, "code": c}, missing) for c in codes]
        recorded = next((e for e in candidates if lab.weights.path(e).exists()), candidates[0])
        before, after = (cache.tensors_digest(lab.weights.fetch(e)) for e in (recorded, today))
        digests[scheme] = after
        if before != after:
            differ.append(scheme)
    if differ:
        sys.exit(f"training code {new[:12]} trains other weights than {old[:12]} for {', '.join(differ)}: recalibrate")
    data.setdefault("equivalent_training_code", {})[new] = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "evidence": f"seed {seed}: every scheme's weights, at every checkpoint the suite trains, bit-identical "
                    f"to those trained under {old[:12]} (or under a code certified equivalent to it)",
        "sha256": digests}
    write_text_atomic(args.out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{args.out}: training code {new[:12]} certified equivalent to {old[:12]}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="number of seeds, 1 … N (default 20)")
    parser.add_argument("--alibi-seeds", type=int, default=10,
                        help="seeds of the two ALiBi schemes, 4× costlier per step (default 10)")
    parser.add_argument("--control-seeds", type=int, default=5, help="seeds of the control schemes (default 5)")
    add_options(parser, jobs=1, what="tasks trained and evaluated")
    parser.add_argument("--train-steps", type=int, default=None, metavar="N",
                        help="a dry run: train N steps instead of the protocol's, --schemes choosing the schemes, "
                             "written afresh to --out (required; never the committed file)")
    parser.add_argument("--merge-only", action="store_true",
                        help="write the JSON from the results measured so far (whole seeds only), training nothing")
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    default_cache = os.environ.get("CLAIMS_CACHE_DIR") or ROOT / ".cache" / "claims"
    parser.add_argument("--cache-dir", default=default_cache,
                        help="weights cache (default: $CLAIMS_CACHE_DIR, else .cache/claims)")
    parser.add_argument("--out", type=Path, default=None,
                        help="calibration file (default: calibration/extrapolation.json on the CPU, "
                             "calibration/extrapolation-<device type>.json elsewhere)")
    parser.add_argument("--certify-code", type=int, metavar="SEED", default=None,
                        help="after an edit of the training code, retrain SEED of every scheme and record the "
                             "code as equivalent when the weights are bit-identical to the calibrated code's")
    parser.add_argument("--schemes", nargs="+", choices=SCHEMES, default=None, metavar="SCHEME",
                        help="calibrate only these schemes (e.g. one added to the code) and merge them into the "
                             "existing file, whose other schemes are kept; today's code must be the file's "
                             "calibrated code or certified equivalent to it (--certify-code)")
    parser.add_argument("--steps", type=int, choices=[s for s in CURVE_STEPS if s != ExtrapolationConfig.steps],
                        default=None, help="calibrate the steps sweep's checkpoint after this many steps (the swept "
                                           "schemes, or --schemes among them) into the file's steps_sweep section")
    parser.add_argument("--run-id", default=uuid.uuid4().hex, help=argparse.SUPPRESS)
    args = parser.parse_args()
    out_given = args.out is not None
    keep_freed_memory()  # as the suite's processes do: no value changes, fewer page faults
    try:
        usable_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    args.out = args.out or calibration_path(args.device, ROOT / "calibration")
    if torch.device(args.device).type == "cuda":
        pin_cuda_numerics()
    if args.certify_code is not None:
        if args.schemes:
            parser.error("--certify-code retrains seed SEED of every calibrated scheme: give --schemes in a second run")
        return certify_code(args, args.certify_code)
    if min(args.seeds, args.alibi_seeds, args.control_seeds) < 2 or args.jobs < 1:
        parser.error("every seed count must be at least 2 (a spread needs two values), --jobs at least 1")
    executor = from_options(parser, args)
    if args.train_steps is not None and (args.train_steps < 1 or not out_given or args.steps):
        parser.error("--train-steps N (N ≥ 1) is a dry run: give --out FILE, and no --steps")
    schemes = args.schemes or (SWEPT_SCHEMES if args.steps else SCHEMES)
    if args.steps and set(schemes) - set(SWEPT_SCHEMES):
        parser.error(f"--steps calibrates the steps sweep, whose schemes are {', '.join(SWEPT_SCHEMES)}")
    if (args.schemes or args.steps) and not args.train_steps:  # a dry run writes its --out afresh
        base = read_calibration(args.out)
        if not args.steps and (calibrated := sorted(set(args.schemes) & set(base["runs"]))):
            parser.error(f"{', '.join(calibrated)} already calibrated in {args.out}: --schemes adds schemes new to "
                         "the code; to recalibrate one, rerun the full calibration")
        code = cache.code_digest(TRAINING_CODE)
        if code != base["training_code"] and code not in base.get("equivalent_training_code", {}):
            parser.error(f"today's training code {code[:12]} is not the calibrated one of {args.out}: certify it "
                         "first (--certify-code 42) or recalibrate every scheme")
        if args.steps and (missing := sorted(set(schemes) - set(base["runs"]))):
            parser.error(f"{', '.join(missing)} not calibrated at the protocol's steps yet: run --schemes first")
    limit = {s: args.control_seeds if s in CONTROL_SCHEMES else args.alibi_seeds if s.startswith("alibi")
             else args.seeds for s in schemes}
    plan = [(scheme, seed) for seed in range(1, args.seeds + 1) for scheme in schemes if seed <= limit[scheme]]
    if not args.merge_only:
        try:
            _measure(args, executor, plan)
        except ImportError as exc:
            sys.exit(f"calibrate_extrapolation: {exc}")
        except Exception as exc:
            sys.exit(f"calibrate_extrapolation: a task failed ({type(exc).__name__}: {exc}); rerun: the finished "
                     "results are kept in the cache")

    per_scheme: dict[str, dict[str, list[float]]] = {}
    seeds: dict[str, list[int]] = {}
    whole = {seed for _, seed in plan if all(_result_path(args, s, k).exists() for s, k in plan if k == seed)}
    for scheme, seed in plan:
        path = _result_path(args, scheme, seed)
        if seed in whole:
            seeds.setdefault(scheme, []).append(seed)
            for name, value in json.loads(path.read_text(encoding="utf-8")).items():
                per_scheme.setdefault(scheme, {}).setdefault(name, []).append(value)
    if set(seeds) != set(schemes) or min(map(len, seeds.values())) < 2:
        sys.exit(f"too few results to calibrate: seeds measured per scheme {seeds}")
    noise = {scheme: {name: noise_components(v, values.get(f"{name}_eval_se"))
                      for name, v in values.items() if not name.endswith("_eval_se")}
             for scheme, values in per_scheme.items()}
    stamp = {"code": cache.code_digest(TRAINING_CODE), "torch": torch.__version__,
             "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    if args.steps:  # one section per budget; a scheme's values are replaced whole, the others kept
        section = base.setdefault("steps_sweep", {}).setdefault(str(args.steps), {"seeds": {}, "runs": {}, "noise": {}})
        for key, part in (("seeds", seeds), ("runs", per_scheme), ("noise", noise)):
            section[key] |= part
        section.setdefault("schemes", {}).update({s: stamp for s in schemes})
        write_text_atomic(args.out, json.dumps(base, indent=1, ensure_ascii=False) + "\n")
        return print(f"merged the {args.steps}-step checkpoint into {args.out}: seeds per scheme "
                     + ", ".join(f"{s} {len(v)}" for s, v in seeds.items()), file=sys.stderr)
    if args.schemes and not args.train_steps:
        for key, part in (("seeds", seeds), ("runs", per_scheme), ("noise", noise)):
            base[key] |= part
        base.setdefault("added_schemes", {}).update({s: stamp for s in schemes})
        write_text_atomic(args.out, json.dumps(base, indent=1, ensure_ascii=False) + "\n")
        return print(f"merged into {args.out}: seeds per scheme " + ", ".join(f"{s} {len(v)}" for s, v in seeds.items()),
                     file=sys.stderr)
    protocol = ExtrapolationConfig(steps=args.train_steps or ExtrapolationConfig.steps)
    data = {
        "about": "Per-seed values of post A's length-extrapolation protocol and their noise components; the "
                 "noise of the stochastic rows of claims/test_extrapolation*.py comes from here. Regenerate "
                 "with: python calibration/calibrate_extrapolation.py --seeds N --jobs J",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "device": cache.describe_device(args.device),
        "training_code": cache.code_digest(TRAINING_CODE),
        "protocol": {k: v for k, v in dataclasses.asdict(protocol).items() if k != "scheme"},
        "eval_sequences": EVAL_SEQUENCES,
        "seeds": seeds,
        "runs": per_scheme,
        "noise": noise,
    }
    write_text_atomic(args.out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: seeds per scheme " + ", ".join(f"{s} {len(v)}" for s, v in seeds.items()),
          file=sys.stderr)


if __name__ == "__main__":
    main()
