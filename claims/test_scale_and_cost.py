"""Scale and cost: how often a GPT-scale run repeats the training loop, and what concatenating positions costs.

Post A says the four-step training loop runs 'billions of times' when GPT is trained, that GPT-2 was trained on
'trillions of tokens' (arithmetic on the GPT-2 paper's WebText size), and that concatenating the
position vector makes every later layer costlier while adding it is free. The first is arithmetic on GPT-3's
published budget (the post names no model; GPT-3 is the one whose budget is published); the second is measured on
GPT-2's transformer block (the series' baseline is GPT-2's lineage), built offline from its configuration class.
Nothing here is trained.
"""

from __future__ import annotations

import functools

import torch
from torch.utils.flop_counter import FlopCounterMode

from llm_claims_harness.declare import Case, Quote, at_least, at_most, claim

SEQ_LEN = 128  # tokens per forward pass when counting FLOPs (the ratio does not depend on it much)
GPT3 = {"tokens": 300e9, "batch_tokens": 3.2e6}  # Brown et al. 2020, §2.2 and Table 2.1 (GPT-3 175B)
BILLIONS = 1e9  # '수십억' (several billion): at least 10⁹


@claim(
    id="train.loop_repeats_billions",
    basis="computed",
    post="A", section="training",
    source="Post A, 'PyTorch 훈련의 마법의 4단계 공식'",
    statement="Training GPT repeats the four-step loop (forward, zero_grad, backward, step) billions of times: "
              "GPT-3 175B's optimizer steps, its 300B training tokens over batches of 3.2M tokens, are at least 10⁹.",
    kind="post",
    quote=Quote("초거대 AI인 GPT를 훈련시킬 때도 결국 가장 깊은 곳에서는 이 4단계가 수십억 번 반복되고 있습니다",
                "even when training a giant AI like GPT, at the deepest level these 4 steps repeat billions of times"),
    expect="refuted",
    expect_source="arithmetic on GPT-3's published budget (Brown et al. 2020, §2.2, Table 2.1: 300B tokens, "
                  "batch 3.2M tokens): 300e9 / 3.2e6 ≈ 9.4 × 10⁴ loop iterations, four orders of magnitude short "
                  "of 10⁹; one loop iteration is one batch, so the tokens seen (3 × 10¹¹, in the details) are not "
                  "the loop's count",
    post_value="수십억 (billions)", unit="(optimizer steps)",
    tolerance=at_least(BILLIONS, reason="'수십억' (several billion) read at its smallest: 10⁹"),
)
def test_loop_repeats_billions(verify):
    steps = GPT3["tokens"] / GPT3["batch_tokens"]
    verify(steps, details={"tokens seen (not loop iterations)": GPT3["tokens"],
                           "tokens per batch": GPT3["batch_tokens"]})


WEBTEXT_BYTES = 40e9  # GPT-2's training text: "a total of 40 GB of text" (Radford et al. 2019, §2.1 WebText)
MIN_BYTES_PER_TOKEN = 1  # a token of GPT-2's byte-level BPE covers one byte or more
TRILLIONS = 1e12  # '수조' (several trillion): at least 10¹²


@claim(
    id="gpt2.training_tokens_trillions",
    basis="computed",
    post="A", section="exp1",
    source="Post A, end of exp. 1 ('수조 토큰으로 학습된 진짜 모델'), the model of exp. 2 being GPT-2",
    statement="The real model of the next experiment, GPT-2 (exp. 2), was trained on trillions of tokens. Computed "
              "from the GPT-2 paper: its training text, WebText, is 40 GB (Radford et al. 2019, §2.1), so it holds "
              "at most 4 × 10¹⁰ tokens (a token of GPT-2's byte-level BPE is at least one byte): trillions would "
              "take 25 or more passes over it, and the paper gives none (GPT-3, a hundred times larger, was "
              "trained on 3 × 10¹¹ tokens: Brown et al. 2020, Table 2.2).",
    kind="post",
    quote=Quote("그건 다음 실험에서 수조 토큰으로 학습된 진짜 모델의 임베딩으로 확인해 보도록 하겠습니다",
                "we will check that in the next experiment with the embeddings of a real model trained on trillions "
                "of tokens"),
    expect="refuted",
    expect_source="arithmetic on the GPT-2 paper's figure (Radford et al. 2019, §2.1: 40 GB of WebText): at most "
                  "4 × 10¹⁰ tokens at one byte per token, 25× short of 10¹²; registered before this row first ran "
                  "(issue 43)",
    post_value="수조 (trillions)", unit="(tokens, at most)",
    tolerance=at_least(TRILLIONS, reason="'수조' (several trillion) read at its smallest: 10¹²"),
)
def test_training_tokens_trillions(verify):
    most = WEBTEXT_BYTES / MIN_BYTES_PER_TOKEN
    verify(most, details={"WebText (Radford et al. 2019, §2.1)": "40 GB", "bytes per token, at least": MIN_BYTES_PER_TOKEN,
                          "passes over WebText needed for 10¹² tokens, at least": TRILLIONS / most})


@functools.cache
def _block_cost(d_model: int) -> tuple[int, int]:
    """Parameters and forward FLOPs (``torch.utils.flop_counter``: matrix products, 2 per multiply-add) of one
    GPT-2 block of width ``d_model`` (12 heads, MLP 4×) on ``[1, SEQ_LEN, d_model]``, randomly initialised."""
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block

    config = GPT2Config(n_embd=d_model, n_head=12)
    config._attn_implementation = "eager"  # the plain attention, whose products the counter sees
    block = GPT2Block(config, layer_idx=0).eval()
    x = torch.zeros(1, SEQ_LEN, d_model)  # [B, T, D]
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        block(x)
    return sum(p.numel() for p in block.parameters()), counter.get_total_flops()


CONCAT_QUOTE = Quote("별도의 디멘션으로 이어붙이면 … 차원이 커져 이후 모든 층의 비용이 늘어납니다. 더하기는 공짜인 대신 두 "
                     "신호가 섞이는데",
                     "concatenating as separate dimensions … makes the width grow, so every later layer costs more; "
                     "adding is free, though the two signals mix")
D_MODEL = 768  # GPT-2 small's width; a concatenated position vector of the same width doubles it


@claim(
    id="input.concat_costs_every_layer",
    basis="computed",
    post="A", section="add-concat",
    source="Post A, '더할 것인가, 이어붙일 것인가'",
    statement=f"Concatenating a {D_MODEL}-wide position vector to GPT-2 small's {D_MODEL}-wide token embedding "
              f"doubles the width, and every later block costs more: one GPT-2 block at width {2 * D_MODEL} over "
              f"one at {D_MODEL}, in parameters and in forward FLOPs.",
    kind="post", quote=CONCAT_QUOTE,
    expect_source="post A's sentence; arithmetic: a block's weights are about 12·D², so doubling D about "
                  "quadruples them",
    unit="× (2D over D)",
    tolerance=at_least(1.5, reason="effect size: a cost that matters, at least half again per layer"),
    cases={"parameters": Case(params={"part": 0}), "flops": Case(params={"part": 1})},
)
def test_concat_costs_every_layer(verify, part):
    narrow, wide = _block_cost(D_MODEL), _block_cost(2 * D_MODEL)
    verify(wide[part] / narrow[part], details={f"width {D_MODEL}": narrow[part], f"width {2 * D_MODEL}": wide[part]})


@claim(
    id="input.add_is_free",
    basis="computed",
    post="A", section="add-concat",
    source="Post A, '더할 것인가, 이어붙일 것인가'",
    statement=f"Adding the position vector is free: it adds no parameter and {D_MODEL} additions per token, a "
              f"negligible share of one GPT-2 block's forward FLOPs at width {D_MODEL} (measured: that share).",
    kind="post", quote=CONCAT_QUOTE,
    expect_source="post A's sentence; arithmetic: D additions against about 24·D² FLOPs per token in a block",
    unit="(share of one block's FLOPs)",
    tolerance=at_most(0.01, reason="'free' = at most 1 % of one block's forward cost"),
)
def test_add_is_free(verify):
    _, flops = _block_cost(D_MODEL)
    add = SEQ_LEN * D_MODEL  # one addition per element of [T, D]
    verify(add / flops, details={"extra parameters": 0, "additions per forward": add, "block FLOPs": flops})
