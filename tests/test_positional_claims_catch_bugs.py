"""The positional claim rows fail on a broken positional encoding (mutation tests, as ``test_claims_catch_bugs.py``).

Issue 30 found bugs that every claim row training nothing let through, caught by unit tests alone: the relative
bias's offset sign-flipped or its index shifted (the insertion rows hold for any function of the offset), ALiBi's
mask direction (``pos.score_decreases_with_distance[alibi]`` reads the mask-free form), T5's buckets off by one,
ALiBi slopes wrong only away from powers of two, RoPE's θ. Each bug here is planted alone, through a conftest that
patches ``llm_claims_lab.positional`` before the claims import it; the claim modules that use the patched code run
in a ``pytester`` subprocess, and exactly the rows that state the broken property must come out not as expected.
"""

from __future__ import annotations


import pytest
from planted import assert_breaks, run_with_bug

INSERTION = "pos.relative_survives_insertion"

MUTATIONS = {
    # post A's rel read at i − j instead of j − i: still one scalar per offset, so the insertion rows hold
    "rel_bias_offset_sign": (["test_attention.py", "test_position_tables.py"], """
        import torch, llm_claims_lab.positional.biases as B
        def flipped(self, q_len, k_len):
            i, j = torch.arange(q_len)[:, None], torch.arange(k_len)[None, :]
            return self.bias[i - j + self.max_len - 1][None]
        B.RelativePositionBias.forward = flipped
        """, {"pe.rel.bias_by_offset[post_a_rel]"}),
    # the index into the table shifted by one entry (wrapping at the end): every pair reads its neighbour's scalar
    "rel_bias_index_shifted": (["test_attention.py", "test_position_tables.py"], """
        import torch, llm_claims_lab.positional.biases as B
        def shifted(self, q_len, k_len):
            i, j = torch.arange(q_len)[:, None], torch.arange(k_len)[None, :]
            return self.bias.roll(1)[j - i + self.max_len - 1][None]
        B.RelativePositionBias.forward = shifted
        """, {"pe.rel.bias_by_offset[post_a_rel]"}),
    # a "relative" bias that reads the key's absolute position: the insertion rows see it
    "rel_bias_absolute": (["test_attention.py", "test_position_tables.py"], """
        import torch, llm_claims_lab.positional.biases as B
        def absolute(self, q_len, k_len):
            return self.bias[torch.arange(k_len)].expand(1, q_len, k_len)
        B.RelativePositionBias.forward = absolute
        """, {"pe.rel.bias_by_offset[post_a_rel]", f"{INSERTION}[relative_bias]", f"{INSERTION}[mid_relative_bias]"}),
    # the shared offset j − i sign-flipped: ALiBi's mask, T5's halves and the clipped bias read the wrong side
    "relative_offsets_sign": (["test_position_tables.py", "test_alibi.py"], """
        import llm_claims_lab.positional as P, llm_claims_lab.positional.biases as B
        offsets = B.relative_offsets
        P.relative_offsets = B.relative_offsets = lambda q_len, k_len, *, device=None: -offsets(q_len, k_len,
                                                                                                device=device)
        """, {"pe.rel.bias_by_offset[clipped_k16]", "pe.t5.bucket_of_offset[max_distance_20]",
              "pe.t5.bucket_of_offset[max_distance_128]", "pos.alibi_direction"}),
    # ALiBi's mirrored mask the wrong way round: keys right of the query masked
    "alibi_mask_flipped": (["test_alibi.py", "test_score_decay.py"], """
        import llm_claims_lab.positional.biases as B
        def flipped(self, q_len, k_len):
            offset = B.relative_offsets(q_len, k_len)
            bias = -self.slopes[:, None, None] * offset.abs()
            return bias.masked_fill(offset > 0, float("-inf")) if self.direction == "right" else bias
        B.ALiBiBias.forward = flipped
        """, {"pos.alibi_direction"}),
    # ALiBi without its mask where the direction is asked for (the symmetric control's bias)
    "alibi_mask_dropped": (["test_alibi.py", "test_score_decay.py"], """
        import llm_claims_lab.positional.biases as B
        B.ALiBiBias.forward = lambda self, q_len, k_len: (-self.slopes[:, None, None]
                                                          * B.relative_offsets(q_len, k_len).abs())
        """, {"pos.alibi_direction"}),
    # the power-of-two formula 2^(−8k/H) for every H: right at 8 and 16 heads, wrong at 12 and 112
    "alibi_slopes_naive": (["test_alibi.py", "test_score_decay.py"], """
        import llm_claims_lab.positional.biases as B
        B.alibi_slopes = lambda num_heads: [2.0 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)]
        """, {"pos.alibi_slopes[12_heads]", "pos.alibi_slopes[112_heads]"}),
    # ALiBi's slopes sign-flipped (−m instead of m): the bias rises with distance; the row that states the decrease
    # must see it (positive slopes that are merely wrong still decrease, and pos.alibi_slopes states their values)
    "alibi_slopes_negative": (["test_score_decay.py"], """
        import llm_claims_lab.positional as P, llm_claims_lab.positional.biases as B
        slopes = B.alibi_slopes
        P.alibi_slopes = B.alibi_slopes = lambda num_heads: [-m for m in slopes(num_heads)]
        """, {"pos.score_decreases_with_distance[alibi]"}),
    # ALiBi with learnable slopes: no longer parameter-free
    "alibi_slopes_learnable": (["test_parameter_free_schemes.py"], """
        import torch, llm_claims_lab.positional.biases as B
        init = B.ALiBiBias.__init__
        def learnable(self, *args, **kwargs):
            init(self, *args, **kwargs)
            slopes = self._buffers.pop("slopes")
            self.slopes = torch.nn.Parameter(slopes.clone())
        B.ALiBiBias.__init__ = learnable
        """, {"pos.alibi_rope_parameter_free[alibi]"}),
    # offset 0 put in the right half (offset ≥ 0 instead of > 0): T5's bucket off by one at the halves' seam
    "t5_zero_offset_right": (["test_position_tables.py"], """
        import math, torch, llm_claims_lab.positional.biases as B
        def bucket(offset, *, num_buckets=32, max_distance=128):
            half = num_buckets // 2
            exact = half // 2
            n = offset.abs()
            spaced = exact + (torch.log(n.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                              * (half - exact)).long()
            return (offset >= 0).long() * half + torch.where(n < exact, n, spaced.clamp(max=half - 1))
        B.t5_bucket = bucket
        """, {"pe.t5.bucket_of_offset[max_distance_20]", "pe.t5.bucket_of_offset[max_distance_128]"}),
    # the log-spaced bucket rounded instead of floored: each bucket edge moves by about half a bucket
    "t5_bucket_rounded": (["test_position_tables.py"], """
        import math, torch, llm_claims_lab.positional.biases as B
        def bucket(offset, *, num_buckets=32, max_distance=128):
            half = num_buckets // 2
            exact = half // 2
            n = offset.abs()
            spaced = exact + (torch.log(n.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                              * (half - exact)).round().long()
            return (offset > 0).long() * half + torch.where(n < exact, n, spaced.clamp(max=half - 1))
        B.t5_bucket = bucket
        """, {"pe.t5.bucket_of_offset[max_distance_20]", "pe.t5.bucket_of_offset[max_distance_128]"}),
    # RoPE with Llama 3's base 500,000 instead of RoFormer's 10,000
    "rope_base_500000": (["test_attention.py", "test_score_decay.py"], """
        import llm_claims_lab.positional as P, llm_claims_lab.positional.rope as R
        rope = R.apply_rope
        P.apply_rope = R.apply_rope = lambda x, positions, *, base=P.BASE: rope(x, positions, base=500000.0)
        """, {"rope.frequencies_from_paper"}),
    # RoPE whose 2×2 blocks are not rotations ([[cos, sin], [sin, cos]]): scores depend on more than the offset
    "rope_not_a_rotation": (["test_attention.py", "test_score_decay.py"], """
        import torch, llm_claims_lab.positional as P, llm_claims_lab.positional.rope as R
        def broken(x, positions, *, base=P.BASE):
            angle = positions.to(x.dtype)[:, None] * P.frequencies(x.shape[-1], base=base, dtype=x.dtype)
            out = torch.empty_like(x)
            out[..., 0::2] = x[..., 0::2] * angle.cos() + x[..., 1::2] * angle.sin()
            out[..., 1::2] = x[..., 0::2] * angle.sin() + x[..., 1::2] * angle.cos()
            return out
        P.apply_rope = R.apply_rope = broken
        """, {"rope.score_depends_only_on_offset[same_offset_spread]", f"{INSERTION}[rope]", f"{INSERTION}[mid_rope]",
              # the control that the rotation acts: a block that is no rotation can raise q·q above gap 0's
              "pos.score_decreases_with_distance[rope_q_equals_k_peak_at_gap0]"}),
    # RoPE with a learnable base: no longer parameter-free
    "rope_base_learnable": (["test_parameter_free_schemes.py"], """
        import math, torch, llm_claims_lab.positional.rope as R
        init = R.RotaryPositionEmbedding.__init__
        def learnable(self, *args, **kwargs):
            init(self, *args, **kwargs)
            self.log_base = torch.nn.Parameter(torch.tensor(math.log(self.base)))
        R.RotaryPositionEmbedding.__init__ = learnable
        """, {"pos.alibi_rope_parameter_free[rope]"}),
    # exponent per column (j/d): sin and cos of a pair no longer share a frequency, so the vectors' dot products
    # move with the insertion (figure 3's relations are lost)
    "sin_exponent_per_column": (["test_attention.py"], """
        import torch, llm_claims_lab.positional as P
        def broken(seq_len, d_model, *, base=P.BASE, dtype=torch.float32, device=None):
            j = torch.arange(d_model, dtype=dtype)
            angle = torch.arange(seq_len, dtype=dtype)[:, None] / base ** (j / d_model)
            pe = angle.clone()
            pe[:, 0::2], pe[:, 1::2] = angle[:, 0::2].sin(), angle[:, 1::2].cos()
            return pe
        P.sinusoidal_table = broken
        """, {f"{INSERTION}[sinusoidal_pe_relations]", f"{INSERTION}[mid_sinusoidal_pe_relations]"}),
    # base 1,000 instead of 10,000 (Vaswani et al. 2017; both posts): every row that states a base-dependent value
    # breaks. The rows that hold for every base b > 1 by arithmetic do not, and must not: PE(0) = (sin 0, cos 0) =
    # (0, 1, …) (pe.sin.position0), pair 0's frequency b⁰ = 1 (pe.sin.wavelength_spread[fast_pair]), and dot
    # products that depend on the gap alone, a shift that is a linear map, from position 0 or 1
    # (pe.sin.dot_depends_only_on_gap, pe.sin.shift_is_linear_map, pe.sin.positions_from_one): properties of every
    # sinusoid table, which a check of the base would test the implementation, not the post's sentence
    "sin_base_1000": (["test_sinusoidal.py", "test_sinusoidal_long_range.py"], """
        import llm_claims_lab.positional as P, llm_claims_lab.positional.absolute as A
        table, freqs = A.sinusoidal_table, A.frequencies
        P.sinusoidal_table = A.sinusoidal_table = lambda seq_len, d_model, *, base=A.BASE, **k: table(
            seq_len, d_model, base=1000.0, **k)
        P.frequencies = A.frequencies = lambda d_model, *, base=A.BASE, **k: freqs(d_model, base=1000.0, **k)
        """, {"pe.sin.table_8x6", "pe.sin.frequencies_from_formula", "pe.sin.wavelength_spread[slow_pair]",
              "pe.sin.slow_channels_separate_far[slow_pairs_separate]",
              *(f"pe.sin.dot_depends_only_on_gap[gap{k}-vs_post]" for k in (1, 3, 10, 30))}),
    # one table row for every position (the first): nothing is pushed back, and the relations hold vacuously
    "sin_rows_constant": (["test_attention.py"], """
        import torch, llm_claims_lab.positional as P
        table = P.sinusoidal_table
        P.sinusoidal_table = lambda seq_len, d_model, **k: table(1, d_model, **k).expand(seq_len, d_model)
        """, {"attn.order_blind_without_pe[with_sinusoidal_pe]", f"{INSERTION}[sinusoidal_pe_moves]",
              f"{INSERTION}[sinusoidal]", f"{INSERTION}[mid_sinusoidal]"}),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_positional_claims_fail_on_broken_implementation(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                         mutation: str) -> None:
    files, patch, broken_rows = MUTATIONS[mutation]
    assert_breaks(*run_with_bug(pytester, monkeypatch, files, patch), broken_rows)
