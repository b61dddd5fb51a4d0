"""Each deterministic claim fails on a broken implementation (mutation tests).

Every case copies real claim modules into a ``pytester`` directory, plants one bug through a conftest
that patches ``fixtures`` before the claims import it, runs pytest in a subprocess, and checks that
the run fails with exactly the claim rows that bug should break reported not as expected.
"""

from __future__ import annotations


import pytest
from planted import ERROR, JUDGED, assert_breaks, run_with_bug


MUTATIONS = {
    # [sin | cos] concatenated instead of interleaved
    "concat_layout": (["test_sinusoidal.py", "test_sinusoidal_long_range.py"], """
        import torch, llm_claims_lab.positional as P
        def broken(seq_len, d_model, *, base=P.BASE, dtype=torch.float32, device=None):
            two_i = torch.arange(0, d_model, 2, dtype=dtype)
            angle = torch.arange(seq_len, dtype=dtype)[:, None] / base ** (two_i / d_model)
            return torch.cat([angle.sin(), angle.cos()], dim=1)
        P.sinusoidal_table = broken
        """, {"pe.sin.table_8x6", "pe.sin.position0", "pe.sin.wavelength_spread[monotone]",
              "pe.sin.frequencies_from_formula",
              "pe.sin.wavelength_spread[slow_pair]",
              *(f"pe.sin.shift_is_linear_map[k{k}]" for k in (1, 3, 10, 30)),
              # shift_matrix and the channel pairs assume the interleaved layout; the broken table also
              # computes a bfloat16 table in bfloat16, so positions from 257 on coincide
              "pe.sin.positions_from_one[shift_map]", "pe.sin.slow_channels_separate_far[fast_pairs_wrap]",
              "pe.sin.unique_rows[bfloat16]"}),
    # exponent computed per column (j/d) instead of per pair (2i/d)
    "exponent_per_column": (["test_sinusoidal.py", "test_sinusoidal_long_range.py", "test_position_tables.py"], """
        import torch, llm_claims_lab.positional as P
        def broken(seq_len, d_model, *, base=P.BASE, dtype=torch.float32, device=None):
            j = torch.arange(d_model, dtype=dtype)
            angle = torch.arange(seq_len, dtype=dtype)[:, None] / base ** (j / d_model)
            pe = angle.clone()
            pe[:, 0::2], pe[:, 1::2] = angle[:, 0::2].sin(), angle[:, 1::2].cos()
            return pe
        P.sinusoidal_table = broken
        """, {"pe.sin.table_8x6", "pe.sin.frequencies_from_formula",
              *(f"pe.sin.dot_depends_only_on_gap[gap{k}-{q}]" for k in (1, 3, 10, 30)
                                    for q in ("spread", "vs_post", "vs_closed_form")),
              *(f"pe.sin.shift_is_linear_map[k{k}]" for k in (1, 3, 10, 30)),
              # sin and cos of a pair no longer share a frequency: no rotation, no constant norm, no gap-only
              # dot product; and the bfloat16 table is computed in bfloat16
              *(f"pe.sin.positions_from_one[{c}]" for c in ("gap_only", "shift_map", "gram_unchanged")),
              "pe.sin.nearby_positions_similar[gap1_nearest]", "pe.sin.slow_channels_separate_far[fast_pairs_wrap]",
              "pe.raw_integer_unbounded[sinusoidal_bounded]", "pe.sin.unique_rows[bfloat16]"}),
    # the table built with another base (1,000) than the formula's 10,000
    "sin_base_1000": (["test_sinusoidal.py"], """
        import llm_claims_lab.positional as P
        table = P.sinusoidal_table
        P.sinusoidal_table = lambda seq_len, d_model, **k: table(seq_len, d_model, **{**k, "base": 1000.0})
        """, {"pe.sin.table_8x6", "pe.sin.frequencies_from_formula", "pe.sin.wavelength_spread[slow_pair]",
              *(f"pe.sin.dot_depends_only_on_gap[gap{k}-{q}]" for k in (1, 3, 10, 30)
                for q in ("vs_post", "vs_closed_form")),  # the closed form and M_k keep base 10,000
              *(f"pe.sin.shift_is_linear_map[k{k}]" for k in (1, 3, 10, 30)), "pe.sin.positions_from_one[shift_map]"}),
    # exponent 2i/(d − 2) in the table, its frequencies and the shift map alike: every pair still shares one
    # frequency, so the gap and shift rows hold; only the formula's values catch it
    "exponent_over_d_minus_2": (["test_sinusoidal.py"], """
        import torch, llm_claims_lab.positional as P, llm_claims_lab.positional.absolute as A
        def frequencies(d_model, *, base=P.BASE, dtype=torch.float32):
            return (base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / (d_model - 2))).to(dtype)
        def table(seq_len, d_model, *, base=P.BASE, dtype=torch.float32, device=None):
            angle = torch.arange(seq_len, dtype=torch.float64)[:, None] * frequencies(d_model, base=base, dtype=torch.float64)
            pe = torch.empty(seq_len, d_model, dtype=torch.float64)
            pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
            return pe.to(dtype)
        A.frequencies = P.frequencies = frequencies
        P.sinusoidal_table = table
        """, {"pe.sin.table_8x6", "pe.sin.frequencies_from_formula",
              *(f"pe.sin.dot_depends_only_on_gap[gap{k}-vs_post]" for k in (1, 3, 10, 30))}),
    # ALiBi slopes that are positive but not the paper's (linear in the head index)
    "alibi_slopes_linear": (["test_alibi.py", "test_score_decay.py"], """
        import llm_claims_lab.positional.biases as B
        B.alibi_slopes = lambda num_heads: [(h + 1) / num_heads for h in range(num_heads)]
        """, {"pos.alibi_slopes[8_heads]", "pos.alibi_slopes[16_heads]", "pos.alibi_slopes[12_heads]",
              "pos.alibi_slopes[112_heads]"}),
    # RoPE that forgets to rotate
    "rope_without_rotation": (["test_attention.py", "test_score_decay.py"], """
        import llm_claims_lab.positional as P
        P.apply_rope = lambda x, positions, base=P.BASE: x
        """, {**dict.fromkeys({"rope.score_depends_only_on_offset[varies_with_offset]", "rope.frequencies_from_paper",
                               "pos.relative_survives_insertion[mid_straddling_rope]",
                               *(f"pos.score_decreases_with_distance[rope_q_equals_k_{c}]"
                                 for c in ("peak_at_gap0", "on_average"))}, JUDGED),
              # without rotation q·k is the same at every gap: no gap where the score peaks (an IndexError)
              **dict.fromkeys({f"pos.score_decreases_with_distance[rope_q_equals_k_{c}]" for c in ("ones", "random")},
                              ERROR)}),
    # attention that never sees the positional encoding
    "pe_not_added": (["test_attention.py"], """
        import torch, llm_claims_lab.positional as P
        table = P.sinusoidal_table
        P.sinusoidal_table = lambda *a, **k: torch.zeros_like(table(*a, **k))
        P.LearnedPositionalEmbedding.forward = lambda self, seq_len: torch.zeros_like(self.weight[:seq_len])
        """, {"attn.order_blind_without_pe[with_sinusoidal_pe]", "pos.relative_survives_insertion[sinusoidal]",
              "pos.relative_survives_insertion[learned]", "pos.relative_survives_insertion[mid_sinusoidal]",
              "pos.relative_survives_insertion[mid_learned]", "pos.relative_survives_insertion[sinusoidal_pe_moves]",
              "pos.relative_survives_insertion[learned_pe_relations]"}),
    # a learned table (post B's nn.Embedding) that silently clamps instead of refusing positions past its end
    "learned_table_clamps": (["test_position_tables.py"], """
        import torch.nn.functional as F
        embedding = F.embedding
        F.embedding = lambda ids, weight, *a, **k: embedding(ids.clamp(max=weight.shape[0] - 1), weight, *a, **k)
        """, {"pe.sin.parameter_free_any_length[learned_past_max_len_raises]"}),
    # a learned table the optimizer never updates (a buffer-like weight that needs no gradient)
    "learned_table_frozen": (["test_position_tables.py"], """
        import llm_claims_lab.positional as P
        init = P.LearnedPositionalEmbedding.__init__
        def frozen(self, *args, **kwargs):
            init(self, *args, **kwargs)
            self.weight.requires_grad_(False)
        P.LearnedPositionalEmbedding.__init__ = frozen
        """, {"pe.sin.parameter_free_any_length[learned_trained_by_optimizer]": ERROR}),  # backward has no grad_fn
    # a table with only the sin channels: it can no longer be added, and the concatenation is too narrow
    "table_half_width": (["test_embedding.py"], """
        import llm_claims_lab.positional as P
        table = P.sinusoidal_table
        P.sinusoidal_table = lambda *a, **k: table(*a, **k)[:, 0::2]
        """, {"input.add_keeps_width[concat_shape]": JUDGED, "input.shape_over_length[concat_width]": JUDGED,
              # adding a table of half the width to the tokens raises (a shape error)
              **dict.fromkeys(("input.add_keeps_width[add_shape]", "input.shape_over_length[add_full_shape]",
                               "input.shape_over_length[add_width]"), ERROR)}),
    # particles tried shortest first
    "particles_shortest_first": (["test_tokenization.py"], """
        import llm_claims_lab.word2vec.stemming as S
        S.PARTICLES = tuple(sorted(S.PARTICLES, key=len))
        """, {"stem.particle_rules"}),
    # skip-gram's window off by one: contexts drawn from ±1 … ±(WIN − 1), or ±1 … ±(WIN + 1)
    **{f"window_{name}": (["test_word2vec_sampler.py"], f"""
        import torch, llm_claims_lab.word2vec.skipgram as S
        def broken(ids, vocab_size, cfg, device):
            c = torch.randint(cfg.window + 1, len(ids) - cfg.window - 1, (cfg.batch,), device=device)
            sign = torch.randint(0, 2, (cfg.batch,), device=device) * 2 - 1
            off = torch.randint(1, cfg.window + {high}, (cfg.batch,), device=device) * sign
            neg = torch.randint(0, vocab_size, (cfg.batch, cfg.negatives), device=device)
            return ids[c], ids[c + off], neg
        S.sample_batch = broken
        """, broken) for name, high, broken in (  # the offsets' list of another length: the harness's shape error
            ("narrow", 0, {"w2v.window_offsets": ERROR}),
            ("wide", 2, {"w2v.window_offsets": ERROR, "w2v.sampler_stays_inside": JUDGED}))},
    # negatives drawn from the positives: every wrong answer is the pair's own context word
    "negatives_from_context": (["test_word2vec_sampler.py"], """
        import llm_claims_lab.word2vec.skipgram as S
        sample = S.sample_batch
        def broken(ids, vocab_size, cfg, device):
            center, ctx, neg = sample(ids, vocab_size, cfg, device)
            return center, ctx, ctx[:, None].expand_as(neg)
        S.sample_batch = broken
        """, {"w2v.negatives_uniform[regardless_of_pair]",
              "w2v.negatives_uniform[whole_vocabulary]"}),  # the contexts are 20 ids of the 10,000
    # negatives drawn from a range one short (torch.randint's high is exclusive): id V − 1 is never a negative
    "negatives_range_one_short": (["test_word2vec_sampler.py"], """
        import torch, llm_claims_lab.word2vec.skipgram as S
        sample = S.sample_batch
        def broken(ids, vocab_size, cfg, device):
            center, ctx, neg = sample(ids, vocab_size, cfg, device)
            return center, ctx, torch.randint(0, vocab_size - 1, neg.shape, device=device)
        S.sample_batch = broken
        """, {"w2v.negatives_uniform[whole_vocabulary]"}),
    # a lookup that reads the wrong row
    "lookup_off_by_one": (["test_embedding.py"], """
        import torch.nn.functional as F
        one_hot = F.one_hot
        F.one_hot = lambda ids, n: one_hot((ids + 1) % n, n)
        """, {"emb.lookup_equals_onehot_matmul"}),
    # the literal reading, expected refuted, starts holding: a 100,000-word vocabulary gives 11,111×
    "ns_bigger_vocabulary": (["test_negative_sampling.py"], """
        def pytest_collection_modifyitems(items):
            for item in items:
                item.module.VOCAB = 100_000
        """, {"ns.several_thousand_times"}),
    # the post's reading fails on a saving in the hundreds: a 5,000-word vocabulary gives 556×
    "ns_smaller_vocabulary": (["test_negative_sampling.py"], """
        def pytest_collection_modifyitems(items):
            for item in items:
                item.module.VOCAB = 5_000
        """, {"ns.flop_ratio"}),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_claims_fail_on_broken_implementation(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                              mutation: str) -> None:
    files, patch, broken_rows = MUTATIONS[mutation]
    assert_breaks(*run_with_bug(pytester, monkeypatch, files, patch), broken_rows)
