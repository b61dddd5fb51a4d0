"""Post A's first reason for drawing centre words at random: no bias toward one stretch of the corpus.

Post A, exp. 1 (3) the sampler: centre words are not taken "from the start one by one" but at random, for three reasons,
the first "(1) 특정 문단 세그먼트에서 나오는 단어과도 구성 방지. 즉 편향성 방지" (no over-representation of one paragraph
segment's words: no bias). The other two, GPU parallelism and the window's edge cases, are about the code, not the table.

Read in context: the alternative is the corpus in order, so a batch holds one stretch's words, and the table drifts
toward the stretch it trained on last. Measured: post A's protocol trained twice at the run's seed, centres drawn at
random (post A's, the ``trained`` model) and in corpus order (``sequential``: each step the next 1,024 centre positions,
wrapping around, :data:`llm_claims_lab.word2vec.skipgram.CENTRE_ORDERS`); each table's recency gap, post A's loss on
the tenth of the corpus the order trained longest ago minus on the tenth it trained last
(:mod:`llm_claims_lab.word2vec.centre_order`); the statistic is the sequential gap minus the random gap on the same
stretches, so each stretch's own difficulty cancels.
"""

import dataclasses
import math
import statistics

import pytest
import torch

from claims.word2vec_common import KERNELS_DEVIATION, vocabulary
from llm_claims_harness.declare import Quote, at_least, claim
from llm_claims_lab.core.stats import mean_over_seeds
from llm_claims_lab.word2vec.centre_order import BLOCK, GAP, SHARE, age_profile, block_se, centre_losses, stretches
from llm_claims_lab.word2vec.relatedness import spearman, ws353_score
from llm_claims_lab.word2vec.skipgram import SkipGramConfig, sample_batch

BATCHES = 100  # the first steps over which a batch's distinct centre words are counted (details)
BLOCKS = (1_024, BLOCK, 16_384)  # block lengths of the stretches' SE: BLOCK's is the noise, the others are shown


def _require_order(cfg, n_tokens: int) -> None:
    """Run check: the sequential sampler takes the corpus in order (step 1 the first B centre positions), and its last
    step ends where the evaluation's last stretch ends, the oldest stretch following; fails the row otherwise (a
    sampler that ignores the order, or stretches that are not the ones it trained last and longest ago)."""
    seq = dataclasses.replace(cfg, centre_order="sequential")
    positions = torch.arange(n_tokens)  # [N]: each id its own position
    first = sample_batch(positions, 1, seq, torch.device("cpu"), 1)[0]  # [B]
    last = sample_batch(positions, 1, seq, torch.device("cpu"), seq.steps)[0]  # [B]
    after = sample_batch(positions, 1, seq, torch.device("cpu"), seq.steps + 1)[0]  # [B]
    found = stretches(n_tokens, seq)
    if not (torch.equal(first, torch.arange(seq.window, seq.window + seq.batch)) and
            int(last[-1]) == int(found["last"][-1]) and int(after[0]) == int(found["oldest"][0])):
        pytest.fail("run check failed: the sequential sampler's centres are not the corpus in order ending where the "
                    f"last stretch ends (step 1 starts at {int(first[0])}, the last step ends at {int(last[-1])}, the "
                    f"next starts at {int(after[0])}; stretches: last ends at {int(found['last'][-1])}, oldest starts "
                    f"at {int(found['oldest'][0])})")


def _distinct_per_batch(ids: torch.Tensor, cfg, order: str) -> float:
    """The mean number of distinct centre words in a batch over the first :data:`BATCHES` steps of ``order``."""
    config = dataclasses.replace(cfg, centre_order=order)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(cfg.seed)
        counts = [sample_batch(ids, 1, config, torch.device("cpu"), step)[0].unique().numel()
                  for step in range(1, BATCHES + 1)]
    return sum(counts) / len(counts)


def _paired(random, ordered, ids: torch.Tensor, cfg) -> dict:
    """One seed's statistic: each stretch's per-centre loss of the ordered table minus the random one's (paired on the
    same pairs), the oldest stretch's mean minus the last's, its batch-means SE for each block length of
    :data:`BLOCKS` (:func:`~llm_claims_lab.word2vec.centre_order.block_se`, both stretches' parts combined), each
    table's mean loss
    on each stretch (``mean``: stretch -> order -> loss), and each table's gap."""
    found = {name: {order: centre_losses(m.w_in, m.w_out, ids, centres, cfg)  # [L]
                    for order, m in (("random", random), ("in corpus order", ordered))}
             for name, centres in stretches(len(ids), cfg).items()}
    paired = {name: losses["in corpus order"] - losses["random"] for name, losses in found.items()}  # [L] each
    mean = {name: {order: losses.mean().item() for order, losses in by_order.items()} for name, by_order in found.items()}
    gaps = {order: [round(mean[s][order], 5) for s in ("oldest", "last")] for order in mean["last"]}
    return {"difference": (paired["oldest"].mean() - paired["last"].mean()).item(), "mean": mean,
            "se": {block: math.hypot(*(block_se(d, block) for d in paired.values())) for block in BLOCKS},
            "loss (oldest stretch, last stretch, gap)": {order: [*v, round(v[0] - v[1], 5)] for order, v in gaps.items()}}


@claim(
    id="w2v.centre_order",
    post="A", section="exp1",
    source="Post A, exp. 1 (3) the sampler ('임의로 가지고 와서 …', reason (1) '특정 문단 세그먼트에서 나오는 단어과도 구성 "
           "방지. 즉 편향성 방지')",
    statement="Drawing centre words at random, not in corpus order, keeps the table from a bias toward the words of "
              "one stretch of the corpus. Post A's protocol trained with centres drawn at random (post A's) and in "
              f"corpus order (each step the next {SkipGramConfig.batch:,} centre positions, wrapping around; the "
              "other draws post A's); each table's recency gap is post A's loss (float64; one context and "
              f"{SkipGramConfig.negatives} negatives per centre, drawn "
              "once, the same for both tables) on the tenth of the centre positions the ordered run trained longest "
              "ago minus on the tenth it trained last. Measured: the ordered table's gap minus the random table's "
              "(the same stretches and pairs; the mean over the run's seeds). The sentence holds when it is > 0 by 3 "
              "SD of its noise: the training seeds' and the stretches' (their positions' losses are correlated "
              f"within an article: a batch-means SE over blocks of {BLOCK:,} positions). Run checks error the row when the ordered sampler does not take the corpus in "
              "order ending where the last stretch ends, or the two orders' tables are one.",
    kind="post", unit="(loss)",
    post_value="편향성 방지 (prevents bias)",
    quote=Quote("일단, 중심단어를 초반부터 하나씩 모두 가지고 와서 계산하는 것이 아니라, 여기서는 임의로 가지고 와서 처리를 "
                "하계 구성되어 있습니다. 이유는 크게 3가지인데, (1) 특정 문단 세그먼트에서 나오는 단어과도 구성 방지. 즉 "
                "편향성 방지",
                "First, the centre words are not taken from the start one by one: here they are taken at random. "
                "There are three main reasons: (1) to keep the words of one paragraph segment from being "
                "over-represented, that is, to prevent bias"),
    tolerance=at_least(0.0, strict=True, reason="the post states a direction (random order prevents a bias), not a "
                                                "size: any recency bias of the ordered table beyond the random "
                                                "table's on the same stretches, decided by the 3-SD rule"),
    expect_source="post A's reason (1); Bottou 2012, 'Stochastic Gradient Descent Tricks' (Neural Networks: Tricks of "
                  "the Trade, 2nd ed.): shuffle the training examples; McCloskey & Cohen 1989 (catastrophic "
                  "interference): training on one stretch after another overwrites what the earlier ones taught. "
                  "Registered before either order's loss gap was measured on the corpus",
    deviation=KERNELS_DEVIATION + " The ordered table is not post A's: it is the alternative post A's reason rejects, "
                                  "trained with post A's protocol otherwise (sizes, steps, seed, the draws of side, "
                                  "offset and negatives). Noise: the SD over calibration seeds 1–5 of the paired "
                                  "difference (calibration/word2vec.json), / √(the run's seeds), combined with the "
                                  f"stretches' batch-means SE (blocks of {BLOCK:,} positions), which no seed count "
                                  "narrows.",
    version=2,
    version_note="v2 (a review, before any landing): the noise adds the stretches' SE. v1's was the training seeds' "
                 "alone (0.0014), but every seed is judged on the same two stretches and pairs, whose own sampling "
                 "error is larger: a batch-means SE of 0.0025 over blocks of 1,024 positions, 0.0036 over 4,096 "
                 "(the review's, at seed 42, seen before this noise was chosen). Reading, statistic, bound and "
                 "expectation unchanged; v1's value 0.0387 ± 0.0014 (holds). The details add the loss difference by "
                 "age of every tenth of the corpus",
)
def test_centre_order(verify, word2vec, ws353, w2v_seed_noise):
    cfg, ids = word2vec.config, word2vec.corpus.ids
    _require_order(cfg, len(ids))
    per_seed, rho, vocab = {}, {}, vocabulary(word2vec)
    for seed, random, ordered in zip(word2vec.seeds, word2vec.models("trained"), word2vec.models("sequential")):
        if torch.equal(random.w_in, ordered.w_in):
            pytest.fail(f"run check failed: seed {seed}'s table in corpus order is its random-order table (a model "
                        "kind mixed up): the row would compare a table with itself")
        per_seed[seed] = _paired(random, ordered, ids, cfg)
        tables = {"random": random, "in corpus order": ordered}
        rho[seed] = {name: round(float(spearman(*ws353_score(m.w_in, vocab, ws353)[:2])), 4)
                     for name, m in tables.items()}
    first = word2vec.seeds[0]
    # age 0 is the last stretch, whose losses _paired has
    profiles = {order: [per_seed[first]["mean"]["last"][order], *age_profile(m.w_in, m.w_out, ids, cfg, range(1, SHARE))]
                for order, m in (("random", word2vec.model("trained")),
                                 ("in corpus order", word2vec.model("sequential")))}
    differences = [found["difference"] for found in per_seed.values()]
    eval_se = statistics.fmean(found["se"][BLOCK] for found in per_seed.values())
    seed_sd, note = w2v_seed_noise(GAP)
    measured, noise = mean_over_seeds(differences, eval_se, seed_sd)
    positions = len(ids) - 2 * cfg.window
    details = {
        "loss by seed and order (oldest stretch, last stretch, gap)": {
            seed: found["loss (oldest stretch, last stretch, gap)"] for seed, found in per_seed.items()},
        f"ordered − random loss by age, seed {first} (tenths of the corpus, the tenth trained last first)":
            [round(o - r, 4) for o, r in zip(profiles["in corpus order"], profiles["random"])],
        "the bias's size": f"{measured / per_seed[first]['mean']['oldest']['random']:.1%} of the random table's loss on "
                           f"the oldest stretch (seed {first})",
        "stretch": f"{positions // SHARE:,} centre positions (1/{SHARE} of {positions:,}); the ordered run took "
                   f"{cfg.steps * cfg.batch / positions:.1f} passes over the corpus",
        f"distinct centre words per batch (first {BATCHES} steps)": {
            order: round(_distinct_per_batch(ids, cfg, order), 1) for order in ("random", "sequential")},
        "WS-353 ρ by seed and order (not judged here)": rho, "seed noise": note,
        "noise parts": {"seeds": len(differences), "seed SD": round(seed_sd, 5),
                        f"the stretches' SE (blocks of {BLOCK:,} positions; shared by the seeds)": round(eval_se, 5),
                        "the stretches' SE with other blocks (not used)": {
                            f"{block:,}": round(statistics.fmean(f["se"][block] for f in per_seed.values()), 5)
                            for block in BLOCKS if block != BLOCK}}}
    verify(measured, noise=noise, details=details)
