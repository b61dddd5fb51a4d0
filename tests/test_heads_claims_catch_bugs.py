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

import json
import shutil
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNTRAINED = """
    from llm_claims_lab.heads.lab import HeadsLab, initial_model
    HeadsLab.models = lambda self, config: [initial_model(config, s).to(self.device).eval() for s in self.seeds]
    """


def test_heads_claims_fail_on_untrained_models(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    shutil.copy(ROOT / "claims" / "test_heads.py", pytester.path / "test_heads.py")
    conftest = (ROOT / "conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(conftest + "\n# --- planted bug ---\n" + textwrap.dedent(UNTRAINED))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    rows = {r["id"]: r for r in json.loads((pytester.path / "reports" / "results.json").read_text("utf-8"))["claims"]}
    broken = {rid for rid, r in rows.items() if r["as_expected"] is False}
    expected = {"heads.positional_vs_content[positional_head]", "heads.positional_vs_content[content_head]",
                "heads.positional_vs_content[control_both_positional]", "heads.subspaces[trained]",
                "heads.subspaces[pushed_apart]"}
    assert broken == expected
    assert {rows[f"heads.add_vs_concat[{c}]"]["verdict"] for c in ("concat_half", "concat_full")} == {"inconclusive"}
