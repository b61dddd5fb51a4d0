"""What the GPT-2 claims share: a row measured on weights that are not the published GPT-2 small says so instead of
judging (:func:`judged_on_published`)."""

from collections.abc import Callable

import pytest

from llm_claims_harness.report import show


def judged_on_published(verify: Callable, source: str) -> Callable:
    """``verify`` itself when the weights a row measured came from the published GPT-2 small (``source``, a
    :class:`llm_claims_lab.pretrained.gpt2_published.GPT2Source`, says so; a plain description, e.g. an untrained
    control's, reads no published weights); otherwise a ``verify`` that skips the row, never counted for or
    against a post: the reason names the file, its sha256 and the published one, and the value measured on it.
    Post A's and B's GPT-2 rows quote what the published checkpoint gives; another file of GPT-2's shape (a random
    table, a fine-tuned or converted copy) is no evidence about them."""
    why = getattr(source, "unpublished", None)
    if not why:
        return verify

    def measured_not_judged(measured, **_) -> None:
        pytest.skip(f"{why}; measured on it, not judged: {show(measured)}")

    return measured_not_judged
