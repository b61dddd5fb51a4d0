"""The lists the suite copied from the posts are the posts' (issue 43, item 4): post A's particle list (``JOSA``,
which ``stem.particle_list_size`` counts and the stripper uses) against the post's own code, read from the post's
copy beside the checkout (skipped where it is absent). A list with entries missing or added fails, named."""

from __future__ import annotations

import ast
import re

import pytest

from llm_claims_lab.word2vec.stemming import PARTICLES
from post_texts import POST_TEXTS, SEEDS


def posts_josa() -> list[str]:
    """The ``JOSA = [...]`` list of post A's code, as the post prints it (its first occurrence)."""
    path = SEEDS / POST_TEXTS["A"]
    if not path.is_file():
        pytest.skip(f"post A's text is not beside the checkout ({path}): nothing to check the list against")
    match = re.search(r"^JOSA = (\[.*?\])", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert match, f"{path}: no JOSA = [...] list"
    return ast.literal_eval(match.group(1))


def transcription_errors(ours: tuple[str, ...] | list[str], post: list[str]) -> list[str]:
    """What differs between a copied list and the post's: entries missing, entries added, repeats."""
    errors = [f"missing {p!r}" for p in post if p not in ours] + [f"not in the post {p!r}" for p in ours if p not in post]
    if len(set(ours)) != len(ours):
        errors.append("an entry is repeated")
    return errors


def test_the_particle_list_is_the_posts() -> None:
    post = posts_josa()
    assert len(post) == 33
    assert transcription_errors(PARTICLES, post) == []


def test_a_list_with_two_entries_missing_fails() -> None:
    post = posts_josa()
    planted = tuple(p for p in PARTICLES if p not in ("까지", "처럼"))  # 31 entries: still '30-odd'
    assert transcription_errors(planted, post) == ["missing '까지'", "missing '처럼'"]
