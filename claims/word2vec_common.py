"""Shared by the word2vec claims (``test_word2vec*.py``): how their skip-gram models are computed, the vocabulary
they look words up in, and 3CosAdd accuracy on the analogy items (the WS-353 scoring:
:func:`llm_claims_lab.relatedness.ws353_score`).

Not a test module (no ``test_`` prefix): pytest's default import mode puts ``claims/`` on ``sys.path``, so the
claim modules import it as ``word2vec_common``.
"""

import torch

from llm_claims_lab import ko_eval
from llm_claims_lab.analogy import WordList, analogy_rank, token_id
from llm_claims_lab.skipgram import KERNELS

KERNELS_DEVIATION = (f"Skip-gram's step is computed as --claims-w2v-kernels names (w2v.ws353[trained] records it): "
                     f"by default fast, {KERNELS['fast']}, fewer CPU-seconds per step; post is post A's code as "
                     f"written ({KERNELS['post']}). The algorithm, draws and seed are the post's either way; the tables "
                     "differ by float rounding (benchmarks/bench_word2vec.py prints the drift).")


def vocabulary(word2vec) -> WordList:
    """The skip-gram vocabulary of the ``word2vec`` lab, words looked up as written."""
    return WordList(word2vec.corpus.vocab, name="the skip-gram vocabulary",
                    hint="words are particle-stripped stems of the corpus")


def covered(vocab: WordList, items: list[ko_eval.Analogy]) -> list[ko_eval.Analogy]:
    """The analogy items whose 4 words are rows of ``vocab`` as written."""
    return [it for it in items if all(vocab.ids(w) for w in (it.a, it.b, it.c, it.d))]


def analogy_hits(table: torch.Tensor, vocab: WordList, items: list[ko_eval.Analogy]) -> int:
    """How many covered ``items`` (a : b = c : d) 3CosAdd answers: ``d`` is the row nearest to b − a + c by cosine
    in ``table`` [V, D], the three inputs excluded (post A, exp. 2's arithmetic; Mikolov et al. 2013)."""
    return sum(analogy_rank(table, vocab, it.b, it.a, it.c, it.d) == 1 for it in items)


def plant_analogies(table: torch.Tensor, vocab: WordList,
                    items: list[ko_eval.Analogy]) -> tuple[torch.Tensor, list[ko_eval.Analogy]]:
    """A copy of ``table`` [V, D] with analogy structure planted (a positive control): for each covered item, in
    order, whose ``d`` is neither a planted answer nor a planted item's input and whose a, b, c are no planted
    answer, row ``d`` becomes b − a + c (inputs are never rewritten, so every planted item stays answered exactly
    by 3CosAdd). Returns the table and the planted items."""
    planted, inputs, answers = table.clone(), set(), set()
    chosen = []
    for it in items:
        if it.d in answers | inputs or {it.a, it.b, it.c} & (answers | {it.d}):
            continue
        rows = [token_id(vocab, w) for w in (it.a, it.b, it.c, it.d)]
        planted[rows[3]] = planted[rows[1]] - planted[rows[0]] + planted[rows[2]]  # [D]
        inputs |= {it.a, it.b, it.c}
        answers.add(it.d)
        chosen.append(it)
    return planted, chosen
