"""Which tokens the skip-gram loop should learn on Korean: stems, GPT-2's byte pairs, or morphemes.

Post A, exp. 1 (1), its remark on tokenisation: 'tiktoken과 같은 byte pair를 이용해 버리면, 한국어 같은 경우, 이런
word2vec이 잘 보이지 않습니다 … 제대로 하려면 형태소 분석기(kiwipiepy, MeCab 계열)를 쓰는 것이 정답이긴 하나, … 단순한 주변
단어 맞히기 라는 목적 만으로도 훌륭하게 동작하는 것을 볼 수 있습니다': byte pairs do poorly, and the particle stripper,
though an analyser is the proper tool, works splendidly. The same
loop (post A's protocol, seed, steps and vocabulary cut) is trained on the same text cut three ways
(``llm_claims_lab/word2vec/segmenters.py``): post A's particle-stripped stems, GPT-2's byte-level BPE and Kiwi's content
morphemes (particles and endings dropped, as the stripper drops particles; the claim's deviation says why). Each
table is judged as ``w2v.ws353`` judges the stems: Spearman ρ between cosine and the human score of the Korean
WS-353, here on the pairs that both compared tables cover, so the two ρ are over the same pairs. A word made of
several tokens is the mean of their rows (a byte-level BPE splits a Hangul syllable into up to three byte
tokens; Kiwi splits 대한민국의 into 대한민국 + 의). The Kiwi row holds when Kiwi is not much better, so a broken Kiwi
pipeline would hold it: its positive control asks that the Kiwi table learned (:func:`_require_learned`).
"""

import pytest
import torch

from claims.scored_items import pair_samples
from llm_claims_lab.core.analogy import WordList, cosine, listing
from llm_claims_harness.declare import DECISION_SIGMAS, Case, Quote, at_least, at_most, claim
from llm_claims_lab.core.stats import items_to_decide
from llm_claims_lab.word2vec.relatedness import rho_difference_items
from llm_claims_lab.word2vec import corpus
from llm_claims_lab.word2vec.segmenters import SegmenterUnavailable, word_tokens
from claims.word2vec_common import (ALPHA, KERNELS_DEVIATION, POST_NEIGHBOURS, compare_lists, neighbours, vocabulary,
                                    ws353_vocabulary)

SOURCE = "Post A, exp. 1 (1), the remark on tokenisation ('tiktoken과 같은 byte pair를 이용해 버리면')"
REMARK = ("'tiktoken과 같은 byte pair를 이용해 버리면, 한국어 같은 경우, 이런 word2vec이 잘 보이지 않습니다'")
QUERIES = ("물리학", "음악", "조선", "전쟁")  # post A's neighbour queries, shown for each table
PARAGRAPHS_CHECKED = 20  # the stream round trip's paragraphs: a few thousand tokens, segmented in well under a second
# the share of words whose looked-up tokens running text must give them: all for byte pairs; Kiwi analyses a word in
# context, which can differ from its analysis alone (a few per cent of the WS-353 words), while a lookup by another
# convention misses most (GPT-2's BPE without its leading space: none found)
IN_RUNNING_TEXT = {"gpt2_bpe": 1.0, "kiwi": 0.9}
NOT_MUCH_BETTER = 0.1  # Cohen's (1988) 'small' correlation: a gain in ρ below it is no gain worth the name


def _neighbours(table: torch.Tensor, vocab, word: str) -> str:
    """The 6 vocabulary entries nearest to ``word``'s vector (its own rows dropped)."""
    rows = vocab.ids(word)
    if not rows:
        return "not covered"
    scores = cosine(table.double(), table[rows].double().mean(0))  # [V]
    scores[rows] = -torch.inf
    top = scores.topk(6)
    return listing([(vocab.token(i), s) for i, s in zip(top.indices.tolist(), top.values.tolist())])


CASES = {
    "gpt2_bpe": Case(
        statement="Beyond the post (a benchmark it never names): GPT-2's byte-level BPE instead of stems, the "
                  "table tracks human relatedness worse, ρ(stems) − ρ(BPE) > 0 on the WS-353 pairs both cover. "
                  "The post's sentence, on the neighbours it shows, is w2v.bpe_neighbours.",
        kind="beyond",
        expect_source=f"post A's sentence, {REMARK}, carried to a relatedness benchmark (Park et al. 2018 evaluate "
                      "Korean subword vectors on this set)"),
    "kiwi": Case(
        statement="Kiwi's content morphemes instead of stems (particles, endings, copula, suffixes and punctuation "
                  "dropped, as the stripper drops particles): an analyser is the proper tool, but for this purpose "
                  "the stripper already works well, so Kiwi's table does not track human relatedness better by an "
                  f"amount that matters: ρ(Kiwi) − ρ(stems) < {NOT_MUCH_BETTER} (Cohen's 'small' correlation) on "
                  "the WS-353 pairs both cover. Positive control (a broken Kiwi pipeline would hold): the Kiwi "
                  "table's neighbours of post A's queries are more topical than its untrained table's "
                  "(w2v.semantic_neighbours's judge), else the row errors.",
        tolerance=at_most(NOT_MUCH_BETTER, reason="the sentence concedes that an analyser is the right answer and says the "
                                           "simple stripper works splendidly for our purpose: a non-inferiority "
                                           "reading, the analyser's gain smaller than the smallest correlation "
                                           "worth the name (Cohen 1988: 0.1), as w2v.ws353_controls's equivalence "
                                           "bound", strict=True),
        expect_source="post A's sentence: '제대로 하려면 형태소 분석기 … 를 쓰는 것이 정답이긴 하나, … 이 단순한 주변 단어 "
                      "맞히기 라는 목적 만으로도 훌륭하게 동작하는 것을 볼 수 있습니다' (an analyser is the proper tool, but "
                      "the particle stripper works splendidly for this purpose)",
        quote=Quote("제대로 하려면 형태소 분석기(kiwipiepy, MeCab 계열)를 쓰는 것이 정답이긴 하나, 우리의 목적인 바로 이 "
                    "단순한 주변 단어 맞히기 라는 목적 만으로도 훌륭하게 동작하는 것을 볼 수 있습니다.",
                    "To do it properly, a morphological analyser (kiwipiepy, the MeCab family) is the right answer, "
                    "but we can see that it works splendidly with just our purpose, this simple guessing of the "
                    "surrounding words.")),
}


@claim(
    id="w2v.tokenizer_choice",
    post="A", section="exp1",
    source=SOURCE,
    statement="Post A's skip-gram protocol on the same Korean Wikipedia text cut three ways; each table is "
              "judged by Spearman ρ against the Korean WS-353's human scores (as w2v.ws353), the two compared "
              "tables on the same pairs; a word of several tokens is the mean of their rows. Noise: the paired "
              "bootstrap SE of the difference over pairs (one training seed).",
    kind="post", unit="Δ Spearman ρ",
    version=3,
    version_note="v3 (issue 43): gpt2_bpe is kind beyond: post A's sentence says the word2vec effect (its neighbour "
                 "lists, the clusters it showed) does not show with byte pairs, which w2v.bpe_neighbours judges with "
                 "the suite's neighbour judge; a WS-353 Δρ over 166 pairs, which would need ~5,000 to decide, tests a "
                 "benchmark the post never names; measure and tolerance unchanged (it was inconclusive). "
                 "v2 (issue 30): the kiwi row quoted the sentence's concessive clause only ('형태소 분석기 … 정답이긴 "
                 "하나, …') and tested it (ρ(Kiwi) − ρ(stems) > 0); it now quotes the whole sentence and tests its "
                 "main clause's reading, that the stripper suffices (ρ(Kiwi) − ρ(stems) < 0.1); both rows say how many "
                 "pairs would decide them",
    tolerance=at_least(0.0, reason="the post states a direction (byte pairs work poorly), not a size: any difference is "
                            "that claim, and the 3-SD rule decides only a clear one", strict=True),
    cases=CASES,
    deviation=KERNELS_DEVIATION + " Beyond the post's protocol only in the token stream: the same loop, "
              "seed, steps and vocabulary cut "
              "(10,000 most frequent, count ≥ 5) on BPE tokens or morphemes. Words are looked up as written: "
              "BPE with the leading space of running text, Kiwi by analysing the word alone. The byte pairs are "
              "GPT-2's (tiktoken's 'gpt2' encoding, offline); tiktoken's later encodings (cl100k_base, "
              "o200k_base) hold more Korean merges but download their files on first use and are not tested. "
              "Kiwi's particles, endings, copula, suffixes and punctuation are dropped, as the stripper drops "
              "particles: a first run that kept them gave ρ(Kiwi) − ρ(stems) = −0.14 (inconclusive), its neighbour "
              "lists full of particles and endings, a comparison of unlike token streams.",
)
def test_tokenizer_choice(verify, word2vec, ws353, case, seed):
    segmenter = case
    ws353_vocabulary(word2vec, ws353)  # the stems cover enough pairs, checked before segmenting or training
    try:
        stream, vocab = word2vec.segmented(segmenter)
    except SegmenterUnavailable as exc:
        pytest.skip(str(exc))
    own = word2vec.segmented_model(segmenter).w_in  # first: under xdist another worker may be training the stems'
    stems = WordList(word2vec.corpus.vocab, name="the skip-gram vocabulary", hint="particle-stripped stems")
    tables = {"stems": (word2vec.model("trained").w_in, stems), segmenter: (own, vocab)}
    first, second = ("stems", segmenter) if segmenter == "gpt2_bpe" else (segmenter, "stems")
    result, log = rho_difference_items(tables, ws353, first, second, seed=seed)  # log: one record per pair
    details = {"pairs both cover": f"{result['n']} of {len(ws353)}", "ρ on those pairs": result["rho"],
               "pairs each covers alone": result["own coverage"],
               "95 % interval (bootstrap BCa)": result["interval"],
               f"{segmenter} vocabulary": f"{len(stream.vocab):,} tokens; {stream.ids.numel():,} of "
                                          f"{stream.tokens:,} corpus tokens kept",
               "neighbours": {q: {k: _neighbours(t, v, q) for k, (t, v) in tables.items()} for q in QUERIES}}
    _require_pipeline(word2vec, segmenter, stream, vocab, sorted({w for pair in ws353 for w in (pair.first, pair.second)}), details)
    if segmenter == "kiwi":
        _require_learned(word2vec, segmenter, vocab, seed, details)
    bound = NOT_MUCH_BETTER if segmenter == "kiwi" else 0.0
    needed = items_to_decide(result["n"], result["se"], abs(result["delta"] - bound), sigmas=DECISION_SIGMAS)
    details["to decide"] = (f"at this Δρ, about {needed:,} pairs both cover (the SE over pairs shrinks as 1/√pairs); "
                            f"WS-353 has {len(ws353)}" if needed else "no number of pairs: Δρ sits on its bound")
    verify(result["delta"], noise=result["se"], details=details, samples=pair_samples(log))


BPE_QUOTE = Quote("조금 아쉬운 부분은 tiktoken과 같은 byte pair를 이용해 버리면, 한국어 같은 경우, 이런 word2vec이 잘 "
                  "보이지 않습니다.",
                  "A small regret: with byte pairs such as tiktoken's, in the case of Korean, this word2vec effect does "
                  "not show well.")


def _composed_lists(tables: dict[str, torch.Tensor], segmented, words: list[str]) -> dict[str, dict[str, list[str]]]:
    """For each table of ``tables`` ({name: [V_seg, D]}, rows of the ``segmented`` vocabulary) and each of post A's
    queries, the six words of ``words`` (the stems' vocabulary) nearest to it, each word the mean of its token rows
    (as tokenizer_choice composes words), the query dropped; words the segmented vocabulary cannot spell are not
    candidates (each word is segmented once, for all tables)."""
    spelled = [(w, ids) for w, ids in ((w, segmented.ids(w)) for w in words) if ids]
    index = {w: i for i, (w, _) in enumerate(spelled)}
    lists = {}
    for name, table in tables.items():
        composed = torch.stack([table[ids].double().mean(0) for _, ids in spelled])  # [W, D]
        lists[name] = {}
        for query in POST_NEIGHBOURS:
            scores = cosine(composed, composed[index[query]])  # [W]
            scores[index[query]] = -torch.inf
            lists[name][query] = [spelled[i][0] for i in scores.topk(6).indices.tolist()]
    return lists


def _require_pipeline(word2vec, segmenter: str, stream, segmented, words: list[str], details: dict) -> None:
    """Checks of a segmented table's pipeline, each failing the row: a broken pipeline lowers that side's ρ and the
    BPE side's topicality, which pushes w2v.bpe_neighbours and tokenizer_choice[gpt2_bpe] toward 'holds', and the
    byte pairs' table shows no topical signal for a neighbour judge to check it by (w2v.bpe_neighbours). The lookup
    round trip: each of ``words`` covered reads the rows of its own tokens (the rows' tokens are the segmenter's
    tokens of the word). The stream round trip: the first paragraphs of the corpus, segmented anew and cut to the
    vocabulary, are the first ids of the trained stream. Running text: the looked-up tokens of the words are those
    the text gives them (:func:`_in_running_text`, :data:`IN_RUNNING_TEXT`). The training ran: the table is not its
    initial draw. They catch a lookup or a stream misaligned with the vocabulary, a word looked up by another
    convention than running text's, and a training that never ran; not a fault past the first paragraphs or a BPE
    table trained on a wrong context (only the Kiwi row has a check that its table learned, :func:`_require_learned`)."""
    text = corpus.read_paragraphs(word2vec.corpus.path)
    expected = [segmented.rows[t] for tokens in segmented.segment(text[:PARAGRAPHS_CHECKED]) for t in tokens
                if t in segmented.rows]
    stream_matches = stream.ids[:len(expected)].tolist() == expected
    covered = {w: ids for w in words if (ids := segmented.ids(w))}  # the lookup under test
    runs = {w: word_tokens(segmented.segment, segmenter, w) for w in covered}  # each word's tokens, segmented once
    misread = [w for w, ids in covered.items() if [segmented.token(i) for i in ids] != runs[w]]
    found, checked = _in_running_text(text, segmented, runs)
    share = IN_RUNNING_TEXT.get(segmenter, 1.0)
    moved = (word2vec.segmented_model(segmenter).w_in - word2vec.segmented_model(segmenter, "untrained").w_in).abs().max()
    details["pipeline checks"] = (f"{len(covered) - len(misread)} of {len(covered)} covered words read their own "
                                  f"tokens' rows; the first {PARAGRAPHS_CHECKED} paragraphs' {len(expected):,} tokens "
                                  f"are the stream's first ids: {stream_matches}; {found} of {checked} words' tokens "
                                  f"found in running text; largest move from the initial table {moved.item():.3g}")
    if misread:
        pytest.fail(f"pipeline check failed: the {segmenter} lookup reads other tokens' rows for {misread[:5]}")
    if found < share * checked:
        pytest.fail(f"pipeline check failed: the {segmenter} lookup's tokens of {checked - found} of {checked} words "
                    f"are not the tokens running text gives them (needs {share:.0%}): the words are looked up by "
                    "another convention than the text the table was trained on")
    if not stream_matches:
        pytest.fail(f"pipeline check failed: the {segmenter} stream's first ids are not the corpus's first paragraphs "
                    "segmented anew")
    if not moved > 0:
        pytest.fail(f"pipeline check failed: the {segmenter} table is its initial draw (no training step reached it)")


def _in_running_text(text: list[str], segmented, runs: dict[str, list[str]]) -> tuple[int, int]:
    """How many words of ``runs`` ({word: its looked-up tokens}) have those tokens as a contiguous run in the
    segmented paragraph of ``text`` where the word first stands as an eojeol after another, and how many were checked
    (those found so)."""
    where: dict[str, int] = {}
    for i, paragraph in enumerate(text):
        for eojeol in paragraph.split()[1:]:
            where.setdefault(eojeol, i)
    checked = [w for w in runs if w in where]
    tokens = segmented.segment([text[where[w]] for w in checked])
    found = sum(any(t[i:i + len(runs[w])] == runs[w] for i in range(len(t))) for w, t in zip(checked, tokens))
    return found, len(checked)


def _require_learned(word2vec, segmenter: str, segmented, seed: int, details: dict) -> None:
    """Positive control of the Kiwi row: a broken Kiwi pipeline (a lookup reading the wrong rows, a table that
    learned nothing) lowers ρ(Kiwi), and the row, whose claim is that Kiwi is not much better, would hold on it.
    The Kiwi table must have learned what the post's loop teaches: for post A's five queries its six nearest words
    (composed as the row composes them) must be more topical than those of its own untrained table (the same
    initial draw, no step taken), by w2v.semantic_neighbours's judge at the suite's level (p ≤ ALPHA). Not applied
    to GPT-2's byte pairs: their composed words share byte tokens, so both tables list spelling neighbours
    (w2v.bpe_neighbours). Records the judgement in ``details``; fails the row otherwise."""
    tables = {"trained": word2vec.segmented_model(segmenter).w_in,
              "untrained": word2vec.segmented_model(segmenter, "untrained").w_in}
    judgement = compare_lists(word2vec, _composed_lists(tables, segmented, word2vec.corpus.vocab), seed)
    p = judgement["measured"]
    details["positive control: neighbours' mean NPMI, trained | untrained Kiwi table"] = (
        judgement["details"]["mean NPMI with the query"])
    details["positive control: one-sided permutation p"] = float(f"{p:.3g}")
    if not p <= ALPHA:
        pytest.fail(f"positive control failed: the {segmenter} table's neighbours of post A's queries are no more "
                    f"topical than its untrained table's (permutation p = {p:.3g}, needs ≤ {ALPHA:.5f}): a table "
                    "that learned nothing, or a lookup reading the wrong rows, cannot show that the stems suffice")


@claim(
    id="w2v.bpe_neighbours",
    post="A", section="exp1",
    source=SOURCE,
    statement="With GPT-2's byte pairs instead of stems the word2vec effect the post showed, topical neighbour lists, "
              "does not show as well: for post A's five queries, the six nearest words (from the stems' 10,000-word "
              "vocabulary, each word in the BPE table the mean of its token rows, so both tables list the same kind "
              "of candidates: the strongest fair version of the BPE table) are scored by w2v.semantic_neighbours's "
              "judge, each word's NPMI with its query over the corpus's paragraphs; a one-sided paired permutation "
              "test asks whether the stems table's 30 scores exceed the BPE table's. Measured: its p-value.",
    kind="post", unit="one-sided p",
    quote=BPE_QUOTE,
    tolerance=at_most(ALPHA, reason=f"the suite's decision level, one-sided (p ≤ {ALPHA:.5f}), as "
                             "w2v.semantic_neighbours: lists a permutation of the pairs cannot tell apart at that "
                             "level show no difference a reader could see"),
    expect_source=f"post A's sentence: {REMARK} (with byte pairs the word2vec effect does not show on Korean)",
    deviation=KERNELS_DEVIATION + " The BPE table is the one w2v.tokenizer_choice[gpt2_bpe] trains (post A's loop, "
              "seed and vocabulary cut on GPT-2's tokens); its nearest rows are byte-level tokens, which no paragraph "
              "count can score, so words are composed from them, in the table's favour.",
)
def test_bpe_neighbours(verify, word2vec, seed):
    try:
        stream, segmented = word2vec.segmented("gpt2_bpe")
    except SegmenterUnavailable as exc:
        pytest.skip(str(exc))
    bpe = word2vec.segmented_model("gpt2_bpe").w_in  # [V_bpe, D]
    vocab = vocabulary(word2vec)
    details: dict = {}
    _require_pipeline(word2vec, "gpt2_bpe", stream, segmented, list(POST_NEIGHBOURS), details)
    judgement = compare_lists(word2vec, {
        "stems": {q: neighbours(word2vec.model("trained").w_in, vocab, q) for q in POST_NEIGHBOURS},
        "gpt2_bpe": _composed_lists({"gpt2_bpe": bpe}, segmented, word2vec.corpus.vocab)["gpt2_bpe"]}, seed)
    judgement["details"]["BPE table's own nearest tokens"] = {q: _neighbours(bpe, segmented, q) for q in QUERIES}
    judgement["details"] |= details
    verify(judgement.pop("measured"), **judgement)
