"""Two other ways to cut post A's corpus into the tokens its skip-gram loop learns, from the post's remark on
tokenisation (exp. 1 (1)): 'tiktoken과 같은 byte pair를 이용해 버리면, 한국어 같은 경우, 이런 word2vec이 잘 보이지
않습니다 … 제대로 하려면 형태소 분석기(kiwipiepy, MeCab 계열)를 쓰는 것이 정답'.

- ``gpt2_bpe``: GPT-2's byte-level BPE (:func:`llm_claims_lab.tokenizers.gpt2_tokenizer`), the tiktoken-style byte
  pairs the post warns against; a word mid-sentence is tokenised with its leading space, as in running text.
- ``kiwi``: the content morphemes of Kiwi (the kiwipiepy package), the morphological analyser the post names:
  particles, endings, the copula, suffixes and punctuation (:data:`FUNCTION_TAGS`) are dropped, as post A's
  stripper drops particles and punctuation; a token is a morpheme's surface form (tags dropped, so a word
  looks itself up as written).

A :class:`TokenStream` is the result of post A's vocabulary cut applied to those tokens (the ``vocab_size``
most frequent with count ≥ ``min_count``; out-of-vocabulary tokens dropped from the running text), and a
:class:`SegmentedVocabulary` looks a word up as the rows of its tokens.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Callable, Sequence
from importlib import metadata

import torch

from llm_claims_lab.core.errors import InputFault

SEGMENTERS = ("gpt2_bpe", "kiwi")
# Kiwi's tags (Sejong's set) of the morphemes post A's stripper would remove: particles (J…), endings (E…), the
# copula (VCP, VCN: '이다'), suffixes (XS…) and punctuation and symbols (S… but foreign words SL, Hanja SH and
# numbers SN, which are words).
FUNCTION_TAGS = ("J", "E", "VCP", "VCN", "XS", "SF", "SP", "SS", "SE", "SO", "SW", "SB")
KIWI_INSTALL = 'python -m pip install -e ".[kiwi]"'
Segment = Callable[[Sequence[str]], list[list[str]]]  # paragraphs -> tokens per paragraph


class SegmenterUnavailable(InputFault, RuntimeError):
    """The segmenter's package or files are missing; the message says how to install them."""


def load(name: str) -> tuple[Segment, dict[str, str]]:
    """The segmenter ``name`` (one of :data:`SEGMENTERS`) and the versions its output depends on (for cache
    fingerprints).

    Raises:
        ValueError: an unknown name.
        SegmenterUnavailable: kiwipiepy (or its model) is not installed, or GPT-2's BPE files are not found.
    """
    if name == "gpt2_bpe":
        from llm_claims_lab.tokenizers import TokenizerUnavailable, gpt2_tokenizer

        try:
            tok = gpt2_tokenizer()
        except TokenizerUnavailable as exc:
            raise SegmenterUnavailable(str(exc)) from None
        return _bpe(tok), {"tokenizer": f"GPT-2 BPE, {len(tok)} tokens"}
    if name == "kiwi":
        try:
            from kiwipiepy import Kiwi

            # One thread, as every build of the suite runs: the same analyses as Kiwi's default of one thread per
            # core, for fewer CPU-seconds (the whole corpus alone: 146 against 174 with two threads; under pytest -n 2
            # a second thread also contends with the other worker's build: 223 CPU-s in a cold run).
            kiwi = Kiwi(num_workers=1)
        except (ImportError, OSError) as exc:
            raise SegmenterUnavailable(f"kiwipiepy with its model is needed for the Kiwi rows ({type(exc).__name__}: "
                                       f"{exc}); install it with {KIWI_INSTALL}") from None
        versions = {p: metadata.version(p) for p in ("kiwipiepy", "kiwipiepy_model")}
        return _kiwi(kiwi), versions
    raise ValueError(f"unknown segmenter {name!r}; choose one of {SEGMENTERS}")


def _bpe(tok) -> Segment:
    def segment(lines: Sequence[str]) -> list[list[str]]:
        return [tok.convert_ids_to_tokens(ids) for ids in tok(list(lines), add_special_tokens=False)["input_ids"]]
    return segment


def _kiwi(kiwi) -> Segment:
    def segment(lines: Sequence[str]) -> list[list[str]]:
        return [[t.form for t in tokens if not t.tag.startswith(FUNCTION_TAGS)] for tokens in kiwi.tokenize(list(lines))]
    return segment


def word_tokens(segment: Segment, name: str, word: str) -> list[str]:
    """The tokens of ``word`` as it appears in running text: BPE tokenises it after a space (GPT-2 marks the
    space as part of the first token), Kiwi analyses it alone."""
    return segment([" " + word if name == "gpt2_bpe" else word])[0]


@dataclasses.dataclass
class TokenStream:
    """A corpus cut into tokens and indexed as post A indexes its stems (exp. 1)."""

    vocab: list[str]  # [V], most frequent first
    ids: torch.Tensor  # [N] int64: the running text as vocabulary ids, out-of-vocabulary tokens dropped
    tokens: int  # tokens before the vocabulary cut


def index(paragraphs: Sequence[Sequence[str]], *, vocab_size: int = 10_000, min_count: int = 5) -> TokenStream:
    """Post A's vocabulary cut (exp. 1, ``word2vec_zero.py``) applied to tokenised paragraphs.

    Raises:
        ValueError: no token occurs ``min_count`` times.
    """
    freq = collections.Counter(t for tokens in paragraphs for t in tokens)
    vocab = [t for t, c in freq.most_common(vocab_size) if c >= min_count]
    if not vocab:
        raise ValueError(f"no token occurs {min_count} times")
    rows = {t: i for i, t in enumerate(vocab)}
    ids = torch.tensor([rows[t] for tokens in paragraphs for t in tokens if t in rows], dtype=torch.int64)  # [N]
    return TokenStream(vocab=vocab, ids=ids, tokens=sum(freq.values()))


class SegmentedVocabulary:
    """A :class:`llm_claims_lab.analogy.Vocabulary` over a :class:`TokenStream`: a word's rows are those of its
    tokens (:func:`word_tokens`), none when any token is out of the vocabulary."""

    def __init__(self, stream: TokenStream, segment: Segment, name: str) -> None:
        self.words, self.segment, self.name = stream.vocab, segment, name
        self.rows = {t: i for i, t in enumerate(stream.vocab)}
        self.hint = f"not covered by the {name} vocabulary"

    def ids(self, word: str) -> list[int]:
        tokens = word_tokens(self.segment, self.name, word)
        return [self.rows[t] for t in tokens] if tokens and all(t in self.rows for t in tokens) else []

    def token(self, row: int) -> str:
        return self.words[row]
