"""Whether GPT-2 weights are the published GPT-2 small: the file's sha256 against the one OpenAI's checkpoint has on
the Hugging Face hub. A ``post`` row judges the post on the published weights only; on any other file (a random
table of GPT-2's shape, a fine-tuned copy, a re-saved or converted one) its value says nothing about the post.

The published digests are the Git LFS sha256 (the hub's ETag) of ``openai-community/gpt2``'s files at revision
``607a30d783dfa663caf39e06633721c8d4cfcd7e``: ``model.safetensors`` 548,105,171 bytes, ``pytorch_model.bin``
548,118,077 bytes (the latter also asserted by huggingface_hub's own test suite, ``test_resolve_endpoint_on_lfs_file``).
A copy re-saved or converted from the published weights has other bytes and cannot be recognised by the file's
digest; a digest of the ``wte`` tensor alone would recognise it, but it can be computed only from the published
weights, which no machine this suite was written on held: such a copy is treated as not the published file, and
the message says so.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

PUBLISHED_REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"
PUBLISHED_SHA256 = {  # file name -> sha256 of openai-community/gpt2's file at PUBLISHED_REVISION
    "model.safetensors": "248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707",
    "pytorch_model.bin": "7c5d3f4b8b76583b422fcb9189ad6c89d5d97a094541ce8932dce3ecabde1421",
}
JUDGES_PUBLISHED_ONLY = "the rows judge the posts on the published weights only"


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 (hex) of the file ``path`` (a link resolved), read once per content: remembered by the
    resolved path, size and modification time (about 2 s for GPT-2's 548 MB)."""
    resolved = Path(path).resolve()
    stat = resolved.stat()
    return _sha256(resolved, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _sha256(path: Path, size: int, mtime_ns: int) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def not_published(weights: str | os.PathLike) -> str | None:
    """``None`` when ``weights`` (a checkpoint's ``model.safetensors`` or ``pytorch_model.bin``) is the published
    GPT-2 small's file of that name (:data:`PUBLISHED_SHA256`); otherwise why not, one line naming the file, its
    sha256 and the published one. Reads the whole file (cached, :func:`file_sha256`).

    Raises:
        KeyError: ``weights`` has another name.
        OSError: it cannot be read.
    """
    weights = Path(weights)
    digest, published = file_sha256(weights), PUBLISHED_SHA256[weights.name]
    if digest == published:
        return None
    return (f"{weights} is not the published GPT-2 small: sha256 {digest}, the published {weights.name} "
            f"(openai-community/gpt2 at {PUBLISHED_REVISION[:12]}) has {published} (a copy re-saved or converted "
            f"from it has other bytes and is not recognised); {JUDGES_PUBLISHED_ONLY}")


class GPT2Source(str):
    """Where GPT-2's weights came from, as messages show it (``--claims-gpt2-dir DIR``, ``Hugging Face cache:
    gpt2``), and :attr:`unpublished`: ``None`` when the weights are the published GPT-2 small's, else why not
    (:func:`not_published`), worked out on first use (the file's sha256 is read then, once)."""

    def __new__(cls, text: str, weights: str | os.PathLike | None = None) -> GPT2Source:
        source = super().__new__(cls, text)
        source.weights = None if weights is None else Path(weights)  # the file read, as not_published takes it
        return source

    @functools.cached_property
    def unpublished(self) -> str | None:
        """Why these weights are not the published GPT-2 small, or ``None`` (also when no file was given)."""
        return None if self.weights is None else not_published(self.weights)
