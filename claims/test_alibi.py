"""ALiBi as Press et al. 2022 define it: the head slopes and the mask's direction behind every ALiBi row.

No training. ``pos.score_decreases_with_distance[alibi]`` holds for any positive slopes and either direction, and
the extrapolation duel's ALiBi rows judge trained accuracy, not the bias; these rows pin the bias itself to the
paper's (the posts give no slopes: the paper's sequence is the rows' reference, not a post value).
"""

import torch

from llm_claims_harness.declare import Case, claim, close, exact
from llm_claims_lab.positional import ALiBiBias

# Written out from the paper's formula, not from the library. H a power of two: 2^(−8k/H), k = 1 … H. Otherwise
# (the reference code's get_slopes, and BLOOM's build_alibi_tensor): the slopes of p, the largest power of two
# below H, then every other slope of 2p (its odd k) up to H in all.
SLOPES = {
    8: [2.0 ** -k for k in range(1, 9)],
    16: [2.0 ** (-k / 2) for k in range(1, 17)],
    12: [2.0 ** -k for k in range(1, 9)] + [2.0 ** (-k / 2) for k in (1, 3, 5, 7)],
    112: [2.0 ** (-k / 8) for k in range(1, 65)] + [2.0 ** (-k / 16) for k in range(1, 96, 2)],
}
PAPER = ("Press et al. 2022 (ALiBi), §3: for 8 heads the slopes are the geometric sequence 1/2^1, 1/2^2, …, 1/2^8; "
         "for 16 heads, the one that starts at 1/2^0.5 with ratio 1/2^0.5 (every consecutive pair of the 8 "
         "slopes geometrically averaged)")
NOT_POWER_OF_TWO = ("the paper trains powers of two only; its reference code's get_slopes (ofirpress/"
                    "attention_with_linear_biases, fairseq/models/transformer.py) and BLOOM's build_alibi_tensor "
                    "(Scao et al. 2022; Hugging Face transformers, modeling_bloom.py) take for H heads the slopes of "
                    "p, the largest power of two below H, then every other slope of 2p: ")


@claim(
    id="pos.alibi_slopes",
    post="A", section="exp3-end",
    source="Post A, exp. 3 closing (ALiBi: '거리가 멀어질수록 수학적으로 가산점을 깎아')",
    statement="Our ALiBi bias subtracts m_h per position of distance with the paper's head slopes m_h: the "
              "slopes read from the bias (−bias at distance 1, per head), against the paper's sequence.",
    tolerance=close(reason="the slopes are stored in float32, which rounds a slope ≤ 1 by at most 3e-8 (half an ulp); a "
                    "slope off by any visible amount misses by far more than 1e-7", atol=1e-7),
    kind="beyond", reference="the paper's slopes for H heads, as written in each case",
    expect_source=PAPER,
    cases={
        "8_heads": Case(statement="8 heads (the suite's ALiBi): [m_1, …, m_8] against 1/2^1 … 1/2^8.",
                        params={"heads": 8}),
        "16_heads": Case(statement="16 heads: [m_1, …, m_16] against 1/2^0.5 … 1/2^8.", params={"heads": 16}),
        "12_heads": Case(
            statement="12 heads, not a power of two (a formula 2^(−8k/H) for every H is right at 8 and 16 and wrong "
                      "here): [m_1, …, m_12] against 1/2^1 … 1/2^8, then 1/2^0.5, 1/2^1.5, 1/2^2.5, 1/2^3.5.",
            params={"heads": 12},
            expect_source=NOT_POWER_OF_TWO + "for 12, 8 heads' 1/2^1 … 1/2^8 and 16 heads' 1/2^0.5, 1/2^1.5, "
                                             "1/2^2.5, 1/2^3.5"),
        "112_heads": Case(
            statement="112 heads, BLOOM-176B's: [m_1, …, m_112] against 2^(−k/8) for k = 1 … 64, then 2^(−k/16) "
                      "for k = 1, 3, …, 95.",
            params={"heads": 112},
            expect_source=NOT_POWER_OF_TWO + "for 112, 64 heads' 2^(−k/8), k = 1 … 64, and 128 heads' 2^(−k/16) "
                                             "for the first 48 odd k"),
    },
    version=2,
    version_note="v2 (issue 30): 12_heads and 112_heads added: at 8 and 16 heads, powers of two, the naive formula "
                 "2^(−8k/H) is right, so nothing pinned the rule for other head counts. 8_heads and 16_heads "
                 "unchanged",
)
def test_alibi_slopes(verify, heads):
    bias = ALiBiBias(heads, direction=None)(1, 2)  # [H, 1, 2]: a query and keys at distance 0 and 1
    verify((-bias[:, 0, 1].double()).tolist(), reference=SLOPES[heads])


DIRECTION_LEN, DIRECTION_HEADS = 40, 8  # post A's Lte; the suite's ALiBi heads


@claim(
    id="pos.alibi_direction",
    post="A", section="exp3-end",
    source="Post A, exp. 3 closing (ALiBi); the suite's ALiBi for post A's task (predict token i + 1)",
    statement="ALiBi's bias only penalises distance; the direction comes from the attention mask. The suite's "
              "ALiBi (ALiBiBias(direction='right'), the one extrap.alibi trains) mirrors the paper's causal mask to "
              "post A's task, whose answer lies right of the query: query i sees the keys j ≥ i and every key "
              f"j < i is masked. Measured on {DIRECTION_HEADS} heads, {DIRECTION_LEN} × {DIRECTION_LEN} positions: "
              "[masked keys left of their query, masked keys at or right of it, visible keys whose bias is not "
              "−m_h·(j − i) with the module's own slopes m_h] (the slopes' values are pos.alibi_slopes').",
    tolerance=exact(reason="counts of keys"),
    reference=f"[{DIRECTION_HEADS * DIRECTION_LEN * (DIRECTION_LEN - 1) // 2:,}, 0, 0]: every key left of its query "
              "masked, no other, every visible bias −m_h·(j − i)",
    kind="beyond",
    expect_source="Press et al. 2022, §3: ALiBi adds −m·(i − j) to the keys j ≤ i a causal mask leaves visible; "
                  "mirrored (keys j ≥ i, −m·(j − i)) for a task that looks right. Arithmetic: "
                  f"{DIRECTION_HEADS} heads × {DIRECTION_LEN}·{DIRECTION_LEN - 1}/2 = "
                  f"{DIRECTION_HEADS * DIRECTION_LEN * (DIRECTION_LEN - 1) // 2:,} keys left of their query",
)
def test_alibi_direction(verify):
    module = ALiBiBias(DIRECTION_HEADS)
    bias = module(DIRECTION_LEN, DIRECTION_LEN).double()  # [H, T, T]
    idx = torch.arange(DIRECTION_LEN)
    offset = (idx[None, :] - idx[:, None]).expand_as(bias)  # [H, T, T]: j − i
    slopes = module.slopes.double()[:, None, None]  # [H, 1, 1]
    masked = bias == float("-inf")  # [H, T, T]
    visible = offset >= 0
    wrong = visible & ~masked & ((bias + slopes * offset).abs() > 1e-12)  # float64 of float32 products: exact
    verify([int((masked & ~visible).sum()), int((masked & visible).sum()), int(wrong.sum())],
           reference=[DIRECTION_HEADS * DIRECTION_LEN * (DIRECTION_LEN - 1) // 2, 0, 0],
           details={"query 0's bias, first head, keys 0–3": bias[0, 0, :4].tolist(),
                    "query 3's bias, first head, keys 0–4": bias[0, 3, :5].tolist()})
