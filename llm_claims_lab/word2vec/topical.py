"""Topical relatedness of two words from the corpus itself, without the embedding: the paragraphs they share.

Post A's remark under its neighbour table ("학문·왕조·예술의 클러스터가 … 보이게 됩니다") says the nearest rows of a
query are on its topic. A topic is what a paragraph is about, so two words are on one topic when they occur in the
same paragraphs more often than their frequencies predict: normalised pointwise mutual information over paragraphs
(Bouma 2009, "Normalized (pointwise) mutual information in collocation extraction"),

    NPMI(a, b) = log(P(a, b) / (P(a) P(b))) / −log P(a, b),

with ``P`` the share of the corpus's paragraphs that contain the words (presence, not counts), in [−1, 1]: 1 for
words that only occur together, 0 for independent ones, −1 (its limit) for words that never share a paragraph.
NPMI over documents is the coherence score of a word list that agrees best with people's ratings of topics (Lau,
Newman & Baldwin 2014, "Machine reading tea leaves", EACL; Röder, Both & Hinneburg 2015, WSDM). Skip-gram learns
from ±5-word windows, and puts two words close when they have similar contexts, not when they share paragraphs, so
the measure is not its training objective.

Letters: P paragraphs, V vocabulary, k words scored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class ParagraphIncidence:
    """Which of ``vocab_size`` words occur in which paragraphs: ``paragraph_ids`` holds each paragraph's vocabulary
    ids (:attr:`llm_claims_lab.word2vec.corpus.Corpus.paragraph_ids`; repeats count once).

    Raises:
        ValueError: an id outside ``[0, vocab_size)``, or no paragraph.
    """

    def __init__(self, paragraph_ids: Sequence[Sequence[int]], vocab_size: int) -> None:
        import scipy.sparse as sp  # imported on use: it costs a second at every process start

        if not paragraph_ids:
            raise ValueError("no paragraph to count co-occurrences in")
        rows = np.repeat(np.arange(len(paragraph_ids)), [len(p) for p in paragraph_ids])  # [sum of lengths]
        cols = np.fromiter((i for p in paragraph_ids for i in p), dtype=np.int64, count=len(rows))
        if len(cols) and not 0 <= cols.min() <= cols.max() < vocab_size:
            raise ValueError(f"paragraph ids must lie in [0, {vocab_size}), got {cols.min()} … {cols.max()}")
        incidence = sp.csc_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(paragraph_ids), vocab_size))
        incidence.data[:] = 1.0  # duplicates were summed: presence only
        self.incidence = incidence  # [P, V]
        self.paragraphs = len(paragraph_ids)
        self.frequency = np.asarray(incidence.sum(axis=0)).ravel()  # [V]: paragraphs holding each word

    def npmi(self, query: int, words: Sequence[int]) -> np.ndarray:
        """NPMI over paragraphs of word ``query`` with each of ``words`` (vocabulary ids): ``[k]`` in [−1, 1], −1
        for a pair that never shares a paragraph, and for a word that occurs in none.

        Raises:
            IndexError: an id outside the vocabulary.
        """
        words = np.asarray(words, dtype=np.int64)  # [k]
        shared = np.asarray((self.incidence[:, [query]].T @ self.incidence[:, words]).todense()).ravel()  # [k]
        p_ab = shared / self.paragraphs
        p_a, p_b = self.frequency[query] / self.paragraphs, self.frequency[words] / self.paragraphs
        with np.errstate(divide="ignore", invalid="ignore"):
            npmi = np.log(p_ab / (p_a * p_b)) / -np.log(p_ab)
        npmi[shared == self.paragraphs] = 1.0  # both words in every paragraph: −log P(a, b) = 0
        return np.where(shared > 0, npmi, -1.0)
