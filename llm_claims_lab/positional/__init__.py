"""Positional encodings, in the two kinds of STYLE.md plus RoPE: :mod:`.absolute`, :mod:`.biases`, :mod:`.rope`, and
none (:mod:`.nope`).

Letters: B batch, T seq_len (T_q, T_k for queries and keys), D d_model, H heads.

- Additive encodings return a ``[T, D]`` table that is added to token embeddings ``[B, T, D]``:
  :class:`SinusoidalPositionalEncoding` (parameter-free), :class:`LearnedPositionalEmbedding`
  (a BERT/GPT-2-style table with ``max_len`` rows) and :class:`RawIntegerPositions` (post A's naive
  first idea: the numbers 1, 2, 3, … themselves); :class:`NoPositionalEncoding` (:mod:`.nope`) is the additive
  table of no position signal (zeros; the control "NoPE").
- Attention biases return ``[H, T_q, T_k]`` added to the attention logits:
  :class:`RelativePositionBias` (post A's one learned scalar per offset),
  :class:`ClippedRelativePositionBias` (offsets clipped, Shaw et al. 2018),
  :class:`T5RelativePositionBias` (log-spaced buckets, Raffel et al. 2020) and :class:`ALiBiBias`
  (fixed linear penalties, Press et al. 2022).
- RoPE rotates queries and keys: :func:`apply_rope`, or the module :class:`RotaryPositionEmbedding`.

Each module says which of the three it is in its ``kind`` attribute (``"additive"``, ``"bias"``,
``"rotary"``), so a model can take any of them through one field.

Beside them, not imported here: :mod:`.attention` (post A's single-head self-attention, which takes any of the
three) and :mod:`.figures` (the sinusoidal table's figures). May import :mod:`llm_claims_lab.core` only
(``tests/test_library_layout.py``).
"""


from llm_claims_lab.positional.absolute import (BASE, LearnedPositionalEmbedding, RawIntegerPositions,
                                               SinusoidalPositionalEncoding, frequencies, shift_matrix,
                                               sinusoidal_table)
from llm_claims_lab.positional.biases import (ALiBiBias, ClippedRelativePositionBias, RelativePositionBias,
                                             T5RelativePositionBias, alibi_slopes, relative_offsets, t5_bucket)
from llm_claims_lab.positional.nope import NoPositionalEncoding
from llm_claims_lab.positional.rope import RotaryPositionEmbedding, apply_rope

__all__ = ["ALiBiBias", "BASE", "ClippedRelativePositionBias", "LearnedPositionalEmbedding", "NoPositionalEncoding",
           "RawIntegerPositions",
           "RelativePositionBias", "RotaryPositionEmbedding", "SinusoidalPositionalEncoding", "T5RelativePositionBias",
           "alibi_slopes", "apply_rope", "frequencies", "relative_offsets", "shift_matrix", "sinusoidal_table",
           "t5_bucket"]
