"""Word relatedness against people's judgements (the Korean WS-353 of Park et al. 2018): two tables compared
on the same pairs, as ``w2v.tokenizer_choice`` compares post A's stems with other segmentations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch

from llm_claims_lab.word2vec import ko_eval
from llm_claims_lab.core.analogy import Vocabulary, cosine, token_id
from llm_claims_lab.core.stats import BOOTSTRAP_RESAMPLES, NotMeasurable, bootstrap

MIN_PAIRS = 10  # the fewest pairs a Spearman ρ is judged on: from 10 pairs its sampling distribution is near the
# normal one the 3-SD rule assumes (Fieller, Hartley & Pearson 1957, Biometrika 44: Fisher's z of ρ with variance
# 1.06/(n − 3), checked for n ≥ 10); below that the bootstrap's SE describes a handful of ranks


def word_vectors(table: torch.Tensor, vocab: Vocabulary, words: Sequence[str]) -> torch.Tensor:
    """``[n, D]`` (float64): each word's rows of ``table: [V, D]`` averaged (one row for a one-token word).

    Raises:
        IndexError / RuntimeError: a word without rows (check :func:`covers` first).
    """
    return torch.stack([table[vocab.ids(w)].double().mean(0) for w in words])


def covers(vocab: Vocabulary, a: str, b: str) -> bool:
    """Both words have rows, and not the same rows (a pair on one row has cosine 1 in any table)."""
    ra, rb = vocab.ids(a), vocab.ids(b)
    return bool(ra) and bool(rb) and ra != rb


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman ρ of two ``[n]`` arrays."""
    from scipy import stats  # imported on use: it costs a second at every process start

    return stats.spearmanr(x, y).statistic


def rho_difference(tables: Mapping[str, tuple[torch.Tensor, Vocabulary]], pairs: Sequence, first: str,
                   second: str, *, seed: int, resamples: int = BOOTSTRAP_RESAMPLES) -> dict:
    """ρ(first) − ρ(second) between cosine and human score over the ``pairs`` (``.first``, ``.second``,
    ``.score``) that both tables cover, with the paired bootstrap over pairs
    (:func:`llm_claims_lab.core.stats.bootstrap`, BCa, ``resamples`` draws seeded by ``seed``). ``tables``: name ->
    (``[V, D]`` table, its vocabulary).

    Returns ``delta`` (Δρ), ``se`` (its bootstrap SE), ``n`` (pairs), ``rho`` (each ρ on those pairs),
    ``own coverage`` (pairs each table covers alone) and ``interval`` (95 %).

    Raises:
        NotMeasurable: fewer than :data:`MIN_PAIRS` pairs covered by both (the message gives the counts).
    """
    return rho_difference_items(tables, pairs, first, second, seed=seed, resamples=resamples)[0]


def rho_difference_items(tables: Mapping[str, tuple[torch.Tensor, Vocabulary]], pairs: Sequence, first: str,
                         second: str, *, seed: int, resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[dict, list[dict]]:
    """:func:`rho_difference`'s result and one record per pair of ``pairs``, in order (the report's per-item log):
    ``first``, ``second``, ``human`` (its score), ``covered`` (table name -> whether it covers the pair) and
    ``cosine`` (table name -> the cosine the difference was computed from; ``None`` unless both tables cover the
    pair, the only pairs scored). Nothing is computed twice: the records carry the score's own cosines.

    Raises:
        NotMeasurable: as :func:`rho_difference`.
    """
    names = (first, second)
    covered = {k: [covers(tables[k][1], p.first, p.second) for p in pairs] for k in names}  # [pairs] each
    scored = [covered[first][i] and covered[second][i] for i in range(len(pairs))]
    both = [p for p, s in zip(pairs, scored) if s]
    own = {k: sum(covered[k]) for k in names}
    if len(both) < MIN_PAIRS:
        raise NotMeasurable(f"{first} and {second} cover {len(both)} of the {len(pairs)} WS-353 pairs together "
                            f"({first} alone {own[first]}, {second} alone {own[second]}); a rank correlation is "
                            f"judged on at least {MIN_PAIRS}: a larger corpus (--claims-corpus) covers more")
    human = np.array([p.score for p in both])  # [n]
    cos = {k: cosine(word_vectors(*tables[k], [p.first for p in both]),
                     word_vectors(*tables[k], [p.second for p in both])).numpy() for k in names}  # [n]

    def delta(c1: np.ndarray, c2: np.ndarray, h: np.ndarray) -> float:
        return spearman(c1, h) - spearman(c2, h)

    boot = bootstrap((cos[first], cos[second], human), delta, seed=seed, resamples=resamples)
    result = {"delta": delta(cos[first], cos[second], human), "se": boot.standard_error, "n": len(both),
              "rho": {k: round(spearman(cos[k], human), 3) for k in names}, "own coverage": own,
              "interval": [round(v, 3) for v in boot.confidence_interval]}
    cosines = {k: iter(cos[k].tolist()) for k in names}
    records = [{"first": p.first, "second": p.second, "human": p.score, "covered": {k: covered[k][i] for k in names},
                "cosine": {k: next(cosines[k]) if scored[i] else None for k in names}} for i, p in enumerate(pairs)]
    return result, records


def covered_pairs(vocab: Vocabulary, pairs: list[ko_eval.ScoredPair],
                  lookup=lambda word: word) -> tuple[list[tuple[str, str, float]], int]:
    """``(pairs covered, same-row pairs left out)``: the WS-353 pairs whose two looked-up words are distinct rows of
    ``vocab``, as ``(word, word, score)``. Needs the vocabulary only, so a row checks it before anything is trained.

    Raises:
        NotMeasurable: fewer than :data:`MIN_PAIRS` pairs covered (the message gives the counts).
    """
    looked_up = [(lookup(p.first), lookup(p.second), p.score) for p in pairs]
    in_vocab = [(a, b, s) for a, b, s in looked_up if vocab.ids(a) and vocab.ids(b)]
    covered = [(a, b, s) for a, b, s in in_vocab if a != b]
    if len(covered) < MIN_PAIRS:
        raise NotMeasurable(
            f"{len(covered)} of the {len(pairs)} WS-353 pairs have both words as distinct rows of {vocab.name} "
            f"({len(in_vocab) - len(covered)} more land on one row); Spearman ρ is judged on at least "
            f"{MIN_PAIRS}: a larger corpus (--claims-corpus) covers more")
    return covered, len(in_vocab) - len(covered)


def ws353_score(table: torch.Tensor, vocab: Vocabulary, pairs: list[ko_eval.ScoredPair],
                lookup=lambda word: word) -> tuple[np.ndarray, np.ndarray, int]:
    """``(cosines [n], human scores [n], same-row pairs left out)`` over the pairs whose two looked-up words
    are rows of ``vocab`` (``table``: ``[V, D]``). A pair whose words land on one row (호랑이–호랑이) is left out:
    its cosine is 1 in any table, trained or random, so it says nothing about the table and only lifts every ρ.

    Raises:
        NotMeasurable: fewer than :data:`MIN_PAIRS` pairs covered (:func:`covered_pairs`).
    """
    covered, same_row = covered_pairs(vocab, pairs, lookup)
    rows_a, rows_b = ([token_id(vocab, pair[i]) for pair in covered] for i in (0, 1))
    cos = cosine(table[rows_a], table[rows_b]).numpy()  # [n]
    return cos, np.array([s for _, _, s in covered]), same_row


def ws353_items(table: torch.Tensor, vocab: Vocabulary, pairs: list[ko_eval.ScoredPair],
                lookup=lambda word: word) -> tuple[tuple[np.ndarray, np.ndarray, int], list[dict]]:
    """:func:`ws353_score`'s result, and one record per pair of ``pairs``, in order (the report's per-item log):
    ``first``, ``second`` (as in the file), ``human`` (its score), ``covered`` (scored or left out), ``cosine`` (the
    cosine :func:`ws353_score` computed, not recomputed; ``None`` when left out) and, for a pair left out,
    ``skipped`` (``not in vocabulary: <words>`` or ``same row``); ``looked up`` when ``lookup`` changed a word.

    Raises:
        NotMeasurable: as :func:`ws353_score`.
    """
    score = ws353_score(table, vocab, pairs, lookup)
    cosines = iter(score[0].tolist())
    records = []
    for p in pairs:
        a, b = lookup(p.first), lookup(p.second)
        missing = [w for w in dict.fromkeys((a, b)) if not vocab.ids(w)]  # covered_pairs' rule, in its order
        skipped = f"not in vocabulary: {', '.join(missing)}" if missing else "same row" if a == b else None
        record = {"first": p.first, "second": p.second, "human": p.score}
        if (a, b) != (p.first, p.second):
            record["looked up"] = [a, b]
        record |= {"covered": skipped is None, "cosine": None if skipped else next(cosines)}
        records.append(record | ({"skipped": skipped} if skipped else {}))
    if next(cosines, None) is not None:
        raise RuntimeError("ws353_items: fewer pairs matched than ws353_score scored")  # covered_pairs' rule changed
    return score, records
