"""The token streams of w2v.tokenizer_choice: post A's vocabulary cut, word lookup, and a missing analyser."""

import builtins

import pytest
import torch

from llm_claims_lab.word2vec import segmenters
from llm_claims_lab.core.analogy import WordList, cosine
from llm_claims_lab.word2vec.ko_eval import ScoredPair
from llm_claims_lab.word2vec.relatedness import rho_difference
from llm_claims_lab.word2vec.segmenters import SegmentedVocabulary, SegmenterUnavailable, index, word_tokens


def test_index_is_post_a_vocabulary_cut():
    paragraphs = [["b", "a", "b", "c"], ["b", "a", "d"]]
    stream = index(paragraphs, vocab_size=2, min_count=2)
    assert stream.vocab == ["b", "a"]  # most frequent first; c and d are below min_count and past vocab_size
    assert stream.ids.tolist() == [0, 1, 0, 0, 1]  # out-of-vocabulary tokens dropped from the running text
    assert stream.tokens == 7


def test_index_refuses_a_corpus_with_nothing_frequent():
    with pytest.raises(ValueError, match="occurs 5 times"):
        index([["a", "b"]])


def test_a_word_is_the_rows_of_its_tokens_or_none():
    def split_syllables(lines):
        return [list(line.strip()) for line in lines]

    stream = segmenters.TokenStream(vocab=["호", "랑", "이"], ids=torch.tensor([0, 1, 2]), tokens=3)
    vocab = SegmentedVocabulary(stream, split_syllables, "syllables")
    assert vocab.ids("호랑이") == [0, 1, 2]
    assert vocab.ids("호박") == []  # one token out of the vocabulary: the word is not covered
    assert vocab.token(1) == "랑"


def test_gpt2_bpe_looks_a_word_up_with_its_leading_space():
    segment, versions = segmenters.load("gpt2_bpe")
    assert word_tokens(segment, "gpt2_bpe", "king") == ["Ġking"]  # one GPT-2 token, with the space marker
    assert len(word_tokens(segment, "gpt2_bpe", "호랑이")) > 3  # Hangul falls apart into byte pieces
    assert "50257" in versions["tokenizer"]


def test_missing_kiwi_is_an_install_hint(monkeypatch):
    real_import = builtins.__import__

    def no_kiwi(name, *args, **kwargs):
        if name.startswith("kiwipiepy"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_kiwi)
    with pytest.raises(SegmenterUnavailable, match=r'pip install -e "\.\[kiwi\]"'):
        segmenters.load("kiwi")


def test_unknown_segmenter():
    with pytest.raises(ValueError, match="gpt2_bpe"):
        segmenters.load("sentencepiece")


def test_rho_difference_sees_which_table_tracks_people():
    g = torch.Generator().manual_seed(0)
    words = [f"w{i}" for i in range(60)]
    vocab = WordList(words, name="toy", hint="")
    good, other = torch.randn(60, 8, generator=g), torch.randn(60, 8, generator=g)  # [V, D] each
    # People's scores follow the good table's cosines exactly; the other table knows nothing of them.
    scores = cosine(good[:30], good[30:]).tolist()
    pairs = [ScoredPair(words[i], words[i + 30], s) for i, s in enumerate(scores)]
    tables = {"good": (good, vocab), "other": (other, vocab)}
    result = rho_difference(tables, pairs, "good", "other", seed=0, resamples=500)
    assert result["rho"]["good"] == pytest.approx(1.0)
    assert result["delta"] > 3 * result["se"]  # decided in the good table's favour
    flipped = rho_difference(tables, pairs, "other", "good", seed=0, resamples=500)
    assert flipped["delta"] == pytest.approx(-result["delta"])
    with pytest.raises(ValueError, match="at least 10"):
        rho_difference(tables, pairs[:2], "good", "other", seed=0)


def test_kiwi_keeps_content_morphemes_only():
    pytest.importorskip("kiwipiepy", reason='the kiwi extra: pip install -e ".[kiwi]"')
    segment, versions = segmenters.load("kiwi")
    tokens = segment(["호랑이가 산에서 잤다."])[0]
    assert "호랑이" in tokens and "산" in tokens
    assert not {"가", "에서", "다", "."} & set(tokens)  # particles, the ending and punctuation are dropped
    assert word_tokens(segment, "kiwi", "호랑이") == ["호랑이"]
    assert set(versions) == {"kiwipiepy", "kiwipiepy_model"}
