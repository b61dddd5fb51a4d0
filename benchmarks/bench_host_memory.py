"""Time training with and without :func:`llm_claims_lab.core.host_memory.keep_freed_memory`, and check the weights match.

Run: ``python benchmarks/bench_host_memory.py [--rounds 3] [--steps 1500]``. Each round trains, in fresh
processes (the thresholds are process-wide), post A's skip-gram loop (``--steps`` steps, V = 10,000 on a
random corpus, one thread, as the fixture trains) and post A's ALiBi extrapolation model (``--steps`` / 5
steps), once with glibc's default thresholds and once with the suite's, alternating. Prints per mode the
median ms per step, kernel (system) seconds and minor page faults, and whether every weight is bit-identical.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, resource, sys, time, torch
from safetensors.torch import save_file
from llm_claims_lab.core.host_memory import keep_freed_memory
mode, steps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if mode == "kept":
    assert keep_freed_memory()
from llm_claims_lab.extrapolation.model import ExtrapolationConfig
from llm_claims_lab.extrapolation.training import train as train_extrapolation
from llm_claims_lab.word2vec.skipgram import SkipGramConfig, train as train_skipgram
torch.manual_seed(0)
ids = torch.randint(0, 10_000, (2_000_000,))  # [N]
result, weights = {}, {}
for name, run, n in [
        ("skipgram", lambda n: train_skipgram(ids, 10_000, SkipGramConfig(seed=42, steps=n), torch.device("cpu"))[0]
         .state_dict(), steps),
        ("alibi", lambda n: train_extrapolation(ExtrapolationConfig(scheme="alibi", steps=n), 42, torch.device("cpu")),
         steps // 5)]:
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    state = run(n)
    after = resource.getrusage(resource.RUSAGE_SELF)
    result[name] = {"ms_per_step": (time.perf_counter() - start) / n * 1e3, "sys_s": after.ru_stime - before.ru_stime,
                    "minor_faults": after.ru_minflt - before.ru_minflt}
    weights.update({f"{name}/{k}": v.contiguous() for k, v in state.items()})
save_file(weights, out)
print(json.dumps(result))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=1500)
    args = parser.parse_args()
    if args.rounds < 1 or args.steps < 5:
        parser.error("--rounds must be ≥ 1 and --steps ≥ 5")
    from safetensors.torch import load_file

    runs: dict[str, list[dict]] = {"default": [], "kept": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for mode in runs:
                out = Path(tmp) / f"{mode}-{r}.safetensors"
                done = subprocess.run([sys.executable, "-c", CHILD, mode, str(args.steps), str(out)],
                                      check=True, capture_output=True, text=True)
                runs[mode].append(json.loads(done.stdout.strip().splitlines()[-1]))
        reference = load_file(Path(tmp) / "default-0.safetensors")
        identical = all(all(v.equal(reference[k]) for k, v in load_file(path).items())
                        for path in Path(tmp).glob("*.safetensors"))
    for model in ("skipgram", "alibi"):
        for mode, results in runs.items():
            median = {q: statistics.median(r[model][q] for r in results) for q in results[0][model]}
            print(f"{model:8s} {mode:7s}  {median['ms_per_step']:6.2f} ms/step  system {median['sys_s']:5.2f} s  "
                  f"minor faults {median['minor_faults']:>9,.0f}")
    print(f"weights bit-identical across modes and rounds: {identical}")


if __name__ == "__main__":
    main()
