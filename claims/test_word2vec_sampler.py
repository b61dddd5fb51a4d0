"""Skip-gram's sampler: where post A's loop draws centres, contexts and negatives (nothing is trained).

Post A, exp. 1 "의미의 지도를 밑바닥부터 기르기" (``word2vec_zero.py`` (3): ``c = torch.randint(WIN, len(ids) − WIN)``,
``off = torch.randint(1, WIN + 1) · sign``, ``neg = torch.randint(0, V, (B, NEG))``) and "핵심 아이디어 (2) 네거티브
샘플링", measured on the suite's copy of the sampler (``llm_claims_lab.word2vec.skipgram.sample_batch``) on a corpus of
positions (ids 0 … N − 1, so each drawn id is its own index). Deterministic: seeded draws, counted exactly.
"""

import torch

from llm_claims_harness.declare import Case, Quote, at_most, claim, exact
from llm_claims_lab.word2vec.skipgram import SkipGramConfig, sample_batch

SAMPLER_CORPUS = 20  # tokens: small, so that the first and last centres are drawn often
SAMPLER_BATCHES = 1000
VOCAB = 10_000  # post A's vocabulary size: the range the negatives are drawn from
SAMPLE_SOURCE = "Post A, exp. 1 (3) the sampler ('off = torch.randint(1, WIN + 1) * sign  # 창 안의 이웃', WIN = 5)"


def _draws(seed: int, vocab_size: int = SAMPLER_CORPUS) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``center [n]``, ``ctx [n]`` and ``neg [n, K]`` of SAMPLER_BATCHES batches of the post's sampler, seeded."""
    cfg = SkipGramConfig(seed=seed)
    ids = torch.arange(SAMPLER_CORPUS)  # [N]: each id is its own position
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        draws = [sample_batch(ids, vocab_size, cfg, torch.device("cpu")) for _ in range(SAMPLER_BATCHES)]
    return tuple(torch.cat(side) for side in zip(*draws))


@claim(
    id="w2v.sampler_stays_inside",
    post="A", section="exp1",
    source="Post A, exp. 1 (3) centre positions ('WIN 크기 만큼 빼고 나머지 단어중에서 중심 단어를 뽑는 형태로 간략화')",
    statement="Drawing centre positions from [WIN, N − WIN) needs no boundary handling: every context index c + off "
              "(off in ±1 … ±WIN) lies inside the corpus and is a neighbour of its centre. Measured with the "
              f"suite's copy of post A's sampler (llm_claims_lab.word2vec.skipgram.sample_batch) on a corpus of positions (ids = "
              f"0 … N − 1, N = {SAMPLER_CORPUS}, so each drawn id is its own index), over {SAMPLER_BATCHES:,} "
              "batches of 1,024: the pairs whose context is not within ±1 … ±WIN of its centre (an index past "
              "the start wraps around to the end; one past the end raises).",
    kind="post", post_value=0, unit="pairs",
    quote=Quote("예를 들어 중심 단어에 5개 이내의 주변 단어를 찾아야 하는데, Corpus 제일 처음 끝과, 마지막은 오른쪽/왼쪽 "
                "5개를 포함할 수 없으니, WIN 크기 만큼 빼고 나머지 단어중에서 중심 단어를 뽑는 형태로 간략화를 "
                "진행하였습니다.",
                "For example, a centre word needs its neighbours within 5, but the very start and the end of the "
                "corpus cannot include 5 on the left/right, so we simplified by leaving WIN words out and drawing "
                "the centre word from the rest."),
    tolerance=exact(reason="a count"),
    expect_source="arithmetic: torch.randint(WIN, N − WIN) draws c in [WIN, N − WIN − 1] and |off| ≤ WIN, so c + off "
                  "is in [0, N − 1]; post A, exp. 1 (3) says the draw avoids the window's edge cases",
)
def test_sampler_stays_inside(verify, seed):
    cfg = SkipGramConfig(seed=seed)
    center, ctx, _ = _draws(seed)  # [n], [n]
    off = ctx - center
    strays = int(((off.abs() > cfg.window) | (off == 0)).sum())
    verify(strays, details={
        "pairs drawn": center.numel(), "context indices (min, max)": [int(ctx.min()), int(ctx.max())],
        "centres (min, max)": [int(center.min()), int(center.max())],
        "bounds by arithmetic": f"c ∈ [{cfg.window}, {SAMPLER_CORPUS - cfg.window - 1}], c + off ∈ "
                                f"[0, {SAMPLER_CORPUS - 1}]",
        "cost": f"the first and last {cfg.window} positions of the corpus are never centres, whatever its length"})


@claim(
    id="w2v.window_offsets",
    post="A", section="exp1",
    source=SAMPLE_SOURCE,
    statement="The context of a centre is any of the WIN = 5 neighbours on either side: the offsets the sampler "
              f"draws over {SAMPLER_BATCHES:,} batches of 1,024 are exactly ±1 … ±5, none missing and no other.",
    kind="post", post_value=[-5, -4, -3, -2, -1, 1, 2, 3, 4, 5], unit="offsets",
    quote=Quote("(5) 중심 단어에서 몆번째 떨어진 단어를 볼지 Offset 값 임의 지정 … off = torch.randint(1, WIN + 1, "
                "(B,), device=dev) * sign  # 창 안의 이웃",
                "(5) Pick at random the offset: how many words away from the centre to look … the draw, commented "
                "'a neighbour inside the window' (WIN = 5; step (4) draws the side, left or right)"),
    tolerance=exact(reason="a set of integers"),
    expect_source="post A's code: torch.randint(1, WIN + 1) draws 1 … WIN, times a random sign; 1,024,000 draws "
                  "miss one of 10 equally likely offsets with probability 10 · 0.9^1,024,000 ≈ 0",
)
def test_window_offsets(verify, seed):
    center, ctx, _ = _draws(seed)
    off = ctx - center  # [n]
    verify(sorted(set(off.tolist())),
           details={"draws per offset": {int(o): int((off == o).sum()) for o in off.unique()}})


@claim(
    id="w2v.negatives_uniform",
    post="A", section="skip-gram",
    source="Post A, '핵심 아이디어 (2) 네거티브 샘플링' ('진짜 정답(주변 단어) 1개와 아무렇게나 뽑은 오답(무작위 단어) 8개'); "
           "exp. 1 (3) ('neg = torch.randint(0, V, (B, NEG))  # 무작위 오답')",
    statement=f"The 8 wrong answers are random words of the whole vocabulary (V = {VOCAB:,}), drawn regardless of "
              f"the pair, measured over {SAMPLER_BATCHES:,} batches of 1,024 × 8 negatives.",
    kind="post", post_value="random words (무작위 단어)",
    quote=Quote("진짜 정답(주변 단어) 1개와 아무렇게나 뽑은 오답(무작위 단어) 8개만 가져와서 …",
                "take only the 1 true answer (the context word) and 8 randomly drawn wrong answers (random words) …"),
    expect_source="post A's code draws neg with torch.randint(0, V), independent of c and off",
    cases={
        "regardless_of_pair": Case(
            statement="Drawn regardless of the pair: the share of negatives equal to their pair's true context word "
                      "is at most 0.1 %.",
            unit="share of negatives",
            tolerance=at_most(0.001, reason=f"uniform draws over {VOCAB:,} rows hit the pair's own context 1 time in "
                                     f"{VOCAB:,} (0.01 %); 0.1 % is 10× that, while negatives drawn from the pair's "
                                     "context hit 100 %"),
            params={"measure": "regardless_of_pair"}),
        "whole_vocabulary": Case(
            statement=f"From the whole vocabulary: every one of the {VOCAB:,} ids is drawn as a negative at least "
                      "once (a range cut short by one, or a subset of the vocabulary, leaves ids never drawn).",
            unit="ids never drawn",
            tolerance=exact(reason="a count"),
            post_value=0,
            expect_source="arithmetic on post A's torch.randint(0, V): with 8,192,000 uniform draws over 10,000 "
                          "ids, some id is never drawn with probability ≤ 10,000 · (1 − 1/10,000)^8,192,000 ≈ "
                          "e^−810 ≈ 0",
            params={"measure": "whole_vocabulary"}),
    },
    version=2,
    version_note="v2 (review): the whole_vocabulary case added; the share of negatives equal to their context "
                 "(now the regardless_of_pair case, measure and tolerance unchanged) passed a sampler drawing from "
                 "part of the vocabulary",
)
def test_negatives_uniform(verify, seed, measure):
    _, ctx, neg = _draws(seed, VOCAB)  # ctx [n], neg [n, K]
    counts = torch.bincount(neg.reshape(-1), minlength=VOCAB)  # [V] (longer if an id ≥ V was drawn)
    details = {"negatives drawn": neg.numel(), "distinct ids drawn": int(neg.unique().numel()),
               "ids outside 0 … V − 1": int(counts[VOCAB:].sum()),
               "total variation distance from uniform":
                   round(0.5 * (counts[:VOCAB].double() / neg.numel() - 1 / VOCAB).abs().sum().item(), 4)}
    if measure == "regardless_of_pair":
        verify((neg == ctx[:, None]).float().mean().item(), details={**details, "uniform expectation": 1 / VOCAB})
    else:
        verify(int((counts[:VOCAB] == 0).sum()), details=details)
