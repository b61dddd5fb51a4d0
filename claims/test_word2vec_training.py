"""Skip-gram's training loop: the loss, and negative sampling's wall-clock speed.

Post A, exp. 1 "의미의 지도를 밑바닥부터 기르기" (``word2vec_zero.py``: (3) centre positions, (11) the loss) and
"핵심 아이디어 (2) 네거티브 샘플링", measured on the suite's copy of its loop (``llm_claims_lab/word2vec/skipgram.py``) and
on the run trained on Korean Wikipedia that ``test_word2vec.py`` judges (the sampler: ``test_word2vec_sampler.py``).
"""

import math
import statistics

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from llm_claims_harness.declare import DECISION_SIGMAS, Case, Quote, at_least, at_most, claim
from llm_claims_lab.word2vec.skipgram import SkipGram
from llm_claims_lab.word2vec.timing import time_steps
from llm_claims_lab.core.stats import mean_over_seeds
from claims.word2vec_common import KERNELS_DEVIATION, NS_QUOTE

BLOCKS, PAIRS = 5, 8  # timed steps of each kind: PAIRS per block, each block on a fresh copy of the model


@claim(
    id="ns.wallclock_speedup",
    post="A", section="skip-gram",
    source="Post A, '핵심 아이디어 (2) 네거티브 샘플링' ('계산 속도가 수천 배 빨라집니다')",
    statement="The literal reading, not the post's: '계산 속도' (computation speed) taken as the time of a whole "
              "training step of post A's loop, which then runs 'several thousand times' (≥ 2,000×) faster with "
              "negative sampling. What is timed: a full-softmax step (V=10,000) and a sampled step (1 + 8), same "
              "batch of 1,024, each step whole — lookups, scoring, backward and post A's dense Adam update of both "
              "10,000 × 100 tables, which sampling does not shrink, computed as this run trains (the deviation) — "
              f"same process and device, interleaved, in {BLOCKS} blocks of {PAIRS} of each, every block on a fresh copy of the model "
              "and optimizer (where the tables lie in memory moves a step's time by several per cent); on the CPU "
              "on one thread, each step timed by the thread's CPU time (on CUDA by wall time between "
              "synchronisations). A block's ratio is its shortest full-softmax step over its shortest sampled step: "
              "other processes only ever add time to a step (a descheduled thread, evicted caches), so the "
              "least-disturbed step of each kind measures the algorithm, not the load. Measured: the mean of the "
              "blocks' ratios, shown without ± noise: the ratio is this machine's (its memory bandwidth against "
              "its arithmetic), and committed runs of this protocol on machines of one kind differ by 2×, far beyond "
              "the blocks' spread within a run, which the details give as the spread of this run only. The sentence speaks of the scoring only (10,000 "
              "compared → 9), tested as the post's reading by ns.flop_ratio; this row shows what the saving is "
              "worth in the post's own loop.",
    kind="literal",
    quote=NS_QUOTE,
    expect_source="arithmetic: sampling shrinks only the output layer, by V/(1 + K) = 10,000/9 ≈ 1,111× "
                  "in FLOPs (ns.flop_ratio), and leaves the rest of a step (lookups, dense Adam over both "
                  "tables) as it is, so a step cannot get 2,000× faster",
    post_value="수천 배 (several thousand ×)",
    tolerance=at_least(2000, reason="'수천' means several thousand; we read it as at least 2,000×"),
    expect="refuted",
    deviation=KERNELS_DEVIATION,
    version=4,
    version_note=f"v4: no ± noise: the blocks' SD / √{BLOCKS} (e.g. 34.06 ± 0.53) claimed a precision that other "
                 "runs of the same protocol do not share (16.2× and 17.4× in two committed runs, 34–36× in two "
                 "others: the machine, not the blocks); the spread stays in the details as this run's; measure, "
                 "tolerance and expectation unchanged, the verdict decided by the bound alone (a ratio capped near "
                 "1,111× by its arithmetic cannot come near 2,000×). v3 (issue 30): the row measured the machine's load (10.8× committed, 14.1× alone on an idle "
                 "machine, 1.0× in a fresh clone's pytest -n auto beside other work: torch's thread pool "
                 "oversubscribed): the steps now run on one thread, interleaved, timed by the thread's CPU time, "
                 "in blocks on fresh copies of the model, and the ratio is of the shortest step of each kind per "
                 "block, averaged over the blocks (noise: their spread), not of medians of wall times taken one kind "
                 f"after the other (noise: a bootstrap over the steps); {BLOCKS * PAIRS} steps of each kind instead "
                 "of 20, computed with the run's kernels (--claims-w2v-kernels, fast by default) instead of post A's "
                 "code as written (benchmarks/bench_wallclock_speedup.py: the ratio under two busy processes reads a few per "
                 "cent below its idle value); tolerance and expectation unchanged. v2: re-read under the reading rule (issue 19): '계산 속도' in its paragraph "
                 "is the scoring of 9 candidates instead of 10,000, while this row times whole steps with dense "
                 "Adam over both tables, which caps the ratio by design; it becomes kind 'literal' (shown apart, "
                 "never counted against the post) and its statement says what it times",
)
def test_wallclock_speedup(verify, word2vec, device):
    cfg, data = word2vec.config, word2vec.corpus
    ids = data.ids.to(device)
    torch.manual_seed(cfg.seed)
    model = SkipGram(len(data.vocab), cfg.dim, kernels=cfg.kernels).to(device)
    times = time_steps(model, ids, cfg, device, blocks=BLOCKS, pairs=PAIRS)
    ratio, se = times.speedup()
    verify(ratio,
           details={f"this run's spread (the blocks' SD / √{BLOCKS}; not between runs or machines)": round(se, 2),"full softmax (ms/step): shortest, median": [round(times.full.min() * 1e3, 2),
                                                                  round(float(np.median(times.full)) * 1e3, 2)],
                    "negative sampling (ms/step): shortest, median": [round(times.sampled.min() * 1e3, 2),
                                                                       round(float(np.median(times.sampled)) * 1e3, 2)],
                    "ratio per block": [round(float(r), 2) for r in times.block_speedups()],
                    "ratio of medians": round(float(np.median(times.full) / np.median(times.sampled)), 2),
                    "clock": times.clock,
                    "timing thread's share of the wall time": None if times.share is None else round(times.share, 2),
                    "spread covers": "the blocks within this run (copies of the model, step to step); the shortest "
                                     "step of each kind is the one least disturbed by other processes",
                    "device": str(device)})


LAST = 50  # recorded losses (every 100 steps) over which the batch-to-batch noise of one recorded loss is taken


@claim(
    id="w2v.loss_toward_negative",
    post="A", section="exp1",
    source="Post A, exp. 1 (11) the loss ('오차를 가장 작게(음수 방향으로) 만드는 것이 목표')",
    statement="Training drives the negative-sampling loss 'toward negative' (음수 방향으로). Two readings, each a "
              "row: the post's, the loss moves downward ('가장 작게': as small as possible, '음수 방향': the "
              "negative direction on the number line); the literal one, the loss reaches negative values, which "
              "the post's own loss, a sum of −log σ terms, cannot. Measured on the trained run's loss, recorded "
              "every 100 steps (200 batch losses); noise: the SD of the last "
              f"{LAST} recorded losses (batch-to-batch variation at the end of training).",
    unit="(loss)",
    quote=Quote("컴퓨터가 얼마나 문제를 잘 맞혔는지 평가하는 최종 오차(Loss)를 구합니다. 딥러닝은 이 오차를 가장 "
                "작게(음수 방향으로) 만드는 것이 목표입니다.",
                "We compute the final error (loss) that scores how well the computer answered. Deep learning's goal "
                "is to make this error as small as possible (in the negative direction)."),
    cases={
        "below_zero": Case(
            statement="The literal reading, not the post's: the loss goes below 0, the smallest of the 200 recorded "
                      "batch losses is < 0.",
            tolerance=at_most(0.0, reason="'negative' = below 0", strict=True),
            expect="refuted", kind="literal",
            expect_source="arithmetic: the loss is −(mean log σ(s⁺) + mean log σ(−s⁻)) and log σ(x) < 0 for every "
                          "finite x, so every batch loss is > 0; its infimum 0 is approached only as every positive "
                          "score goes to +∞ and every negative one to −∞"),
        "decreases": Case(
            statement="The post's reading: the loss moves downward, the mean of the last 10 recorded losses (steps "
                      "19,100–20,000) minus the first recorded loss (step 100) is < 0. '음수 방향으로' glosses "
                      "'가장 작게' (as small as possible): the direction of the change, since the post's own loss "
                      "(its step (11)) is a sum of −log σ terms and so always positive.",
            tolerance=at_most(0.0, reason="any decrease is the post's reading ('가장 작게': as small as possible)",
                              strict=True),
            kind="post",
            expect_source="post A's sentence ('가장 작게 만드는 것이 목표': make the loss as small as possible) and "
                          "its loop: Adam minimises the loss. Positive control (the row errors without it): the "
                          "final loss is below the shuffled-corpus model's by more than 3 SD, since a loop that "
                          "learns only word frequencies lowers its loss too"),
    },
    deviation=KERNELS_DEVIATION,
    version=2,
    version_note="v2: re-read under the reading rule (issue 19): '음수 방향으로' most naturally reads 'downward' "
                 "(it glosses '가장 작게'), and a sum of −log σ terms cannot be negative, so below_zero was refuted "
                 "by construction; it becomes kind 'literal' (shown apart, never counted against the post) and "
                 "decreases is the post's row; measures, tolerances and expectations unchanged",
)
def test_loss_toward_negative(verify, word2vec, case):
    models = word2vec.models("trained")  # one per seed of --claims-seeds; the first is the run's seed
    losses = models[0].losses  # every 100 steps
    noise = statistics.stdev(losses[-LAST:])
    details = {"first (step 100)": round(losses[0], 4), "smallest": round(min(losses), 4),
               "at step": 100 * (losses.index(min(losses)) + 1), "last (step 20,000)": round(losses[-1], 4),
               "shuffled-corpus baseline, smallest": round(min(word2vec.model("shuffled").losses), 4),
               f"SD of the last {LAST} recorded losses": round(noise, 4),
               "the floor": "0, the loss when every positive score is +∞ and every negative one −∞ "
                            f"(at scores ±30 in float32: {_loss_at_scores(30.0):.2e})"}
    values = [min(m.losses) if case == "below_zero" else statistics.fmean(m.losses[-10:]) - m.losses[0]
              for m in models]
    if len(models) > 1:
        details["per seed"] = {s: round(v, 4) for s, v in zip(word2vec.seeds, values)}
    if case == "decreases":
        _require_below_shuffled(losses, word2vec.model("shuffled").losses, noise, details)
    measured, total = mean_over_seeds(values, noise if case == "below_zero" else noise * math.sqrt(1 + 1 / 10))
    verify(measured, noise=total, details=details)


def _require_below_shuffled(trained: list[float], shuffled: list[float], noise: float, details: dict) -> None:
    """Positive control of the post's reading: any minimiser lowers its loss, the shuffled-corpus model's too (a
    corpus with no context left, where only word frequencies can be learned), so a decrease shows the post's loop
    learned the corpus only if its final loss (mean of the last 10 recorded) is below the shuffled model's by more
    than DECISION_SIGMAS SDs of the difference (each mean's SD: ``noise``/√10). Fails the row otherwise."""
    gap = statistics.fmean(shuffled[-10:]) - statistics.fmean(trained[-10:])
    sd = noise * math.sqrt(2 / 10)
    details["shuffled − trained, final (SD)"] = f"{gap:.4f} ({sd:.4f})"
    if not gap > DECISION_SIGMAS * sd:
        pytest.fail(f"positive control failed: the trained loss ends {gap:.4f} below the shuffled-corpus model's "
                    f"(SD {sd:.4f}; needs > {DECISION_SIGMAS:g} SD): the loop lowers the loss no further than on a "
                    "corpus without context, so its decrease does not show the post's training at work")


def _loss_at_scores(score: float) -> float:
    """Post A's loss for one centre whose positive score is ``score`` and whose 8 negative scores are ``−score``."""
    pos, neg = torch.tensor([score]), torch.full((1, 8), -score)
    return -(F.logsigmoid(pos).mean() + F.logsigmoid(-neg).mean()).item()
