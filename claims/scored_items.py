"""The suite's scored items in ``samples.jsonl``'s fixed fields (:class:`llm_claims_harness.samples.Sample`: item id,
input, target, prediction, score), from the per-item records the library returns beside each score (nothing is
scored again): a word pair of a relatedness set, an analogy question."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from llm_claims_harness.samples import Sample

PAIR_FIELDS = ("first", "second", "human", "cosine")  # ws353_items' and rho_difference_items' records
ANALOGY_FIELDS = ("a", "b", "c", "expected", "answer", "correct")  # Answer.record's and neighbours_record's


def _item_id(index: int, seed: int | None) -> str:
    return str(index) if seed is None else f"seed{seed}/{index}"


def pair_samples(records: Iterable[dict], seed: int | None = None) -> list[Sample]:
    """One sample per word pair, in the set's order: input ``[first, second]``, target the human score, prediction
    the cosine (a table name -> cosine mapping where two tables scored it; ``None`` for a pair left out, ``extra``
    says why), no per-item score (the row's metric is a rank correlation over the pairs)."""
    return [Sample(item_id=_item_id(i, seed), input=[r["first"], r["second"]], target=r["human"],
                   prediction=r["cosine"], score=None,
                   extra=({} if seed is None else {"seed": seed}) | {k: v for k, v in r.items() if k not in PAIR_FIELDS})
            for i, r in enumerate(records)]


def analogy_samples(records: Iterable[dict], seed: int | None = None) -> list[Sample]:
    """One sample per analogy question: input ``[a, b, c]`` as the record names them (its ``query`` in ``extra``
    says how they combine), target the expected word, prediction the top-1 answer, score whether it is right."""
    return [Sample(item_id=_item_id(i, seed), input=[r["a"], r["b"], r["c"]], target=r["expected"],
                   prediction=r["answer"], score=r["correct"],
                   extra=({} if seed is None else {"seed": seed}) | {k: v for k, v in r.items()
                                                                    if k not in ANALOGY_FIELDS})
            for i, r in enumerate(records)]


def per_seed(make: Callable[[Iterable[dict], int | None], list[Sample]], seeds: Sequence[int],
             logs: Sequence[Sequence[dict]]) -> list[Sample]:
    """The samples of one table per seed, in one list (``make``: :func:`pair_samples` or :func:`analogy_samples`),
    each item id prefixed with its seed."""
    return [s for seed, records in zip(seeds, logs, strict=True) for s in make(records, seed)]
