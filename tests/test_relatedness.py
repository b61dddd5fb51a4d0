"""The topical-relatedness measure behind w2v.semantic_neighbours can fail: a synthetic corpus with known topics."""

from __future__ import annotations

import numpy as np
import torch

from fixtures.relatedness import ParagraphCooccurrence, nearest, neighbour_percentile

V, TOPICS, WORDS_PER_TOPIC = 600, 6, 100  # word w belongs to topic w % TOPICS


def _corpus(seed: int = 0) -> list[list[int]]:
    """2,000 paragraphs of 30 words, each drawn from one topic: topic-mates share paragraphs."""
    rng = np.random.default_rng(seed)
    paragraphs = []
    for _ in range(2000):
        topic = rng.integers(TOPICS)
        paragraphs.append((topic + TOPICS * rng.integers(0, WORDS_PER_TOPIC, size=30)).tolist())
    return paragraphs


def test_topic_mates_pass_and_random_words_fail() -> None:
    cooc = ParagraphCooccurrence(_corpus(), V)
    query = 7  # topic 1
    _, mates = neighbour_percentile(cooc, query, [13, 19, 25, 31, 37, 43])  # all topic 1
    _, strangers = neighbour_percentile(cooc, query, [12, 20, 26, 32, 38, 44])  # other topics
    assert mates == 100.0
    assert strangers < 99.0


def test_untrained_table_fails_trained_like_table_passes() -> None:
    cooc = ParagraphCooccurrence(_corpus(), V)
    torch.manual_seed(42)
    untrained = torch.nn.Embedding(V, 16).weight.detach()  # [V, D], as the untrained skip-gram baseline
    topic_axis = torch.nn.functional.one_hot(torch.arange(V) % TOPICS, 16).float()  # [V, D]
    trained_like = topic_axis + 0.1 * untrained  # topic-mates point the same way
    query = 7
    assert neighbour_percentile(cooc, query, nearest(trained_like, query))[1] >= 99.0
    assert neighbour_percentile(cooc, query, nearest(untrained, query))[1] < 99.0


def test_nearest_excludes_the_query() -> None:
    table = torch.eye(4) + 0.01
    assert 2 not in nearest(table, 2, k=3)
