"""ALiBi and RoPE need no training: the trained parameters each scheme adds to post A's exp. 3 model.

No training: the models are built, not trained. Post A, exp. 3 closing ('학습조차 필요 없이 … ALiBi(알리바이), RoPE');
the model is the duel's (``llm_claims_lab.extrapolation``), the one the ``extrap.*`` rows train.
"""

from llm_claims_harness.declare import Case, Quote, claim, exact
from llm_claims_lab.extrapolation import ExtrapolationConfig, ExtrapolationModel

VOCAB, WIDTH, LTE = 50, 128, 40  # post A's Vv, d, Lte
# post A's M besides position: nn.Embedding(Vv, d), Wq, Wk, Wv [d, d], nn.Linear(d, Vv) (weight and bias)
WITHOUT_POSITION = VOCAB * WIDTH + 3 * WIDTH * WIDTH + WIDTH * VOCAB + VOCAB  # 62,002
NO_TRAINING = ("post A's sentence (the quote): ALiBi and RoPE penalise distance by a formula 'without even "
               "training'; Press et al. 2022 (the slopes are fixed, not learned); Su et al. 2021 (Θ pre-defined)")


@claim(
    id="pos.alibi_rope_parameter_free",
    post="A", section="exp3-end",
    source="Post A, exp. 3 closing ('학습조차 필요 없이, 거리가 멀어질수록 수학적으로 가산점을 깎아버리는' ALiBi, RoPE)",
    statement="ALiBi and RoPE need no training: each adds no trained parameter to the model it positions. "
              "Measured: trainable parameters of post A's exp. 3 model built with the scheme (ExtrapolationModel, "
              f"d = {WIDTH}, 50 tokens) minus the {WITHOUT_POSITION:,} of the parts post A's code builds besides "
              "position (nn.Embedding(50, 128), Wq, Wk, Wv [128, 128], nn.Linear(128, 50)).",
    tolerance=exact(reason="parameter counts are integers"),
    unit="trained parameters added",
    kind="post",
    quote=Quote("이 문제를 완전히 끝내기 위해 '학습조차 필요 없이, 거리가 멀어질수록 수학적으로 가산점을 깎아버리는' ALiBi(알리바이), "
                "RoPE라는 기법이 등장",
                "to end this problem for good, techniques called ALiBi and RoPE appear, which 'without even "
                "training, mathematically cut the bonus as the distance grows'"),
    expect_source=NO_TRAINING,
    cases={
        "alibi": Case(statement="ALiBi (8 heads, the suite's, with its mirrored mask): 0 added.", post_value=0,
                      params={"scheme": "alibi"}),
        "rope": Case(statement="RoPE on queries and keys: 0 added.", post_value=0, params={"scheme": "rope"}),
        "relative": Case(
            statement=f"control: post A's relative bias, the scheme the sentence's 'this problem' comes from (its "
                      f"table for unseen distances is untrained): its 2·Lte − 1 = {2 * LTE - 1} trained scalars.",
            kind="control", params={"scheme": "relative"}, reference=f"2·Lte − 1 = {2 * LTE - 1}, one scalar per offset",
            expect_source="control's design: a per-offset table the optimizer trains (post A: nn.Parameter(torch."
                          "zeros(2 * Lte - 1))) must be counted, else a 0 for ALiBi and RoPE would be blindness"),
    },
)
def test_alibi_rope_parameter_free(verify, scheme):
    model = ExtrapolationModel(ExtrapolationConfig(scheme=scheme))
    trained = {name: p.numel() for name, p in model.named_parameters() if p.requires_grad}
    added = sum(trained.values()) - WITHOUT_POSITION
    verify(added, **({"reference": 2 * LTE - 1} if scheme == "relative" else {}),
           details={"trainable parameters of the model": sum(trained.values()),
                    "of the positional module": sum(n for name, n in trained.items() if name.startswith("pos.")),
                    "buffers of the positional module (not trained)":
                        {name: list(b.shape) for name, b in model.pos.named_buffers()}})
