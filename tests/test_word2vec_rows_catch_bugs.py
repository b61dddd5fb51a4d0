"""The word2vec rows that state a property of their measure fail when it breaks (mutation tests, as
``test_word2vec_controls_catch_bugs.py`` does for the controls): the claim rows themselves, not only a unit test.

- Spearman's ρ replaced by Pearson's r, or its ties ranked in order instead of given their mean rank
  (``llm_claims_lab/word2vec/relatedness.py``): ``w2v.ws353_controls[rank_statistic]`` pins the statistic every
  WS-353 row computes.
- The exact (Clopper–Pearson) interval of a share replaced by the Wald interval (``llm_claims_lab/core/stats.py``):
  it is [0, 0] at 0 correct for any count, so ``w2v.analogy_ko``'s too-small sections (syn2_tense, syn3_voice,
  syn4_form) would be judged and read "holds" but for their positive control, which their 2–30 items cannot
  decide (they error); ``w2v.analogy_items_needed`` checks the count the skip rule uses against the exact
  interval's closed form.
- The lab serving the untrained table, or the shuffled-corpus model, as the trained one: the rows that say the
  corpus is too small for analogies, and the loss row, hold on either without a positive control; theirs error them.
- A broken BPE or Kiwi pipeline (a lookup one row off, a table no step reached, BPE words looked up without their
  leading space): ``w2v.tokenizer_choice`` and
  ``w2v.bpe_neighbours`` held on it in the post's favour; their pipeline checks and the Kiwi row's positive control
  stop them.
- The ordered sampler of ``w2v.centre_order`` drawing at random after all, its recency stretches swapped, or the
  random table served as the ordered one: its run checks stop the row.
- Paragraph co-occurrence read one column off (each listed word scored as the next vocabulary row,
  ``llm_claims_lab/word2vec/topical.py``): the trained lists' topicality is gone, and ``w2v.semantic_neighbours``'s
  post rows must see it.

Each runs the claim modules a bug concerns in a subprocess on this run's weight cache, after this process has loaded
(or trained) the skip-gram models they read, and checks which rows turn "not as expected" and which verdicts the bug
produces elsewhere. Nothing is trained that the run does not train (the rows read the run's own models).
"""

from __future__ import annotations


import pytest
from planted import ERROR, JUDGED, broken_as, run_with_bug

from llm_claims_lab.word2vec.segmenters import SegmenterUnavailable

WS353 = ["test_word2vec.py", "test_word2vec_controls.py"]
TOO_FEW = ("syn2_tense", "syn3_voice", "syn4_form")  # sections of fewer covered items than a decision needs

# name -> (claim modules, -k selection, planted bug, rows not as expected, {row: the verdict the bug gives it})
MUTATIONS = {
    "spearman_is_pearson": (WS353, "ws353", """
        import llm_claims_lab.word2vec.relatedness as R
        from scipy import stats
        R.spearman = lambda x, y: stats.pearsonr(x, y).statistic
        """, {"w2v.ws353_controls[rank_statistic]"}, {}),
    "spearman_ties_in_order": (WS353, "ws353", """
        import numpy as np
        import llm_claims_lab.word2vec.relatedness as R
        from scipy import stats
        R.spearman = lambda x, y: np.corrcoef(stats.rankdata(x, method="ordinal"),
                                              stats.rankdata(y, method="ordinal"))[0, 1]
        """, {"w2v.ws353_controls[rank_statistic]"}, {}),
    "interval_wald": (WS353, "analogy", """
        import math
        import llm_claims_lab.core.stats as S
        from scipy.stats import norm
        def wald(hits, n, *, level):
            share = hits / n
            half = norm.ppf(0.5 + level / 2) * math.sqrt(share * (1 - share) / n)
            return max(0.0, share - half), min(1.0, share + half)
        S.proportion_interval = wald
        """, {"w2v.analogy_items_needed", *(f"w2v.analogy_ko[{s}]" for s in TOO_FEW)},
        {f"w2v.analogy_ko[{s}]": "error" for s in TOO_FEW}),
    # the lab serves the seed's untrained table as the trained one (a model-kind mix-up): no analogy is answered, as
    # on a corpus too small, so every 'too little data' row held on it. Their positive control (the trained table
    # ranks the answers better than the untrained one) errors them
    # w2v.bpe_neighbours, whose stems side it is, must then not find the stems' lists more topical than the BPE's
    "trained_is_untrained": (["test_word2vec.py", "test_word2vec_small_corpus.py", "test_word2vec_tokenizers.py"],
                             "analogy_ko or small_corpus_no_analogy or bpe_neighbours", """
        import llm_claims_lab.word2vec.lab as L
        model = L.Word2VecLab._model
        L.Word2VecLab._model = lambda self, kind, seed: model(self, "untrained" if kind == "trained" else kind, seed)
        """, {"w2v.small_corpus_no_analogy", "w2v.bpe_neighbours", *(f"w2v.analogy_ko[sem{i}_{name}]" for i, name in enumerate(
            ("capital-conturies", "male-female", "name-nationality", "country-language", "misc"), start=1))},
        {"w2v.small_corpus_no_analogy": "error", **{f"w2v.analogy_ko[sem{i}_{name}]": "error" for i, name in enumerate(
            ("capital-conturies", "male-female", "name-nationality", "country-language", "misc"), start=1)}}),
    # the lab serves the shuffled-corpus model as the trained one: its loss falls too (to 1.06), so the post's
    # 'the loss moves downward' held on it. The row's positive control (below the shuffled model's loss) errors it
    "trained_is_shuffled": (["test_word2vec_training.py"], "loss_toward_negative", """
        import llm_claims_lab.word2vec.lab as L
        model = L.Word2VecLab._model
        L.Word2VecLab._model = lambda self, kind, seed: model(self, "shuffled" if kind == "trained" else kind, seed)
        """, {"w2v.loss_toward_negative[decreases]"}, {"w2v.loss_toward_negative[decreases]": "error",
                                                      "w2v.loss_toward_negative[below_zero]": "refuted"}),
    "npmi_next_column": (["test_word2vec_neighbours.py"], "semantic_neighbours", """
        import llm_claims_lab.word2vec.topical as T
        npmi = T.ParagraphIncidence.npmi
        T.ParagraphIncidence.npmi = lambda self, query, words: npmi(self, query,
                                                                    [(w + 1) % len(self.frequency) for w in words])
        """, {"w2v.semantic_neighbours[trained_vs_untrained]", "w2v.semantic_neighbours[trained_vs_shuffled]"}, {}),
}

# A broken BPE or Kiwi pipeline lowers that side's ρ and topicality, so w2v.tokenizer_choice (Kiwi 'not much better',
# stems better than BPE) and w2v.bpe_neighbours held on it: their pipeline checks, and the Kiwi row's positive control
# (its neighbours beat its untrained table's), stop them. The lookup reserves row 0 (for padding, as many
# vocabularies do) and the stream does not, so every word reads the next row; or the table took no step (its initial
# draw served as the trained one). Nothing is retrained
SEGMENTED_ROWS = {"kiwi": ("tokenizer_choice and kiwi", {"w2v.tokenizer_choice[kiwi]"}),
                  "gpt2_bpe": ("bpe_neighbours or (tokenizer_choice and gpt2_bpe)",
                               {"w2v.tokenizer_choice[gpt2_bpe]", "w2v.bpe_neighbours"})}
for _name, (_selection, _rows) in SEGMENTED_ROWS.items():
    MUTATIONS[f"{_name}_lookup_shifted"] = (["test_word2vec_tokenizers.py"], _selection, f"""
        import llm_claims_lab.word2vec.segmenters as S
        init = S.SegmentedVocabulary.__init__
        def shifted(self, stream, segment, name):
            init(self, stream, segment, name)
            if name == {_name!r}:
                self.rows = {{t: i + 1 for t, i in self.rows.items() if i + 1 < len(stream.vocab)}}
        S.SegmentedVocabulary.__init__ = shifted
        """, _rows, dict.fromkeys(_rows, "error"))
    MUTATIONS[f"{_name}_table_untrained"] = (["test_word2vec_tokenizers.py"], _selection, f"""
        import llm_claims_lab.word2vec.lab as L
        model = L.Word2VecLab.segmented_model
        L.Word2VecLab.segmented_model = lambda self, name, kind="trained": model(
            self, name, "untrained" if name == {_name!r} else kind)
        """, _rows, dict.fromkeys(_rows, "error"))
# words looked up without the leading space GPT-2's BPE gives a word mid-sentence (other tokens than the table learned
# for them): the running-text check stops the BPE rows
MUTATIONS["gpt2_bpe_lookup_without_space"] = (["test_word2vec_tokenizers.py"], SEGMENTED_ROWS["gpt2_bpe"][0], """
    import llm_claims_lab.word2vec.segmenters as S
    S.word_tokens = lambda segment, name, word: segment([word])[0]
    """, SEGMENTED_ROWS["gpt2_bpe"][1], dict.fromkeys(SEGMENTED_ROWS["gpt2_bpe"][1], "error"))

# w2v.centre_order: an ordered sampler that draws at random after all, or recency stretches swapped (the oldest read
# as the last), or the lab serving the random table as the ordered one (the row then reads +0.0 SD, inconclusive, which
# fails no run): its run checks stop the row
CENTRE_ORDER = (["test_word2vec_centre_order.py"], "centre_order")
MUTATIONS["centre_order_sampler_random"] = (*CENTRE_ORDER, """
    import dataclasses
    import llm_claims_lab.word2vec.skipgram as S
    sample = S.sample_batch
    S.sample_batch = lambda ids, vocab_size, cfg, device, step=1: sample(
        ids, vocab_size, dataclasses.replace(cfg, centre_order="random"), device, step)
    """, {"w2v.centre_order"}, {"w2v.centre_order": "error"})
MUTATIONS["centre_order_stretches_swapped"] = (*CENTRE_ORDER, """
    import llm_claims_lab.word2vec.centre_order as C
    stretches = C.stretches
    def swapped(n_tokens, cfg):
        found = stretches(n_tokens, cfg)
        return {"last": found["oldest"], "oldest": found["last"]}
    C.stretches = swapped
    """, {"w2v.centre_order"}, {"w2v.centre_order": "error"})
MUTATIONS["centre_order_sequential_is_random"] = (*CENTRE_ORDER, """
    import llm_claims_lab.word2vec.lab as L
    model = L.Word2VecLab._model
    L.Word2VecLab._model = lambda self, kind, seed: model(self, "trained" if kind == "sequential" else kind, seed)
    """, {"w2v.centre_order"}, {"w2v.centre_order": "error"})


@pytest.mark.slow
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_word2vec_rows_fail_on_broken_implementation(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                     weight_cache, word2vec, mutation: str) -> None:
    word2vec.model("trained"), word2vec.model("shuffled")  # in the cache before the subprocess reads it
    if mutation.startswith("centre_order"):
        word2vec.model("sequential")  # w2v.centre_order's ordered table, trained once for the run
    if mutation == "trained_is_untrained":
        word2vec.segmented_model("gpt2_bpe")  # w2v.bpe_neighbours's BPE table, trained once for the run
    segmenter = next((name for name in SEGMENTED_ROWS if mutation.startswith(name)), None)
    if segmenter:
        try:
            word2vec.segmented_model(segmenter)  # the segmented rows' table, trained once for the run
        except SegmenterUnavailable as exc:
            pytest.skip(str(exc))
    files, selection, patch, broken_rows, verdicts = MUTATIONS[mutation]
    result, rows = run_with_bug(pytester, monkeypatch, files, patch, f"--claims-cache-dir={weight_cache.root}",
                                "-k", selection)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-3000:]
    assert broken_as(rows) == {rid: ERROR if verdicts.get(rid) == "error" else JUDGED for rid in broken_rows}
    assert {rid: rows[rid]["verdict"] for rid in verdicts} == verdicts
