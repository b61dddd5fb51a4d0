"""How often model families use RoPE: post B's '최신 decoder-only LLM에서는 … RoPE를 더 자주 쓴다', read offline from
the modeling sources of the causal-LM families transformers ships (no model is built, no hub is asked).
"""

import importlib.metadata

from llm_claims_harness.declare import Quote, at_least, claim
from llm_claims_lab.pretrained.configs import causal_lm_position_schemes

TRANSFORMERS = importlib.metadata.version("transformers")


ROPE_MORE_OFTEN = Quote("최신 decoder-only LLM에서는 입력 embedding에 위치 벡터를 더하는 방식보다 RoPE를 더 자주 쓴다",
                        "recent decoder-only LLMs use RoPE more often than adding a position vector to the input "
                        "embedding")


@claim(
    id="model.rope_more_often",
    post="B", section="rope",
    source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다'",
    statement="Model families use RoPE more often than an additive position table: of the causal-LM families "
              "transformers ships that use either (read from each family's modeling source: rotary q/k, or a "
              "position table added to the input), the share that use RoPE is above one half.",
    kind="post",
    quote=ROPE_MORE_OFTEN,
    expect_source="post B's sentence ('더 자주': more often, i.e. more than half of the families that use one of "
                  "the two); Touvron et al. 2023 (Llama), Jiang et al. 2023 (Mistral), Qwen 2024: RoPE",
    unit="(share of families)",
    tolerance=at_least(0.5, reason="'더 자주' (more often): more than half; a count, exact", strict=True),
    deviation=("every causal-LM family in transformers' MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, not only recent "
               "decoder-only LLMs: older models and encoders with a causal-LM head count too, which can only lower "
               "RoPE's share; families with neither scheme (ALiBi, relative biases, recurrent) or no modeling file "
               "are listed, not counted"),
)
def test_rope_more_often(verify):
    schemes = causal_lm_position_schemes()
    count = {name: sum(1 for s in schemes.values() if s == name) for name in ("rope", "additive", "both", "neither",
                                                                          "unknown")}
    verify((count["rope"] + count["both"]) / (count["rope"] + count["additive"] + count["both"]),
           details={"families by scheme": count, "transformers": TRANSFORMERS,
                    "additive": sorted(t for t, s in schemes.items() if s == "additive")})
