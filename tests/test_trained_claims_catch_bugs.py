"""Trained claims fail on a broken implementation (mutation tests of the extrapolation claims).

Each case copies the extrapolation claims (``claims/test_extrapolation*.py`` and their shared helpers) into a
``pytester`` directory with a conftest that plants one bug in ``llm_claims_lab`` and trains without the steps
sweep (the protocol's 3000 steps only; a bug that edits only what is computed after the cache keeps the suite's
lab, ``WITH_SWEEP``, and trains nothing), runs the rows the bug concerns in a subprocess, and checks that exactly
the expected rows turn "not as expected".

The subprocess shares this run's weight cache, so it trains only what the bug changes: a planted bug that edits
code names the schemes it reaches, and their entries (weights and evaluations) get the bug's source in their
fingerprint (``plant`` in ``NO_SWEEP`` below), so a mutated entry can never be served to a real row nor a real one to a
mutated row; every other entry is the run's own. The accuracy-by-position figure is not drawn there (it would
read every scheme). Each case trains at most two models at the full protocol (a minute or two of CPU), so they
carry the ``slow`` marker: ``pytest -m "not slow"`` leaves them out.
"""

from __future__ import annotations

import textwrap

import pytest
from planted import ERROR, JUDGED, ROOT, assert_breaks, run_with_bug

NO_SWEEP = """
import dataclasses

import pytest


@pytest.fixture(scope="session")
def extrapolation_lab(weight_cache, device):
    from llm_claims_lab.extrapolation import ExtrapolationLab
    return ExtrapolationLab(weight_cache, device)


@pytest.fixture(scope="session")
def position_figure():
    return []  # the figure reads every scheme: not drawn in a mutation run


def plant(source, schemes):
    # Entries of these schemes (weights and evaluations) carry the planted bug's source in their fingerprint.
    from llm_claims_lab.core.cache import WeightCache
    fetch_many = WeightCache.fetch_many
    mutated = lambda entry: any(f"-{scheme}-seed" in entry.name for scheme in schemes)  # noqa: E731

    def fetch_mutated(self, entries):
        return fetch_many(self, [dataclasses.replace(e, fingerprint={**e.fingerprint, "planted_bug": source})
                                 if mutated(e) else e for e in entries])
    WeightCache.fetch_many = fetch_mutated
"""
# Put back after a planted bug that edits no code the cache fingerprints: the suite's own lab (the steps sweep's
# runs), so the rows read the run's entries and nothing is trained for the mutation.
WITH_SWEEP = """

@pytest.fixture(scope="session")
def extrapolation_lab(weight_cache, device):
    from llm_claims_lab.extrapolation import SWEPT_SCHEMES, ExtrapolationLab
    return ExtrapolationLab(weight_cache, device, sweep=SWEPT_SCHEMES)
"""
# every extrapolation claims module, so a row moved to a new module is still copied
FILES = sorted(p.name for p in (ROOT / "claims").glob("test_extrapolation*.py"))
MAIN, MECHANISMS, BEYOND, FOOTING, POST_B, LENGTHS, RULE = (
    f"test_extrapolation{part}.py::" for part in ("", "_mechanisms", "_beyond", "_footing", "_post_b", "_lengths",
                                                  "_relative_rule"))
# the sinusoidal rows are stopped by their control; the controls' rows hold, where their design says refuted
CARRIES = {f"extrap.sin_relative_rule_carries[{case}]": ERROR if case.startswith("sinusoidal") else JUDGED
           for case in ("sinusoidal", "random_fixed", "sinusoidal_block", "random_fixed_block")}

MUTATIONS = {
    # the relative bias indexed by the key's absolute position j instead of the offset j − i
    "relative_bias_absolute": ("""
        import torch, llm_claims_lab.positional as P
        def absolute(self, q_len, k_len):
            j = torch.arange(k_len, device=self.bias.device)
            return self.bias[j + self.max_len - 1][None, None].expand(1, q_len, k_len)
        P.RelativePositionBias.forward = absolute
        """, ("relative",), [MAIN + "test_relative_bias", MECHANISMS + "test_relative_unseen_offsets_untrained",
            MECHANISMS + "test_attends_right_neighbour[relative]"],
        dict.fromkeys({"extrap.relative_bias[len20]", "extrap.relative_bias[len40]", "extrap.relative_bias[new40]",
         "attn.attends_right_neighbour[relative]"}, JUDGED)),
    # additive tables that are never added (zeros): the model cannot see positions at all
    "pe_never_added": ("""
        import torch, llm_claims_lab.positional as P
        P.LearnedPositionalEmbedding.forward = lambda self, seq_len: torch.zeros_like(self.weight[:seq_len])
        sin = P.SinusoidalPositionalEncoding.forward
        P.SinusoidalPositionalEncoding.forward = lambda self, seq_len: torch.zeros_like(sin(self, seq_len))
        """, ("learned", "sinusoidal"), [MAIN + "test_learned", MAIN + "test_sinusoidal", MECHANISMS + "test_sin_bilinear_not_gap_only",
              MECHANISMS + "test_attends_right_neighbour[learned]", MECHANISMS + "test_attends_right_neighbour[sinusoidal]"],
        {**dict.fromkeys({"extrap.learned[len20]", "extrap.learned[len40]", "attn.attends_right_neighbour[learned]"},
                         JUDGED),
         # a sinusoidal table of zeros is not the fixed sinusoid: the run's check stops its rows
         **dict.fromkeys({"extrap.sinusoidal[len20]", "extrap.sinusoidal[len40]", "extrap.sin_bilinear_not_gap_only",
                          "attn.attends_right_neighbour[sinusoidal]"}, ERROR)}),
    # a learned table whose positions past the training length wrap onto the trained rows (p → p mod 20): the new
    # positions are no longer untrained. The post's length-40 row (±5 pp around 52.4 % over all positions) still
    # passes it; its new-position companion (≤ 12 % on positions 19–38) is what catches it
    "learned_rows_wrap": ("""
        import torch, llm_claims_lab.positional as P
        P.LearnedPositionalEmbedding.forward = lambda self, seq_len: self.weight[torch.arange(seq_len) % 20]
        """, ("learned",), [MAIN + "test_learned", MAIN + "test_new_positions_near_chance"],
        dict.fromkeys({"extrap.new_positions_near_chance[learned]"}, JUDGED)),
    # accuracy 'over all positions' scored on the positions seen in training only (the new positions sliced off):
    # sinusoidal PE seems to keep its accuracy at 40 (and the run trained at 40 at 80), so post B's 'not solved
    # automatically' and 'only when trained long' read as false. It edits
    # scoring, after the cache: the rows read the run's own steps-sweep entries, and nothing is trained
    "all_positions_scored_as_seen": (textwrap.dedent("""
        from llm_claims_lab.extrapolation import Run
        positions = Run._positions
        Run._positions = lambda self, part, L: positions(self, "seen" if part == "acc" else part, L)
        """) + WITH_SWEEP, (), [POST_B + "test_sin_long_context_not_automatic", MAIN + "test_sinusoidal[len40]",
                                LENGTHS + "test_long_context_from_long_training[at_80]"],
        dict.fromkeys({"extrap.sin_long_context_not_automatic", "extrap.sinusoidal[len40]",
         "extrap.long_context_from_long_training[at_80]"}, JUDGED)),
    # ALiBi built without the mirrored mask that gives it its direction: the lab builds the symmetric control's
    # model (same heads and slopes, no mask) where ALiBi is asked for. No code is edited, so the weights are the
    # control's own entry, shared with the run.
    "alibi_without_mask": ("""
        import dataclasses
        from llm_claims_lab.extrapolation import ExtrapolationLab
        fetch = ExtrapolationLab._fetch
        def without_mask(self, plan, checkpoints):
            plan = [(dataclasses.replace(c, scheme="alibi_symmetric") if c.scheme == "alibi" else c, seed)
                    for c, seed in plan]
            return fetch(self, plan, checkpoints)
        ExtrapolationLab._fetch = without_mask
        """, (), [BEYOND + "test_alibi[len20]"], dict.fromkeys({"extrap.alibi[len20]"}, JUDGED)),
    # the sinusoidal scheme built as a learned table (a wrong entry in the scheme map): it extrapolates as the learned
    # table does (52.49 % at 40), so extrap.sinusoidal[len40] and post B's sinusoidal rows held on it. The run's check
    # (llm_claims_lab.extrapolation.check_run: a parameter-free scheme has no weights) errors every row reading it
    "sinusoidal_trains_a_table": ("""
        import llm_claims_lab.extrapolation.model as M
        scheme = M.positional_scheme
        M.positional_scheme = lambda c: (M.LearnedPositionalEmbedding(c.max_len, c.d_model)
                                         if c.base_scheme == "sinusoidal" else scheme(c))
        """, ("sinusoidal",), [MAIN + "test_sinusoidal", POST_B + "test_sin_long_context_not_automatic"],
        dict.fromkeys({"extrap.sinusoidal[len20]", "extrap.sinusoidal[len40]", "extrap.sin_long_context_not_automatic"}, ERROR)),
    # the optimiser never steps (opt.step() dropped): nothing learns, so raw integers 'break training' by default.
    # The row's positive control (sinusoidal PE, same code, must learn the task) errors it
    "optimizer_never_steps": ("""
        import torch
        torch.optim.Adam.step = lambda self, closure=None: None
        """, ("sinusoidal", "raw_integer"), [MAIN + "test_raw_integer_breaks_training"],
        dict.fromkeys({"extrap.raw_integer_breaks_training"}, ERROR)),
    # the run without positions built as sinusoidal PE (a wrong entry in the scheme map, parameter-free, so the
    # parameter check passes it): 'PE vs none' would compare PE with itself. The run's check (NoPE's table is zeros)
    # errors both rows; the suite's steps-sweep runs serve the schemes with positions
    "nope_sees_positions": (textwrap.dedent("""
        import llm_claims_lab.extrapolation.model as M
        scheme = M.positional_scheme
        M.positional_scheme = lambda c: (M.SinusoidalPositionalEncoding(c.d_model) if c.base_scheme == "nope"
                                         else scheme(c))
        """) + WITH_SWEEP, ("nope",), [POST_B + "test_pe_vs_no_position"],
        dict.fromkeys({"extrap.pe_vs_no_position[sinusoidal]", "extrap.pe_vs_no_position[learned]"}, ERROR)),
    # NoPE trained with ALiBi's mirrored mask (keys j ≥ i): its table stays zero, so the run's check passes it, but
    # the mask leaks order (Kazemnejad et al. 2023): 23.8 % at 20 against the 12.0 % order-blind ceiling. The rows'
    # control (NoPE may not pass the ceiling) fails both
    "nope_mask_leaks_order": (textwrap.dedent("""
        import torch
        from llm_claims_lab.extrapolation import ExtrapolationModel
        from llm_claims_lab.positional import relative_offsets
        mask = ExtrapolationModel._mask
        def leaky(self, T, device):
            if self.config.scheme != "nope":
                return mask(self, T, device)
            offset = relative_offsets(T, T, device=device)
            return torch.zeros(1, T, T, device=device).masked_fill(offset < 0, float("-inf"))
        ExtrapolationModel._mask = leaky
        """) + WITH_SWEEP, ("nope",), [POST_B + "test_pe_vs_no_position"],
        dict.fromkeys({"extrap.pe_vs_no_position[sinusoidal]", "extrap.pe_vs_no_position[learned]"}, ERROR)),
    # the long-context run not trained long (its configuration keeps the protocol's length 20, positions to 80): the
    # sentence's 'trained at 40' would read a run trained at 20 (planted before the claims module is imported, so the
    # row then compares the two runs at 20), and at_40 finds no gain
    "long_run_trained_short": (textwrap.dedent("""
        import llm_claims_lab.extrapolation as E
        E.LONG_CONTEXT = E.ExtrapolationConfig(train_len=20, max_len=80)
        """) + WITH_SWEEP, (), [LENGTHS + "test_long_context_from_long_training[at_40]"],
        dict.fromkeys({"extrap.long_context_from_long_training[at_40]"}, JUDGED)),
    # the mixed-length run trained at the fixed length (its flag not honoured by the training loop): 'the length
    # distribution affects it' would compare the protocol's run with itself
    "mixed_lengths_ignored": (textwrap.dedent("""
        from llm_claims_lab.extrapolation import ExtrapolationConfig
        ExtrapolationConfig.mixed_lengths = property(lambda self: False)
        """) + WITH_SWEEP, ("sinusoidal_mixed",), [LENGTHS + "test_length_distribution_matters"],
        dict.fromkeys({"extrap.length_distribution_matters"}, JUDGED)),
    # the raw numbers scaled past float32's range: the first step's loss is NaN and so is every weight after it;
    # argmax over NaN logits still yields an 'accuracy' near chance, a false 'breaks'. The run's check errors it
    "raw_integer_nan": ("""
        import llm_claims_lab.positional as P
        raw = P.RawIntegerPositions.forward
        P.RawIntegerPositions.forward = lambda self, seq_len: raw(self, seq_len) * 1e38
        """, ("raw_integer",), [MAIN + "test_raw_integer_breaks_training"], dict.fromkeys({"extrap.raw_integer_breaks_training"}, ERROR)),
    # the loss not told which query positions to leave out: the rule is trained there too, and the post's row
    # holds whatever the coordinates. Fixed random coordinates then carry it as well: the control stops the row
    # (the single-position layout only: the post's row and its control, two runs retrained)
    "held_out_trained": ("""
        import torch.nn.functional as F
        from llm_claims_lab.extrapolation import ExtrapolationModel
        def every_position(self, x):
            return F.cross_entropy(self(x)[:, :-1].reshape(-1, 50), x[:, 1:].reshape(-1))
        ExtrapolationModel.loss = every_position
        """, ("sinusoidal_spread", "random_fixed_spread"), [RULE + "test_sin_relative_rule_carries[sinusoidal]",
                                                           RULE + "test_sin_relative_rule_carries[random_fixed]"],
        {k: v for k, v in CARRIES.items() if "block" not in k}),
    # the evaluation reads the trained positions where it should read the held-out ones (nothing retrained)
    "held_reads_kept": (textwrap.dedent("""
        from llm_claims_lab.extrapolation import Run
        positions = Run._positions
        Run._positions = lambda self, part, L: positions(self, "kept" if part == "held" else part, L)
        """) + WITH_SWEEP, (), [RULE + "test_sin_relative_rule_carries"], CARRIES),
    # the masked footing trained without its mask: the model is the mask-free one, so the footing's verdict would
    # copy the mask-free row's, as expected. The row's own guard (attention left of the query must be 0) errors it
    "footing_mask_dropped": ("""
        from llm_claims_lab.extrapolation import ExtrapolationModel
        ExtrapolationModel._mask = lambda self, T, device: None
        """, ("relative_masked",), [FOOTING + "test_masked_footing[relative_masked]"],
        dict.fromkeys({"extrap.masked_footing[relative_masked]"}, ERROR)),
}


@pytest.mark.slow
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_trained_claims_fail_on_broken_implementation(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                      weight_cache, mutation: str) -> None:
    patch, schemes, tests, broken_rows = MUTATIONS[mutation]  # broken_rows: {row id: ERROR or JUDGED}
    patch = textwrap.dedent(patch)
    result, rows = run_with_bug(pytester, monkeypatch, FILES, NO_SWEEP + patch
                                + (f"\nplant({patch!r}, {schemes!r})\n" if schemes else ""),
                                f"--claims-cache-dir={weight_cache.root}", *tests)
    assert_breaks(result, rows, broken_rows)


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutation_names_existing_rows(mutation: str) -> None:
    """Each test a mutation runs is defined in a copied module (fast: a moved row fails here, not after training)."""
    for node in MUTATIONS[mutation][2]:
        module, function = node.split("::")
        assert module in FILES, f"{node}: {module} is not among the copied modules {FILES}"
        source = (ROOT / "claims" / module).read_text(encoding="utf-8")
        assert f"def {function.split('[')[0]}(" in source, f"{node}: no such test in claims/{module}"
