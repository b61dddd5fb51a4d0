"""The tokenizer rows' pipeline checks (``_require_pipeline`` in ``claims/test_word2vec_tokenizers.py``) stop a row on
each broken pipeline they name, on a three-paragraph corpus in milliseconds: a lookup one row off, a lookup by another
convention than running text, a stream whose ids are not the corpus's tokens in order, a table no training step
reached. The same bugs through the real rows and
tables: ``test_word2vec_rows_catch_bugs.py`` (``*_lookup_shifted``, ``*_table_untrained``,
``gpt2_bpe_lookup_without_space``)."""

from __future__ import annotations

import types

import pytest
import torch
from claims.test_word2vec_tokenizers import _require_pipeline

from llm_claims_lab.word2vec.segmenters import SegmentedVocabulary, index

PARAGRAPHS = ["물리학 이론 실험 물리학", "음악 작품 연주 음악", "전쟁 군대 전투 전쟁 물리학"]


def _segment(lines):
    return [line.split() for line in lines]


def _lab(tmp_path, stream, *, moved: bool = True):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(PARAGRAPHS) + "\n", encoding="utf-8")
    initial = torch.zeros(len(stream.vocab), 4)  # [V, D]
    tables = {"untrained": initial, "trained": initial + 1 if moved else initial.clone()}
    return types.SimpleNamespace(corpus=types.SimpleNamespace(path=path),
                                 segmented_model=lambda name, kind="trained": types.SimpleNamespace(w_in=tables[kind]))


def _check(tmp_path, stream, vocab, **lab):
    details: dict = {}
    _require_pipeline(_lab(tmp_path, stream, **lab), "toy", stream, vocab, ["물리학", "음악", "전쟁", "없는말"], details)
    return details


def _stream():
    stream = index(_segment(PARAGRAPHS), min_count=1)
    return stream, SegmentedVocabulary(stream, _segment, "toy")


def test_a_sound_pipeline_passes(tmp_path):
    stream, vocab = _stream()
    assert "3 of 3 covered words read their own tokens' rows" in _check(tmp_path, stream, vocab)["pipeline checks"]


def test_a_lookup_one_row_off_fails(tmp_path):
    stream, vocab = _stream()
    vocab.rows = {t: i + 1 for t, i in vocab.rows.items() if i + 1 < len(stream.vocab)}
    with pytest.raises(pytest.fail.Exception, match="lookup reads other tokens' rows"):
        _check(tmp_path, stream, vocab)


def test_a_lookup_by_another_convention_than_running_text_fails(tmp_path):
    stream, vocab = _stream()
    vocab.segment = lambda lines: [line.split() if " " in line else ["군대"] for line in lines]  # a word alone: 군대
    with pytest.raises(pytest.fail.Exception, match="not the tokens running text gives them"):
        _check(tmp_path, stream, vocab)


def test_a_stream_out_of_order_fails(tmp_path):
    stream, vocab = _stream()
    stream.ids = stream.ids.flip(0)
    with pytest.raises(pytest.fail.Exception, match="stream's first ids"):
        _check(tmp_path, stream, vocab)


def test_a_table_no_step_reached_fails(tmp_path):
    stream, vocab = _stream()
    with pytest.raises(pytest.fail.Exception, match="is its initial draw"):
        _check(tmp_path, stream, vocab, moved=False)
