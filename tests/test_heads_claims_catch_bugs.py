"""The heads claims fail on a broken implementation (a mutation test, as ``test_claims_catch_bugs.py`` does for the
deterministic claims): a lab that serves every model untrained — the training step skipped — must not pass as
heads that specialise, tables that training put apart, or a concatenation that beats adding.

``heads.subspaces[trained]`` alone (≥ 60°) would be a weak guard: untrained tables already give 49–63°; the
``pushed_apart`` row (trained minus the same seed's initial tables) is what must fail here. Rows whose expected
verdict an untrained model also gives stay as expected: the content-head control (no content head, refuted as
designed). The add-vs-concatenate rows do not catch it: with the calibrated seed SD (4.7 and 5.0 pp over 40 seeds)
a mean over 10 seeds is inconclusive near the 2 pp bound either way.
"""

from __future__ import annotations


import pytest
from planted import assert_breaks, run_with_bug

UNTRAINED = """
    from llm_claims_lab.heads.lab import HeadsLab, initial_model
    HeadsLab.models = lambda self, config: [initial_model(config, s).to(self.device).eval() for s in self.seeds]
    """


def test_heads_claims_fail_on_untrained_models(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result, rows = run_with_bug(pytester, monkeypatch, ["test_heads.py"], UNTRAINED)
    expected = {"heads.positional_vs_content[positional_head]", "heads.positional_vs_content[content_head]",
                "heads.positional_vs_content[control_both_positional]", "heads.subspaces[trained]",
                "heads.subspaces[pushed_apart]"}
    assert_breaks(result, rows, expected)
    assert {rows[f"heads.add_vs_concat[{c}]"]["verdict"] for c in ("concat_half", "concat_full")} == {"inconclusive"}
