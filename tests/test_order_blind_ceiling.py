"""The order-blind ceiling that the run without positions (NoPE) is held under
(:func:`llm_claims_lab.extrapolation.order_blind_ceiling`, ``extrap.pe_vs_no_position``): its arithmetic on a hand
example, its agreement with the best order-blind predictor scored on shuffled copies, and the property it rests on
(attention without positions or mask is permutation-equivariant)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from llm_claims_lab.extrapolation import ExtrapolationConfig, initial_model, order_blind_ceiling


def test_hand_example() -> None:
    # multiset {0, 0, 1, 1}: after a 0 the next token is a 1 with probability 2/3 (two 1s among the 3 other slots),
    # after a 1 a 0 with 2/3; every prediction's best chance is 2/3
    assert abs(order_blind_ceiling(torch.tensor([[0, 1, 0, 1]]), 2) - 100 * 2 / 3) < 1e-9
    # all one token: the next token is always it
    assert order_blind_ceiling(torch.tensor([[3, 3, 3]]), 5) == 100.0


def test_equals_the_best_order_blind_predictor_on_shuffled_sequences() -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randint(0, 50, (500, 20), generator=g)  # [N, L]
    scores = []
    for _ in range(40):  # the predictor's accuracy over random orders of each sequence's multiset
        shuffled = torch.stack([row[torch.randperm(20, generator=g)] for row in x])  # [N, L]
        counts = F.one_hot(shuffled, 50).sum(1)  # [N, V]
        guess = (counts[:, None, :] - F.one_hot(shuffled[:, :-1], 50)).argmax(-1)  # [N, L − 1]
        scores.append(100 * (guess == shuffled[:, 1:]).double().mean().item())
    assert abs(sum(scores) / len(scores) - order_blind_ceiling(x, 50)) < 0.5  # Monte Carlo SE ≈ 0.05 pp


def test_attention_without_positions_is_blind_to_order() -> None:
    model, _ = initial_model(ExtrapolationConfig(scheme="nope"), 0)
    x = torch.randint(0, 50, (4, 20), generator=torch.Generator().manual_seed(1))  # [B, T]
    perm = torch.randperm(20, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        assert torch.allclose(model(x)[:, perm], model(x[:, perm]), atol=1e-5)
