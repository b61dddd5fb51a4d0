"""The word2vec controls fail on a broken implementation (mutation tests, as ``test_claims_catch_bugs.py`` does for
the deterministic claims): a lab that serves the trained table where the untrained ones are asked for, one that
draws every untrained table from one seed, and one that serves the trained model as the shuffled baseline (the
shuffle flag dropped). Each runs ``claims/test_word2vec_controls.py`` in a subprocess on this run's weight cache, after this
process has loaded (or trained) the two skip-gram models, and checks which rows turn "not as expected" (a null with
no spread, or a difference of a table with itself, is an error row: its SD is 0). The trained − untrained row is not
caught by the two null bugs (it is inconclusive at seed 42 either way, +2.8 SD): untrained_null is what guards the
null distribution."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MUTATIONS = {
    "untrained_is_trained": ("""
        from llm_claims_lab.word2vec import Word2VecLab
        Word2VecLab.untrained_tables = lambda self, count: [self.model("trained").w_in] * count
        """, {"w2v.ws353_controls[untrained_null]"}),
    # the null tables all drawn from one seed (the seed not advanced): no spread, so no null distribution
    "untrained_one_seed": ("""
        from llm_claims_lab.word2vec import Word2VecLab
        tables = Word2VecLab.untrained_tables
        Word2VecLab.untrained_tables = lambda self, count: tables(self, 1) * count
        """, {"w2v.ws353_controls[untrained_null]"}),
    "shuffled_is_trained": ("""
        from llm_claims_lab.word2vec import Word2VecLab
        load = Word2VecLab._load
        Word2VecLab._load = lambda self, kind, config: load(self, "trained" if kind == "shuffled" else kind, config)
        """, {"w2v.ws353_controls[trained_minus_shuffled]"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_word2vec_controls_fail_on_broken_implementation(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                         weight_cache, word2vec, mutation: str) -> None:
    word2vec.model("trained"), word2vec.model("shuffled")  # in the cache before the subprocess reads it
    patch, broken_rows = MUTATIONS[mutation]
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    for name in ("test_word2vec_controls.py", "word2vec_common.py"):
        shutil.copy(ROOT / "claims" / name, pytester.path / name)
    conftest = (ROOT / "conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(conftest + "\n# --- planted bug ---\n" + textwrap.dedent(patch))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--claims-cache-dir={weight_cache.root}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    rows = json.loads((pytester.path / "reports" / "results.json").read_text(encoding="utf-8"))["claims"]
    assert {r["id"] for r in rows if r["as_expected"] is False} == broken_rows
