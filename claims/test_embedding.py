"""Token embeddings and the training loop: what nn.Embedding is, how gradients accumulate, add vs concat.

Post A, introduction and "PyTorch 훈련의 4단계"; post B, "위치는 왜 embedding에 더해도 되는가".
"""

import torch
import torch.nn.functional as F
from torch import nn

from llm_claims_harness.declare import Case, Quote, claim, exact
from llm_claims_lab.positional import sinusoidal_table


@claim(
    id="emb.lookup_equals_onehot_matmul",
    post="A", section="intro",
    source="Post A, introduction ('nn.Embedding은 원-핫 벡터와 행렬의 곱을 룩업으로')",
    statement="nn.Embedding(ids) equals one_hot(ids) @ W bit for bit: the lookup is the one-hot product "
              "done as a row read (V=1,000, D=64, ids [4, 16]); measured: max |Δ|.",
    post_value=0.0,
    tolerance=exact(reason="a one-hot product adds exact zeros to one row; IEEE float32 makes it bit-identical "
                    "(TF32 matmul, off by default in torch, would break this)"),
    kind="post",
    expect_source="post A: 'nn.Embedding은 원-핫 벡터와 행렬의 곱을 룩업으로 구현한 것에 불과합니다'; arithmetic: "
                  "1·w + 0·(other rows) = w exactly",
    quote=Quote("nn.Embedding은 원-핫 벡터와 행렬의 곱을 룩업으로 구현한 것에 불과합니다.",
                "nn.Embedding is nothing more than the product of a one-hot vector and a matrix, implemented as a lookup."),
)
def test_lookup_equals_onehot_matmul(verify, generator):
    table = nn.Embedding(1000, 64)
    with torch.no_grad():
        table.weight.copy_(torch.randn(1000, 64, generator=generator))
    ids = torch.randint(0, 1000, (4, 16), generator=generator)  # [B, T]
    lookup = table(ids)  # [B, T, D]
    product = F.one_hot(ids, 1000).to(table.weight.dtype) @ table.weight  # [B, T, V] @ [V, D] -> [B, T, D]
    verify((lookup - product).abs().max().item())


def _grad_after(passes: int, ids: torch.Tensor, target: torch.Tensor, seed: int, *,
                zero_grad_between: bool) -> torch.Tensor:
    """The embedding's .grad after ``passes`` backward passes of one model on one batch (``ids`` [B, T],
    ``target`` [B]); the model is initialised from the global stream reseeded with ``seed``, so every call
    starts from the same weights."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Embedding(50, 16), nn.Flatten(), nn.Linear(16 * 8, 50))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(passes):
        if zero_grad_between:
            opt.zero_grad()
        F.cross_entropy(model(ids), target).backward()
    return model[0].weight.grad.clone()  # [V, D]


@claim(
    id="train.grad_accumulates",
    post="A", section="training",
    source="Post A, 'PyTorch 훈련의 4단계' (2) opt.zero_grad()",
    statement="Without zero_grad, a second backward pass adds to .grad: after two passes .grad = 2 × its "
              "value after one; with zero_grad between passes it equals the one-pass value. Measured: max |Δ|.",
    post_value=0.0,
    tolerance=exact(reason="the same backward pass twice is deterministic on CPU, and g + g = 2g exactly in IEEE"),
    kind="post",
    expect_source="post A, (2) opt.zero_grad(): '파이토치는 … 기울기를 버리지 않고 계속 누적하는 특징이 있습니다' "
                  "(PyTorch keeps accumulating gradients across passes)",
    cases={"without_zero_grad": Case(
               statement="two backward passes, no zero_grad: max |grad − 2·grad₁|.",
               quote=Quote("파이토치는 기본적으로 이전 루프에서 계산했던 수정 지시사항(기울기)을 버리지 않고 계속 누적하는 "
                           "특징이 있습니다.", "By default PyTorch does not throw away the correction instructions "
                           "(gradients) computed in the previous loop but keeps accumulating them.")),
           "with_zero_grad": Case(
               statement="zero_grad before each pass: max |grad − grad₁|.",
               quote=Quote("따라서 새로운 문제에 대한 오답 노트를 쓰기 전에, 이전 단계의 메모를 지우개로 깨끗하게 지워주는 "
                           "작업이 필수적입니다.", "So before writing the error notes for a new problem, wiping the "
                           "previous step's notes clean with an eraser is essential (opt.zero_grad()).")),
           },
)
def test_grad_accumulates(verify, case, generator, seed):
    ids = torch.randint(0, 50, (32, 8), generator=generator)  # [B, T]
    target = torch.randint(0, 50, (32,), generator=generator)  # [B]
    once = _grad_after(1, ids, target, seed, zero_grad_between=False)
    if case == "without_zero_grad":
        verify((_grad_after(2, ids, target, seed, zero_grad_between=False) - 2 * once).abs().max().item())
    else:
        verify((_grad_after(2, ids, target, seed, zero_grad_between=True) - once).abs().max().item())


@claim(
    id="input.add_keeps_width",
    post="B", section="why-add",
    source="Post B, '위치는 왜 embedding에 더해도 되는가' and its PyTorch code; post A, '더할 것인가, 이어붙일 것인가'",
    statement="Adding PE keeps the input [B, T, D]; concatenating it widens the input to [B, T, 2D], and "
              "with it every later projection (not measured: a D×D projection at width 2D has (2D)²/D² = 4× "
              "the weights, by arithmetic).",
    tolerance=exact(reason="shapes are integers"),
    kind="post",
    expect_source="post B: 'concat하면 hidden size가 커지고 이후 모든 projection matrix의 크기도 바뀐다'; post A, "
                  "'더할 것인가, 이어붙일 것인가': concatenating makes every later layer costlier",
    cases={
        "add_shape": Case(basis="construction", statement="tok_emb[ids] + pe[:T] with B=2, T=8, D=6 (post B) has shape [B, T, D].",
                          post_value=[2, 8, 6], section="pytorch",
                          quote=Quote("x = token_embeddings + pe.unsqueeze(0) … print(x.shape) # torch.Size([2, 8, 6])",
                                      "post B's code adds the [T, D] table to [B, T, D] token embeddings and prints "
                                      "the shape [2, 8, 6]")),
        "concat_shape": Case(statement="cat(tok_emb[ids], pe[:T]) has shape [B, T, 2D].", post_value=[2, 8, 12],
                             quote=Quote("token embedding과 positional encoding을 concat하면 hidden size가 커지고 이후 "
                                         "모든 projection matrix의 크기도 바뀐다.", "Concatenating the token embedding "
                                         "and the positional encoding enlarges the hidden size and changes the size of "
                                         "every later projection matrix too.")),
    },
    version=3,
    version_note="v3 (issue 30): on post B, whose sentence and code both cases quote (v2 named post A); same "
                 "measurements. v2: attention_params_ratio removed (issue 8): (2D)²/D² = 4 is arithmetic on torch's "
                 "MultiheadAttention, not our code, and could not fail; the statement keeps it as arithmetic",
)
def test_add_keeps_width(verify, case, generator):
    batch, seq_len, d_model = 2, 8, 6
    tok_emb = torch.randn(50, d_model, generator=generator)  # [V, D]
    ids = torch.randint(0, 50, (batch, seq_len), generator=generator)  # [B, T]
    pe = sinusoidal_table(seq_len, d_model)  # [T, D]
    if case == "add_shape":
        x = tok_emb[ids] + pe  # [B, T, D]
    else:
        x = torch.cat([tok_emb[ids], pe.expand(batch, -1, -1)], dim=-1)  # [B, T, 2D]
    verify(list(x.shape))


LENGTHS = [8, 16, 512]  # post B's seq_len=8, twice it, and BERT's 512


@claim(
    id="input.shape_over_length",
    post="B", section="why-add",
    source="Post B, '위치는 왜 embedding에 더해도 되는가' ('sequence 길이가 바뀌어도 입력 shape가 그대로')",
    statement="What stays fixed when the sequence length changes (B=2, D=6 as post B's code; T = 8, 16, 512).",
    tolerance=exact(reason="shapes are integers"),
    kind="post",
    cases={
        "add_full_shape": Case(
            statement="the literal reading, not the post's: 'input shape' taken as the whole tensor, "
                      "tok_emb[ids] + pe[:T] has the same shape [B, T, D] at T=8 and T=16 (false by construction: "
                      "T is one of its axes).",
            post_value=True, expect="refuted", kind="literal",
            expect_source="arithmetic: the input is [B, T, D] (post B prints its shapes so), and T is the length",
            quote=Quote("sequence 길이가 바뀌어도 입력 shape가 그대로 유지된다.",
                        "Even when the sequence length changes, the input shape stays as it is.")),
        "add_width": Case(basis="construction", 
            statement="the post's reading: adding keeps the input at the token embeddings' hidden size D, whatever "
                      "the length: the width of tok_emb[ids] + pe[:T] is D = 6 at T = 8, 16 and 512. In context "
                      "'shape' is the hidden size: the sentence follows 'hidden_size가 768이면 … 결과도 768차원이다' "
                      "and is set against concatenation, which 'enlarges the hidden size'; post B itself prints the "
                      "input as [batch, seq_len, hidden_size], so it does not claim the seq_len axis is fixed.",
            post_value=[6, 6, 6],
            expect_source="post B: 'hidden_size가 768이면 … 결과도 768차원이다' (adding two D-wide vectors gives D); "
                          "arithmetic",
            quote=Quote("더하는 방식에는 실무적인 장점도 있다. sequence 길이가 바뀌어도 입력 shape가 그대로 유지된다. "
                        "token embedding과 positional encoding을 concat하면 hidden size가 커지고 …",
                        "Adding also has a practical advantage: even when the sequence length changes, the input "
                        "shape stays as it is. Concatenating the token embedding and the positional encoding "
                        "enlarges the hidden size …")),
        "concat_width": Case(
            statement="concatenating a [T, D] table instead also gives one width, 2D = 12, at every length: the "
                      "length argument does not separate adding from concatenating (only the width does).",
            post_value=[12, 12, 12], kind="beyond",
            expect_source="arithmetic: concatenation along the feature axis gives width D + D_pos whatever T is; "
                          "Vaswani et al. 2017, §3.5: the encodings have dimension d_model 'so that the two can "
                          "be summed'"),
    },
    version=2,
    version_note="v2: re-read under the reading rule (issue 19): in context post B's 'input shape' is the hidden size "
                 "(the sentence sits between 'the result is also 768-dimensional' and concat 'enlarges the hidden "
                 "size'), so add_full_shape, the whole tensor's shape including the seq_len axis, becomes kind "
                 "'literal' (not counted against the post) and add_width states the post's reading; measures, "
                 "tolerances and expectations unchanged",
)


def test_shape_over_length(verify, case, generator):
    batch, d_model = 2, 6
    tok_emb = torch.randn(50, d_model, generator=generator)  # [V, D]
    shapes = {}
    for seq_len in LENGTHS:
        ids = torch.randint(0, 50, (batch, seq_len), generator=generator)  # [B, T]
        pe = sinusoidal_table(seq_len, d_model)  # [T, D]
        if case == "concat_width":
            x = torch.cat([tok_emb[ids], pe.expand(batch, -1, -1)], dim=-1)  # [B, T, 2D]
        else:
            x = tok_emb[ids] + pe  # [B, T, D]
        shapes[seq_len] = list(x.shape)
    if case == "add_full_shape":
        verify(shapes[8] == shapes[16], details={"shapes at T = 8, 16": [shapes[8], shapes[16]]})
    else:
        verify([shapes[t][-1] for t in LENGTHS])
