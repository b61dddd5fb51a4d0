"""What the loaders of real embedding tables and models (:mod:`llm_claims_lab.pretrained.embeddings`) return and
raise."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from llm_claims_lab.core.analogy import Vocabulary
from llm_claims_lab.core.errors import InputFault


class EmbeddingsUnavailable(InputFault, RuntimeError):
    """An embedding table could not be loaded; the message says what was tried and how to provide it."""


class EmbeddingsUnusable(EmbeddingsUnavailable):
    """An embedding table or model was found but cannot be used: damaged (truncated, corrupt, non-finite) or of
    another shape than the claims measure; the message names the file and how to repair it. The rows that need
    it error, where those of an absent one (:class:`EmbeddingsUnavailable`) skip."""


@dataclasses.dataclass(frozen=True)
class Embeddings:
    """A table, the vocabulary that names its rows, and where it came from."""

    table: torch.Tensor  # [V, D] float32
    vocab: Vocabulary
    source: str


@dataclasses.dataclass(frozen=True)
class Model:
    """A transformers model, the tokenizer that names its inputs, and where its weights came from."""

    model: torch.nn.Module  # GPT2Model in eval mode, eager attention
    tokenizer: Any  # GPT2TokenizerFast (llm_claims_lab.tokenizers.gpt2_tokenizer)
    source: str
