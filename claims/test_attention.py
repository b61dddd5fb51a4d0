"""Position inside attention: order-blindness without PE, RoPE's relative scores, insertion invariance.

Post A, "위치: 순환을 버린 대가" (ref. part 5); post B, "position 정보가 attention 안에서 쓰이는 방식",
"요즘 모델은 RoPE를 더 많이 쓴다", figure 3.
"""

import torch

from llm_claims_lab.attention import SingleHeadSelfAttention
from llm_claims_harness.declare import Case, at_least, at_most, claim, exact
from llm_claims_lab.positional import (ALiBiBias, LearnedPositionalEmbedding, RelativePositionBias, apply_rope,
                                 relative_offsets, sinusoidal_table)
from llm_claims_lab.stats import standard_error

FLOAT64_NOISE = at_most(1e-9, "float64 rounding (~1e-15 per op) on O(10) values; a position-dependent "
                              "computation differs by O(0.1–10)")


@claim(
    id="attn.order_blind_without_pe",
    source="Post A, '5편 실험 1' (recalled in '위치: 순환을 버린 대가'); post B, introduction",
    statement="Self-attention without PE cannot tell positions apart: permuting the input permutes the "
              "output. Measured: max |attn(x[:, π]) − attn(x)[:, π]| (B=4, T=10, D=128, float64).",
    tolerance=FLOAT64_NOISE,
    cases={
        "without_pe": Case(
            statement="no positional encoding: the residual is rounding noise.", kind="post",
            expect_source="post A, '위치: 순환을 버린 대가' (recalling part 5, exp. 1) and post B's introduction: "
                          "self-attention alone compares the whole input at once and cannot see order"),
        "with_sinusoidal_pe": Case(
            statement="control: with sinusoidal PE added to the input, permuting changes the output "
                      "beyond a permutation (residual ≥ 1e-3).",
            tolerance=at_least(1e-3, "six orders of magnitude above the float64 noise bound of the "
                                     "other case; PE terms of size ~1 move outputs by O(0.1–1)"),
            kind="control",
            expect_source="control's design: a position-dependent input term breaks permutation "
                          "equivariance, so the measure can see order when there is order to see"),
    },
)
def test_order_blind_without_pe(verify, case, generator):
    attn = SingleHeadSelfAttention(128, generator=generator).double()
    x = torch.randn(4, 10, 128, generator=generator, dtype=torch.float64)  # [B, T, D] token embeddings
    perm = torch.randperm(10, generator=generator)  # [T]
    pe = sinusoidal_table(10, 128, dtype=torch.float64) if case == "with_sinusoidal_pe" else 0.0  # [T, D]
    with torch.no_grad():
        out = attn(x + pe)  # [B, T, D]
        out_perm = attn(x[:, perm] + pe)  # [B, T, D]: the same tokens in another order
    verify((out_perm - out[:, perm]).abs().max().item())


@claim(
    id="rope.score_depends_only_on_offset",
    source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다'",
    statement="Rotating q and k by their positions makes rope(q, m)·rope(k, n) a function of m − n "
              "alone (D=64, m, n in 0–63, float64).",
    tolerance=FLOAT64_NOISE,
    cases={
        "same_offset_spread": Case(
            statement="largest spread (max − min) of the score over pairs with the same offset m − n.",
            kind="post",
            expect_source="post B: 'RoPE는 query와 key 벡터를 position에 따라 회전시킨다. 이 방식은 상대 위치 정보를 "
                          "attention score 안에 더 직접적으로 넣는다'; Su et al. 2021 (RoFormer): "
                          "R_m^T R_n = R_(n−m)"),
        "varies_with_offset": Case(
            statement="control: the score does change with the offset (range of the per-offset score ≥ 0.1).",
            tolerance=at_least(0.1, "|q·k| ~ √64·1 = 8 for unit-normal q, k: rotations by different "
                                    "angles move it by O(1); without any rotation it would be exactly 0"),
            kind="control",
            expect_source="control's design: a rotation that depends on the offset must move the score, "
                          "else the other case holds trivially (e.g. no rotation at all)"),
    },
)
def test_rope_score_depends_only_on_offset(verify, case, generator):
    q, k = torch.randn(2, 64, generator=generator, dtype=torch.float64)  # [D] each
    positions = torch.arange(64)
    rq = apply_rope(q.expand(64, 64), positions)  # [T, D]: q at every position m
    rk = apply_rope(k.expand(64, 64), positions)  # [T, D]: k at every position n
    scores = rq @ rk.T  # [T, T]: score[m, n]
    per_offset = [torch.diagonal(scores, offset=o) for o in range(-63, 64)]  # score along m − n = −o
    if case == "same_offset_spread":
        verify(max((d.max() - d.min()).item() for d in per_offset))
    else:
        means = torch.stack([d.mean() for d in per_offset])  # [2T − 1]
        verify((means.max() - means.min()).item())


SCHEMES = ["relative_bias", "rope", "sinusoidal", "learned"]
CHANGED = at_least(1e-3, "six orders above float64 noise; position terms of size ~1 move logits by O(0.1–1)")
MID_SOURCE = ("post B, after figure 3 ('밥을 다음에 동사가 온다는 구조는 유지된다'): with 정말 inserted after the first "
              "word, the verb's absolute position moves and the verb still follows 밥을")
STRADDLE_SOURCE = ("arithmetic: a pair that straddles the inserted token is one position further apart, and these "
                   "schemes' logit is a function of the offset (Shaw et al. 2018; Su et al. 2021)")


@claim(
    id="pos.relative_survives_insertion",
    source="Post B, figure 3 ('문장 앞에 토큰이 끼어들면') and the example after it ('나는 정말 오늘 밥을 먹었다')",
    statement="Inserting a token shifts absolute positions but keeps relative ones: the attention logits "
              "among the original tokens are unchanged for relative schemes and changed for absolute ones. "
              "Measured: max |logit change| over the original token pairs (T=6 → 7, D=64, float64).",
    tolerance=FLOAT64_NOISE,
    kind="post",
    expect_source="post B, figure 3: '문장 앞에 토큰이 끼어들면 절대 position은 밀리지만, 주변 토큰과의 상대 관계는 "
                  "유지된다' (a token inserted in front shifts absolute positions, relative ones stay)",
    cases={
        "relative_bias": Case(statement="in front (figure 3); per-offset relative bias (post A's rel, random "
                                        "entries): unchanged."),
        "rope": Case(statement="in front; RoPE: unchanged."),
        "sinusoidal": Case(statement="in front; sinusoidal PE added to the input (absolute): changed (≥ 1e-3).",
                           tolerance=CHANGED),
        "learned": Case(
            statement="in front; learned table added to the input (absolute; entries ~N(0, 1), the scale of the "
                      "token embeddings): changed (≥ 1e-3).",
            tolerance=CHANGED),
        "mid_relative_bias": Case(
            statement="after the first token (post B's 정말); relative bias: logits among the tokens after the "
                      "insertion (the post's 밥을 → 먹었다) unchanged.", expect_source=MID_SOURCE),
        "mid_rope": Case(statement="after the first token; RoPE: logits among the tokens after it unchanged.",
                         expect_source=MID_SOURCE),
        "mid_sinusoidal": Case(statement="after the first token; sinusoidal PE: logits among the tokens after "
                                         "it changed (≥ 1e-3).", tolerance=CHANGED, expect_source=MID_SOURCE),
        "mid_learned": Case(statement="after the first token; learned table: logits among the tokens after it "
                                      "changed (≥ 1e-3).", tolerance=CHANGED, expect_source=MID_SOURCE),
        "mid_straddling_relative_bias": Case(
            statement="after the first token; relative bias: logits between the first token and the tokens "
                      "after the insertion do change (≥ 1e-3): relative relations survive only on one side.",
            tolerance=CHANGED, kind="beyond", expect_source=STRADDLE_SOURCE),
        "mid_straddling_rope": Case(
            statement="after the first token; RoPE: logits between the first token and the tokens after the "
                      "insertion do change (≥ 1e-3).",
            tolerance=CHANGED, kind="beyond", expect_source=STRADDLE_SOURCE),
    },
    version=2,
    version_note="issue 10: post B's text inserts 정말 mid-sentence, not at the front as its figure does; the "
                 "front cases are unchanged (same draws, same values) and mid-sentence cases are added: pairs "
                 "after the insertion (the post's claim) and, beyond the post, pairs that straddle it",
)
def test_relative_survives_insertion(verify, case, generator):
    scheme = case  # the case id names the scheme and where the token is inserted
    d_model, seq_len = 64, 6
    attn = SingleHeadSelfAttention(d_model, generator=generator).double()
    tok_emb = torch.randn(50, d_model, generator=generator, dtype=torch.float64)  # [V, D]
    ids = torch.randint(0, 50, (1, seq_len), generator=generator)  # [B=1, T]
    longer = torch.cat([torch.randint(0, 50, (1, 1), generator=generator), ids], dim=1)  # [1, T + 1]
    rel = RelativePositionBias(seq_len + 1).double()
    learned = LearnedPositionalEmbedding(seq_len + 1, d_model, init_std=1.0).double()
    with torch.no_grad():  # draws from this test's generator, not the global stream: order-independent
        rel.bias.copy_(torch.randn(rel.bias.shape, generator=generator, dtype=torch.float64))
        learned.weight.copy_(torch.randn(learned.weight.shape, generator=generator, dtype=torch.float64))

    kind = scheme.removeprefix("mid_").removeprefix("straddling_")

    def logits(x_ids: torch.Tensor) -> torch.Tensor:  # [1, T', T']
        t = x_ids.shape[1]
        h = tok_emb[x_ids]  # [1, T', D]
        if kind == "sinusoidal":
            return attn.logits(h + sinusoidal_table(t, d_model, dtype=torch.float64))
        if kind == "learned":
            return attn.logits(h + learned(t))
        if kind == "rope":
            return attn.logits(h, rope_positions=torch.arange(t))
        return attn.logits(h, bias=rel(t, t))

    with torch.no_grad():
        before = logits(ids)[0]  # [T, T]
        if not scheme.startswith("mid_"):
            after = logits(longer)[0, 1:, 1:]  # [T, T]: the same token pairs, one position later
            verify((after - before).abs().max().item())
            return
        middle = torch.cat([ids[:, :1], longer[:, :1], ids[:, 1:]], dim=1)  # [1, T + 1]: the same token, after the first
        moved = logits(middle)[0]  # [T + 1, T + 1]
        keep = [0] + list(range(2, seq_len + 1))  # rows/columns of the original tokens in the longer sequence
        after = moved[keep][:, keep]  # [T, T]
    if "straddling" in scheme:  # the first token against the tokens after the insertion, both directions
        change = torch.cat([(after - before)[0, 1:], (after - before)[1:, 0]])  # [2(T − 1)]
    else:  # among the tokens after the insertion
        change = (after - before)[1:, 1:]  # [T − 1, T − 1]
    verify(change.abs().max().item())


@claim(
    id="pe.rel.offset_count",
    source="Post A, exp. 3 '(2) 간격별 가산표 만들기' ('39칸까지 총 77개의 간격', Lte=40)",
    statement="With 40 positions the offsets j − i run from −39 to 39: 79 of them, the size of the post's own "
              "bias table (2·Lte − 1); the post counts 77. Measured: distinct offsets among all 40×40 "
              "query–key pairs.",
    post_value=77, unit="offsets",
    tolerance=exact("a count"),
    kind="post", expect="refuted",
    expect_source="arithmetic: 39 to the left + offset 0 + 39 to the right = 2·40 − 1 = 79 (the post's code "
                  "allocates 2·Lte − 1 = 79 entries); without offset 0 it would be 78, never 77",
)
def test_relative_offset_count(verify):
    offsets = relative_offsets(40, 40)  # [T, T]: j − i
    verify(int(offsets.unique().numel()),
           details={"offsets from, to": [int(offsets.min()), int(offsets.max())],
                    "post's table size 2·Lte − 1": 2 * 40 - 1, "77 is 2·39 − 1, the count for 39 positions": 77})


DECAY_GAPS, ROPE_DIM = 64, 128  # gaps 0–63 as post A's L=64; D=128 as post A's d, so θ_i = ω_i of its table
DECAY_SOURCE = ("post A, exp. 3 ('거리가 멀어질수록 수학적으로 가산점을 깎아'): ALiBi and RoPE lower the score with "
                "distance, without training")


def _rope_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Score of q at position g against k at position 0, for g = 0 … DECAY_GAPS − 1: ``[N, G]`` for
    ``q, k: [N, D]`` (float64)."""
    return torch.stack([(apply_rope(q[:, None], torch.tensor([g]))[:, 0] * k).sum(-1)
                        for g in range(DECAY_GAPS)], dim=1)  # [N, G]


@claim(
    id="pos.score_decreases_with_distance",
    source="Post A, exp. 3 closing ('거리가 멀어질수록 수학적으로 가산점을 깎아', ALiBi, RoPE)",
    statement="Without training, ALiBi and RoPE lower the attention score as the distance grows (RoPE: D=128, "
              "base 10,000, gaps 0–63, float64).",
    kind="post",
    cases={
        "alibi": Case(
            statement="ALiBi, 8 heads, reference slopes, symmetric form −m·|j − i|: the largest change of any "
                      "head's bias from distance g to g + 1 is negative (a strict decrease).",
            tolerance=at_most(0.0, "a strict decrease: every step must lower the bias", strict=True),
            expect_source=DECAY_SOURCE + "; Press et al. 2022: the bias is −m·distance with every slope m > 0"),
        "rope_q_equals_k_ones": Case(
            statement="RoPE, q = k = all ones (every pair of norm² 2), score(g) = 2·Σ_i cos(g·θ_i): the literal "
                      "reading, the score never rises from gap g to g + 1; measured: the largest rise.",
            tolerance=at_most(1e-9, "monotone up to float64 rounding of sums of size ≤ 128"),
            expect="refuted",
            expect_source="arithmetic: Σ_i cos(g·θ_i) at D=128 rises from 42.344 at gap 11 to 42.381 at gap 12 "
                          "(issue 10), so twice it rises too"),
        "rope_q_equals_k_random": Case(
            statement="RoPE, q = k ~ N(0, I), 4,096 draws: the mean score per gap; the largest rise of that mean "
                      "from gap g to g + 1.",
            tolerance=at_most(1e-9, "monotone up to float64 rounding"),
            expect="refuted",
            expect_source="arithmetic: E[score(g)] = Σ_i E|pair_i|²·cos(g·θ_i) = 2·Σ_i cos(g·θ_i), the "
                          "non-monotone curve of the all-ones case"),
        "rope_q_equals_k_peak_at_gap0": Case(
            statement="The reading that holds: for q = k = all ones, every gap's score is below gap 0's: the "
                      "smallest of score(0) − score(g) over gaps 1–63.",
            tolerance=at_least(0.0, "strictly below: float64 errs by ~1e-13 on sums of size 128", strict=True),
            expect_source="arithmetic: score(g) = Σ_i |pair_i|²·cos(g·θ_i) < Σ_i |pair_i|² = score(0) unless "
                          "every g·θ_i is a multiple of 2π, impossible for θ_0 = 1 rad and g ≥ 1"),
        "rope_random_qk": Case(
            statement="RoPE, independent q, k ~ N(0, I), 20,000 draws: mean |score| at gap 1,000 divided by mean "
                      "|score| at gap 1 (a decrease: at most 0.9).",
            tolerance=at_most(0.9, "a magnitude 10 % lower: the smallest decay we would call 'lowering the "
                                   "score'"),
            expect="refuted",
            expect_source="arithmetic: rotating an isotropic Gaussian k by any angle leaves its distribution "
                          "unchanged, so score(g) has one distribution at every gap: ratio 1"),
    },
)
def test_score_decreases_with_distance(verify, case, generator):
    if case == "alibi":
        bias = ALiBiBias(8, direction=None)(DECAY_GAPS, DECAY_GAPS)[:, 0].double()  # [H, G]: key at distance g
        verify((bias[:, 1:] - bias[:, :-1]).max().item(), details={"slopes (−bias at distance 1)": (-bias[:, 1]).tolist()})
    elif case == "rope_random_qk":
        n = 20_000
        q, k = torch.randn(2, n, ROPE_DIM, generator=generator, dtype=torch.float64)  # [N, D] each
        near = (apply_rope(q[:, None], torch.tensor([1]))[:, 0] * k).sum(-1).abs()  # [N]
        far = (apply_rope(q[:, None], torch.tensor([1000]))[:, 0] * k).sum(-1).abs()  # [N]
        ratio = (far.mean() / near.mean()).item()
        noise = ((far - ratio * near).std() / (n ** 0.5 * near.mean())).item()  # delta method
        verify(ratio, noise=noise or None, details={"mean |score| at gap 1, 1000": [round(near.mean().item(), 3),
                                                                           round(far.mean().item(), 3)]})
    else:
        n = 4096 if case == "rope_q_equals_k_random" else 1
        q = (torch.randn(n, ROPE_DIM, generator=generator, dtype=torch.float64) if n > 1
             else torch.ones(1, ROPE_DIM, dtype=torch.float64))  # [N, D]
        scores = _rope_scores(q, q)  # [N, G]
        if case == "rope_q_equals_k_peak_at_gap0":
            verify((scores[0, 0] - scores[0, 1:]).min().item())
            return
        curve = scores.mean(0)  # [G]
        rise = curve[1:] - curve[:-1]  # [G − 1]
        g = int(rise.argmax())
        first = int((rise > 1e-9).nonzero()[0])
        details = {"largest rise at gaps": [g, g + 1], "first rise at gaps": [first, first + 1],
                   "scores there": [round(curve[first].item(), 3), round(curve[first + 1].item(), 3)]}
        if n > 1:
            per_draw = scores[:, g + 1] - scores[:, g]  # [N]
            details["draws whose own score never rises"] = int(((scores[:, 1:] - scores[:, :-1]) <= 1e-9)
                                                               .all(1).sum())
            verify(rise[g].item(), noise=standard_error(per_draw.std(), n).item(), details=details)
        else:
            verify(rise[g].item(), details=details)
