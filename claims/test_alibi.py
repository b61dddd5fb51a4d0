"""ALiBi's head slopes as Press et al. 2022 define them: the numbers behind every ALiBi row.

No training. ``pos.score_decreases_with_distance[alibi]`` holds for any positive slopes, and the extrapolation
duel's ALiBi rows judge trained accuracy, not the slopes; this row pins the slopes themselves to the paper's
(the posts give no slopes: the paper's sequence is the row's reference, not a post value).
"""

from llm_claims_harness.declare import Case, claim, close
from llm_claims_lab.positional import ALiBiBias

SLOPES = {8: [2.0 ** -k for k in range(1, 9)], 16: [2.0 ** (-k / 2) for k in range(1, 17)]}  # the paper's, below
PAPER = ("Press et al. 2022 (ALiBi), §3: for 8 heads the slopes are the geometric sequence 1/2^1, 1/2^2, …, 1/2^8; "
         "for 16 heads, the one that starts at 1/2^0.5 with ratio 1/2^0.5 (every consecutive pair of the 8 "
         "slopes geometrically averaged)")


@claim(
    id="pos.alibi_slopes",
    post="A", section="exp3-end",
    source="Post A, exp. 3 closing (ALiBi: '거리가 멀어질수록 수학적으로 가산점을 깎아')",
    statement="Our ALiBi bias subtracts m_h per position of distance with the paper's head slopes m_h: the "
              "slopes read from the bias (−bias at distance 1, per head), against the paper's sequence.",
    tolerance=close("the slopes are stored in float32: the powers 2^−k exactly, the half powers 2^−(k + ½) within "
                    "3e-8; a slope off by any visible amount misses by far more than 1e-7", atol=1e-7),
    kind="beyond",
    expect_source=PAPER,
    cases={
        "8_heads": Case(statement="8 heads (the suite's ALiBi): [m_1, …, m_8] against 1/2^1 … 1/2^8.",
                        params={"heads": 8}),
        "16_heads": Case(statement="16 heads: [m_1, …, m_16] against 1/2^0.5 … 1/2^8.", params={"heads": 16}),
    },
)
def test_alibi_slopes(verify, heads):
    bias = ALiBiBias(heads, direction=None)(1, 2)  # [H, 1, 2]: a query and keys at distance 0 and 1
    verify((-bias[:, 0, 1].double()).tolist(), reference=SLOPES[heads])
