"""Position inside attention: order-blindness without PE, RoPE's relative scores and angles, an inserted token.

The score's decay with distance (ALiBi, RoPE) is ``test_score_decay.py``.

Post A, "위치: 순환을 버린 대가" (ref. part 5); post B, "position 정보가 attention 안에서 쓰이는 방식",
"요즘 모델은 RoPE를 더 많이 쓴다", figure 3.
"""

import torch

from llm_claims_lab.positional.attention import SingleHeadSelfAttention
from llm_claims_harness.declare import Case, Quote, at_least, at_most, claim
from llm_claims_lab.positional import (LearnedPositionalEmbedding, RelativePositionBias, apply_rope,
                                 sinusoidal_table)

FLOAT64_NOISE = at_most(1e-9, reason="float64 rounding (~1e-15 per op) on O(10) values; a position-dependent "
                              "computation differs by O(0.1–10)")


@claim(
    id="attn.order_blind_without_pe",
    post="A", section="position",
    source="Post A, '5편 실험 1' (recalled in '위치: 순환을 버린 대가'); post B, introduction",
    statement="Self-attention without PE cannot tell positions apart: permuting the input permutes the "
              "output. Measured: max |attn(x[:, π]) − attn(x)[:, π]| (B=4, T=10, D=128, float64).",
    tolerance=FLOAT64_NOISE,
    cases={
        "without_pe": Case(basis="construction", 
            statement="no positional encoding: the residual is rounding noise.", kind="post",
            quote=Quote("5편 실험 1에서 우리는 셀프어텐션이 순서를 완전히 잃어버린다는 것을 수치로 증명했고",
                        "in part 5, exp. 1, we proved numerically that self-attention loses order completely"),
            expect_source="post A, '위치: 순환을 버린 대가' (recalling part 5, exp. 1) and post B's introduction: "
                          "self-attention alone compares the whole input at once and cannot see order"),
        "with_sinusoidal_pe": Case(
            statement="control: with sinusoidal PE added to the input, permuting changes the output "
                      "beyond a permutation (residual ≥ 1e-3).",
            tolerance=at_least(1e-3, reason="six orders of magnitude above the float64 noise bound of the "
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
    post="B", section="rope",
    source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다'",
    statement="Rotating q and k by their positions makes rope(q, m)·rope(k, n) a function of m − n "
              "alone (D=64, m, n in 0–63, float64).",
    tolerance=FLOAT64_NOISE,
    cases={
        "same_offset_spread": Case(
            statement="largest spread (max − min) of the score over pairs with the same offset m − n.",
            kind="post",
            quote=Quote("RoPE는 query와 key 벡터를 position에 따라 회전시킨다. 이 방식은 상대 위치 정보를 attention score 안에 "
                        "더 직접적으로 넣는다", "RoPE rotates the query and key vectors by position; this puts "
                        "relative position information more directly into the attention score"),
            expect_source="post B's sentence (the quote); Su et al. 2021 (RoFormer): R_m^T R_n = R_(n−m)"),
        "varies_with_offset": Case(
            statement="control: the score does change with the offset (range of the per-offset score ≥ 0.1).",
            tolerance=at_least(0.1, reason="|q·k| ~ √64·1 = 8 for unit-normal q, k: rotations by different "
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



ROPE_WIDE = 128  # post A's d_model, as the RoPE rows of test_score_decay.py


@claim(
    id="rope.frequencies_from_paper",
    post="B", section="rope",
    source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다' (RoPE rotates q and k by position); Su et al. 2021, §3.2.2",
    statement="Our RoPE turns channel pair i (channels 2i − 1, 2i, i = 1 … d/2) of a query or key at position m "
              "by m·θ_i, counter-clockwise, with RoFormer's θ_i = 10000^(−2(i−1)/d) (d = 128, float64): the largest "
              "|θ_i read from the rotation (atan2 of the rotated unit vector e_(2i−1) at position 1) − θ_i of the "
              "paper's formula|, the formula written out here, not taken from the library. The posts give no θ; "
              "every RoPE row rests on these angles.",
    tolerance=at_most(1e-12, reason="float64 sin/cos/atan2 err by ~1e-16; another base (Llama 3's 500,000, or 1,000) "
                             "moves θ_2 by more than 1e-2, a rotation the other way flips every sign"),
    kind="beyond",
    expect_source="Su et al. 2021 (RoFormer), §3.2.2: R^d_(Θ,m) rotates pair i by m·θ_i with the pre-defined "
                  "Θ = {θ_i = 10000^(−2(i−1)/d), i ∈ [1, …, d/2]}, the base of post A's sinusoidal table",
)
def test_rope_frequencies_from_paper(verify):
    units = torch.eye(ROPE_WIDE, dtype=torch.float64)[0::2, None, :]  # [D/2, T=1, D]: e_(2i−1) for each pair
    turned = apply_rope(units, torch.tensor([1]))[:, 0]  # [D/2, D]: each unit vector at position 1
    pair = torch.arange(ROPE_WIDE // 2)  # [D/2]
    read = torch.atan2(turned[pair, 2 * pair + 1], turned[pair, 2 * pair])  # [D/2]: every θ_i ≤ 1 rad < π
    paper = torch.tensor([10000.0 ** (-2 * (i - 1) / ROPE_WIDE) for i in range(1, ROPE_WIDE // 2 + 1)],
                         dtype=torch.float64)  # [D/2]: θ_1 … θ_(d/2)
    worst = int((read - paper).abs().argmax())
    verify((read - paper).abs().max().item(),
           details={"pair i with the largest error (1-based)": worst + 1,
                    "θ_i read, paper": [read[worst].item(), paper[worst].item()],
                    "θ_1, θ_2, θ_64 read": [round(read[k].item(), 9) for k in (0, 1, ROPE_WIDE // 2 - 1)]})

CHANGED = at_least(1e-3, reason="six orders above float64 noise; position terms of size ~1 move logits by O(0.1–1)")
MID_SOURCE = ("post B, after figure 3 ('밥을 다음에 동사가 온다는 구조는 유지된다'): with 정말 inserted after the first "
              "word, the verb's absolute position moves and the verb still follows 밥을")
FRONT_QUOTE = Quote("그림 3. 문장 앞에 토큰이 끼어들면 절대 position은 밀리지만, 주변 토큰과의 상대 관계는 유지된다", "figure 3: "
                    "a token cut in at the front pushes absolute positions back, but relations to nearby tokens stay")
MID_QUOTE = Quote("나는 정말 오늘 밥을 먹었다에서는 5번 위치로 밀린다. 절대 위치는 달라졌지만 밥을 다음에 동사가 온다는 구조는 유지된다", "in 나는 "
                  "정말 오늘 밥을 먹었다 it moves to 5; the absolute position changed, the verb still comes after 밥을")
RELATIONS_SOURCE = ("post B, figure 3 and the paragraph before it (the quote; 'sinusoidal positional encoding은 모델이 이런 "
                    "상대 위치 규칙을 배우기 쉬운 좌표계를 깔아 준다'): the sinusoidal vectors move with the insertion, "
                    "their relations do not; arithmetic: PE(i)·PE(j) = Σ cos((j − i)·ω) depends on j − i only")
RELATIVE_SOURCE = ("arithmetic: these schemes' logit is a function of the two tokens and their offset alone "
                   "(Shaw et al. 2018; Su et al. 2021: R_mᵀ R_n = R_(n−m)), and the insertion keeps the offsets of "
                   "these pairs")
STRADDLE_SOURCE = ("arithmetic: a pair that straddles the inserted token is one position further apart, and these "
                   "schemes' logit is a function of the offset (Shaw et al. 2018; Su et al. 2021)")
CROSS_TERM_SOURCE = ("arithmetic: (x_i + PE(i))ᵀ Wq Wkᵀ (x_j + PE(j)) has cross terms x_iᵀ Wq Wkᵀ PE(j) that move with "
                     "the absolute position j for a generic Wq Wkᵀ; post A, exp. 3: '그 W가 새 위치에서 작동할 이유는 없습니다'")
ABSOLUTE_CONTROL = ("control's design: a table of independent random rows has no relative structure, so a shift of "
                    "every position must change what it gives; else the zero of the other rows would be blindness")
BEYOND_FIGURE = "Beyond the post (figure 3 is about the sinusoidal vectors, not a layer's logits): "


@claim(
    id="pos.relative_survives_insertion",
    post="B", section="fig3",
    source="Post B, figure 3 ('문장 앞에 토큰이 끼어들면') and the example after it ('나는 정말 오늘 밥을 먹었다')",
    statement="Figure 3 sits in post B's section on why sinusoidal PE: the paragraph before it says sinusoidal PE "
              "lays down coordinates for relative-position rules. Its reading: a token inserted in front (or, in "
              "the example, after the first word) moves the absolute position vectors, and the relation between "
              "the position vectors of two original tokens stays. Measured on sinusoidal PE: the smallest move of a "
              "vector, and the largest change of PE(i)·PE(j) over the original token pairs, the dot product by "
              "which post A reads relative position ('PE(i)·PE(j) … 간격 i−j에만 의존한다면 상대 위치가 새겨져 "
              "있다'; the same identity as pe.sin.dot_depends_only_on_gap, here on post B's figure and example). "
              "Beyond the post: the attention "
              "logits of one layer with random weights among the original tokens, for relative schemes (unchanged, "
              "an identity) and absolute ones (changed). T=6 → 7, D=64, float64.",
    tolerance=FLOAT64_NOISE,
    kind="beyond",
    expect_source=RELATIVE_SOURCE,
    cases={
        "sinusoidal_pe_moves": Case(
            statement="in front (figure 3); sinusoidal PE: the absolute position vectors are pushed back: the "
                      "smallest |PE(p+1) − PE(p)| over the original tokens' positions p (at least 0.1).",
            tolerance=at_least(0.1, reason="a move no rounding makes (float64 errs by ~1e-15 on rows of norm √32 ≈ 5.7), "
                                    "far below one step's: the fastest pair alone moves by 2·sin(½) ≈ 0.96"),
            kind="post", quote=FRONT_QUOTE,
            expect_source="post B, figure 3 ('절대 position은 밀리지만'); arithmetic: |PE(p+1) − PE(p)|² = "
                          "Σ_i 2 − 2·cos ω_i, the same at every p, > 0"),
        "sinusoidal_pe_relations": Case(
            statement="in front (figure 3); sinusoidal PE: max |PE(i+1)·PE(j+1) − PE(i)·PE(j)| over the original "
                      "tokens' positions i, j (the smallest move |PE(p+1) − PE(p)| of a vector is in the details).",
            kind="post", quote=FRONT_QUOTE, expect_source=RELATIONS_SOURCE),
        "mid_sinusoidal_pe_relations": Case(
            statement="after the first token (post B's 정말); sinusoidal PE: the same among the tokens after the "
                      "insertion (the post's 밥을 → 먹었다).", kind="post", quote=MID_QUOTE,
            expect_source=MID_SOURCE + "; " + RELATIONS_SOURCE),
        "learned_pe_relations": Case(
            statement="control: in front; a learned table at initialisation (independent rows ~N(0, 1)): the same "
                      "dot products change (≥ 1e-3).", tolerance=CHANGED, kind="control",
            expect_source=ABSOLUTE_CONTROL),
        "relative_bias": Case(statement=BEYOND_FIGURE + "in front; per-offset relative bias (post A's rel, random "
                                        "entries): logits unchanged."),
        "rope": Case(statement=BEYOND_FIGURE + "in front; RoPE: logits unchanged."),
        "sinusoidal": Case(
            statement=BEYOND_FIGURE + "in front; sinusoidal PE added to the input: although its vectors keep their "
                      "relations, the logits among the original tokens change (≥ 1e-3).",
            tolerance=CHANGED, expect_source=CROSS_TERM_SOURCE),
        "learned": Case(
            statement="control: in front; learned table added to the input (entries ~N(0, 1), the scale of the "
                      "token embeddings): logits changed (≥ 1e-3).",
            tolerance=CHANGED, kind="control", expect_source=ABSOLUTE_CONTROL),
        "mid_relative_bias": Case(
            statement=BEYOND_FIGURE + "after the first token (post B's 정말); relative bias: logits among the tokens "
                      "after the insertion (the post's 밥을 → 먹었다) unchanged."),
        "mid_rope": Case(statement=BEYOND_FIGURE + "after the first token; RoPE: logits among the tokens after it "
                                                   "unchanged."),
        "mid_sinusoidal": Case(
            statement=BEYOND_FIGURE + "after the first token; sinusoidal PE: logits among the tokens after it changed "
                                      "(≥ 1e-3).", tolerance=CHANGED, expect_source=CROSS_TERM_SOURCE),
        "mid_learned": Case(statement="control: after the first token; learned table: logits among the tokens after it "
                                      "changed (≥ 1e-3).", tolerance=CHANGED, kind="control",
                            expect_source=ABSOLUTE_CONTROL),
        "mid_straddling_relative_bias": Case(
            statement="after the first token; relative bias: logits between the first token and the tokens "
                      "after the insertion do change (≥ 1e-3): relative relations survive only on one side.",
            tolerance=CHANGED, expect_source=STRADDLE_SOURCE),
        "mid_straddling_rope": Case(
            statement="after the first token; RoPE: logits between the first token and the tokens after the "
                      "insertion do change (≥ 1e-3).",
            tolerance=CHANGED, expect_source=STRADDLE_SOURCE),
    },
    version=3,
    version_note="v3 (issue 30): figure 3 is about the sinusoidal vectors (its section: why sin and cos), so the "
                 "post's rows now measure them: sinusoidal_pe_moves (the vectors are pushed), sinusoidal_pe_relations "
                 "and mid_sinusoidal_pe_relations (PE(i)·PE(j) of the original tokens before and after the "
                 "insertion), with a learned-table control. The logit "
                 "rows keep their draws and values but no longer judge the post: relative_bias, rope and their mid_ "
                 "cases are identities of relative schemes (kind beyond, arithmetic), sinusoidal and mid_sinusoidal "
                 "a finding beyond it (random weights do not keep the relation), learned and mid_learned controls. "
                 "v2 (issue 10): mid-sentence cases added, as post B's text inserts 정말 after the first word",
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

    if "_pe_" in scheme:  # the position vectors themselves, before and after the insertion
        with torch.no_grad():
            table = (learned(seq_len + 1) if scheme.startswith("learned")
                     else sinusoidal_table(seq_len + 1, d_model, dtype=torch.float64))  # [T + 1, D]
        mid = scheme.startswith("mid_")
        moved_to = [0, *range(2, seq_len + 1)] if mid else list(range(1, seq_len + 1))  # [T]: new positions
        kept = slice(1, None) if mid else slice(None)  # mid: only the tokens after the insertion
        before, after = table[:seq_len][kept], table[moved_to][kept]  # [T', D] each
        moves = (after - before).norm(dim=1).min().item()  # the smallest move of an original token's vector
        relations = (after @ after.T - before @ before.T).abs().max().item()  # largest change of a dot product
        if scheme.endswith("_moves"):
            verify(moves, details={"largest change of PE(i)·PE(j) over the original pairs": relations})
        else:
            verify(relations, details={"smallest move |PE(p′) − PE(p)| of an original token's vector": round(moves, 4)})
        return

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
