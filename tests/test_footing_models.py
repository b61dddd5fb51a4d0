"""The fair footings of the extrapolation duel (``claims/test_extrapolation_footing.py``): a masked scheme is its
base scheme with ALiBi's mirrored mask and nothing else, and the clip sweep clips where it says."""

from __future__ import annotations

import pytest
import torch

from llm_claims_lab.extrapolation import (
    CLIP_DISTANCE,
    CLIP_SCHEMES,
    CLIP_SWEEP,
    MASKED_SCHEMES,
    ExtrapolationConfig,
    initial_model,
)
from llm_claims_lab.positional import ALiBiBias


@pytest.mark.parametrize("scheme", MASKED_SCHEMES)
def test_masked_scheme_is_its_base_with_the_mask(scheme):
    """Same initial weights and random stream as the base scheme; the attention puts exactly nothing on keys
    j < i, as ALiBi's mask does, while the base scheme's puts some there."""
    base = scheme.removesuffix("_masked")
    (masked, masked_state), (free, free_state) = (initial_model(ExtrapolationConfig(scheme=s), 3) for s in (scheme, base))
    assert masked_state.equal(free_state)
    assert masked.state_dict().keys() == free.state_dict().keys()
    assert all(v.equal(free.state_dict()[k]) for k, v in masked.state_dict().items())
    x = torch.randint(0, 50, (4, 40), generator=torch.Generator().manual_seed(0))  # [B, T]
    left = torch.ones(40, 40).tril(-1).bool()  # [T, T]: keys j < i
    masked_attention, free_attention = (m.forward_with_attention(x)[1] for m in (masked, free))  # [B, T, T]
    assert masked_attention[:, left].abs().max() == 0
    assert free_attention[:, left].min() > 0
    alibi = ALiBiBias(1, direction="right")(40, 40)[0]  # [T, T]: ALiBi's own mask
    assert (alibi == float("-inf")).equal(left)
    assert masked.forward_plain(x).allclose(masked(x), atol=1e-5)


@pytest.mark.parametrize(("scheme", "k"), [*zip(CLIP_SCHEMES, CLIP_SWEEP), ("relative_clipped", CLIP_DISTANCE)])
def test_clip_sweep_clips_at_its_width(scheme, k):
    """Offsets past ±k share the scalar of ±k; offsets within keep their own; k = 16 lies inside the trained ±19."""
    model, _ = initial_model(ExtrapolationConfig(scheme=scheme), 0)
    with torch.no_grad():
        model.pos.bias.copy_(torch.arange(2 * k + 1, dtype=torch.float))  # scalar of offset o is o + k
    row = model.pos(1, 40)[0, 0]  # [T_k]: offsets 0 … 39 from query 0
    assert row.tolist() == [min(o, k) + k for o in range(40)]
    assert k < ExtrapolationConfig().train_len - 1
