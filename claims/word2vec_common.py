"""Shared by the word2vec claims (``test_word2vec*.py``): how their skip-gram models are computed, the vocabulary
they look words up in, and the WS-353 scoring.

Not a test module (no ``test_`` prefix): pytest's default import mode puts ``claims/`` on ``sys.path``, so the
claim modules import it as ``word2vec_common``.
"""

import numpy as np
import torch

from llm_claims_lab import ko_eval
from llm_claims_lab.analogy import WordList, cosine, token_id
from llm_claims_lab.skipgram import KERNELS

KERNELS_DEVIATION = (f"Skip-gram's step is computed as --claims-w2v-kernels names (w2v.ws353[trained] records it): "
                     f"by default fast, {KERNELS['fast']}, fewer CPU-seconds per step; post is post A's code as "
                     f"written ({KERNELS['post']}). The algorithm, draws and seed are the post's either way; the tables "
                     "differ by float rounding (benchmarks/bench_word2vec.py prints the drift).")


def vocabulary(word2vec) -> WordList:
    """The skip-gram vocabulary of the ``word2vec`` lab, words looked up as written."""
    return WordList(word2vec.corpus.vocab, name="the skip-gram vocabulary",
                    hint="words are particle-stripped stems of the corpus")


def ws353_score(table: torch.Tensor, vocab: WordList, pairs: list[ko_eval.ScoredPair],
                lookup=lambda word: word) -> tuple[np.ndarray, np.ndarray, int]:
    """``(cosines [n], human scores [n], same-row pairs left out)`` over the pairs whose two looked-up words
    are rows of ``vocab`` (``table``: ``[V, D]``). A pair whose words land on one row (호랑이–호랑이) is left out:
    its cosine is 1 in any table, trained or random, so it says nothing about the table and only lifts every ρ."""
    looked_up = [(lookup(p.first), lookup(p.second), p.score) for p in pairs]
    in_vocab = [(a, b, s) for a, b, s in looked_up if vocab.ids(a) and vocab.ids(b)]
    covered = [(a, b, s) for a, b, s in in_vocab if a != b]
    rows_a, rows_b = ([token_id(vocab, pair[i]) for pair in covered] for i in (0, 1))
    cos = cosine(table[rows_a], table[rows_b]).numpy()  # [n]
    return cos, np.array([s for _, _, s in covered]), len(in_vocab) - len(covered)
