"""Post A's exp. 1 as a session resource: the corpus, and skip-gram tables trained once through the cache.

Letters: V vocabulary, D dim.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Sequence
from pathlib import Path

import torch

from llm_claims_lab.word2vec import corpus, segmenters, skipgram, stemming
from llm_claims_lab.word2vec.topical import ParagraphIncidence
from llm_claims_lab.core.cache import Entry, Progress, WeightCache, code_digest, digest, fingerprint
from llm_claims_lab.core.calibration_files import committed_calibration
from llm_claims_lab.core.json_files import InputFileError, read_json, rewrite_hint


@dataclasses.dataclass
class Trained:
    """One trained (or untrained) skip-gram model: ``w_in: [V, D]`` (the table post A keeps),
    ``losses`` every 100 steps (empty when untrained), the centre table after fewer steps (``snapshots``:
    step -> ``[V, D]``, the config's ``snapshots``; empty when untrained), and the context table ``w_out: [V, D]``
    (None where not kept: untrained, or a segmented corpus's)."""

    w_in: torch.Tensor
    losses: list[float]
    snapshots: dict[int, torch.Tensor] = dataclasses.field(default_factory=dict)
    w_out: torch.Tensor | None = None


# The trained kinds: how each departs from post A's protocol (SkipGramConfig fields)
KINDS = {"trained": {}, "shuffled": {"shuffle_corpus": True}, "sequential": {"centre_order": "sequential"}}

# What a skip-gram model's weights depend on besides its configuration (in every cache entry's fingerprint)
TRAINING_CODE = (skipgram.SkipGramConfig, skipgram.Lookup, skipgram.SkipGram, skipgram.sample_batch, skipgram.train,
                 corpus.build_corpus, stemming)


class Word2VecLab:
    """The corpus of post A's exp. 1 and the skip-gram models the claims compare: ``trained`` (post A's
    protocol), ``untrained`` (the same initial table, no step taken), ``shuffled`` (the protocol on a
    randomly permuted corpus: word frequencies kept, word order gone) and ``sequential`` (the protocol with centres
    taken in corpus order, :data:`~llm_claims_lab.word2vec.skipgram.CENTRE_ORDERS`); and the protocol on the same text cut
    by another segmenter (:meth:`segmented_model`: GPT-2's BPE or Kiwi's morphemes instead of stems).

    ``seeds``: the run's seeds (``--claims-seed`` and the ``--claims-seeds`` − 1 after it); :meth:`model` is the
    first seed's, :meth:`models` one per seed. Random draws happen inside :func:`torch.random.fork_rng`, so
    building a model leaves the process's global stream as it was.

    Raises:
        ValueError: no seed given.
    """

    def __init__(self, data: corpus.Corpus, cache: WeightCache, device: torch.device, *,
                 kernels: str, seeds: Sequence[int]) -> None:
        if not seeds:
            raise ValueError("Word2VecLab needs at least one seed")
        self.corpus, self.cache, self.device, self.seeds = data, cache, device, list(seeds)
        self.config = skipgram.SkipGramConfig(kernels=kernels, seed=self.seeds[0])
        self._models: dict[tuple[str, int], Trained] = {}
        self._streams: dict[str, tuple[segmenters.TokenStream, segmenters.SegmentedVocabulary]] = {}

    def model(self, kind: str) -> Trained:
        """``kind``: ``trained``, ``untrained``, ``shuffled`` or ``sequential``.

        Raises:
            ValueError: an unknown kind.
        """
        return self._model(kind, self.seeds[0])

    def models(self, kind: str) -> list[Trained]:
        """:meth:`model` ``kind`` for every seed of the run, in seed order.

        Raises:
            ValueError: an unknown kind.
        """
        return [self._model(kind, seed) for seed in self.seeds]

    @functools.cached_property
    def paragraphs(self) -> ParagraphIncidence:
        """Which vocabulary stems occur in which paragraphs of the corpus (counted once, on first use): the topical
        relatedness the neighbour rows judge tables by (:mod:`llm_claims_lab.word2vec.topical`)."""
        return ParagraphIncidence(self.corpus.paragraph_ids, len(self.corpus.vocab))

    def untrained_tables(self, count: int) -> list[torch.Tensor]:
        """The untrained centre tables ``[V, D]`` of ``count`` seeds from the run's first (each drawn as post A
        draws the trained model's initial table; not kept): the null distribution of a measure on a table that
        learned nothing, for the controls.

        Raises:
            ValueError: ``count`` < 1.
        """
        if count < 1:
            raise ValueError(f"count must be ≥ 1, got {count}")
        return [self._load("untrained", dataclasses.replace(self.config, seed=self.seeds[0] + i)).w_in
                for i in range(count)]

    def fingerprints(self) -> dict[str, str]:
        """The digest (:func:`llm_claims_lab.core.cache.digest`) of each trained table's cache fingerprint, by kind and
        seed (``skip-gram trained, seed 42``): corpus, vocabulary, configuration, code, torch and device; its cache
        file is ``<name>-<the digest's first 16 hex>.safetensors``."""
        return {f"skip-gram {kind}, seed {seed}": digest(self._entry(dataclasses.replace(
                    self.config, seed=seed, **KINDS[kind])).fingerprint)
                for kind in KINDS for seed in self.seeds}

    def _model(self, kind: str, seed: int) -> Trained:
        if (kind, seed) not in self._models:
            self._models[kind, seed] = self._load(kind, dataclasses.replace(self.config, seed=seed))
        return self._models[kind, seed]

    def _load(self, kind: str, config: skipgram.SkipGramConfig) -> Trained:
        if kind == "untrained":
            return _initial(len(self.corpus.vocab), config)
        if kind not in KINDS:
            raise ValueError(f"unknown model kind {kind!r}; use trained, untrained, shuffled or sequential")
        cfg = dataclasses.replace(config, **KINDS[kind])
        tensors = self.cache.fetch(self._entry(cfg))
        return Trained(tensors["w_in"], tensors["losses"].tolist(),
                       {step: tensors[f"w_in_step{step}"] for step in cfg.snapshots if step <= cfg.steps},
                       tensors["w_out"])

    def _trainer(self, ids: torch.Tensor, vocab_size: int, cfg: skipgram.SkipGramConfig):
        """The build function of a cache entry: train ``cfg`` on ``ids: [N]``, keep both tables and the losses."""
        def build(progress: Progress) -> dict[str, torch.Tensor]:
            # skipgram.train seeds torch's global generators as post A does; forked, so the process's are kept
            forked = list(range(torch.cuda.device_count())) if torch.device(self.device).type == "cuda" else []
            with torch.random.fork_rng(devices=forked):
                model, losses, kept = skipgram.train(ids, vocab_size, cfg, self.device,
                                                     progress=lambda step, loss: progress(step, cfg.steps))
            return {"w_in": model.w_in.weight.detach(), "w_out": model.w_out.weight.detach(),
                    "losses": torch.tensor(losses), **{f"w_in_step{step}": table for step, table in kept.items()}}
        return build

    def _entry(self, cfg: skipgram.SkipGramConfig) -> Entry:
        data = self.corpus
        build = self._trainer(data.ids, len(data.vocab), cfg)
        # The vocabulary itself, not just its size: a change to the particle stripper can reorder it.
        vocab_sha256 = hashlib.sha256("\n".join(data.vocab).encode("utf-8")).hexdigest()
        config = {**dataclasses.asdict(cfg), "corpus_sha256": data.sha256, "vocab_sha256": vocab_sha256}
        name = "skipgram" + "-shuffled" * cfg.shuffle_corpus + "-sequential" * (cfg.centre_order == "sequential")
        return Entry(name, fingerprint(config, code=TRAINING_CODE, device=self.device), build)

    def segmented(self, name: str) -> tuple[segmenters.TokenStream, segmenters.SegmentedVocabulary]:
        """The corpus cut by segmenter ``name`` (:data:`llm_claims_lab.word2vec.segmenters.SEGMENTERS`) and indexed as post A
        indexes stems, and its vocabulary; segmented once and kept in the cache (Kiwi takes minutes).

        Raises:
            llm_claims_lab.word2vec.segmenters.SegmenterUnavailable: the segmenter is not installed.
        """
        loaded: dict[str, tuple[segmenters.Segment, dict[str, str]]] = {}  # name -> segmenters.load(name)

        def entry(name: str) -> Entry:
            segment, versions = loaded[name] = segmenters.load(name)
            paragraphs = corpus.read_paragraphs(self.corpus.path)

            def build(progress: Progress) -> dict[str, torch.Tensor]:
                stream = segmenters.index(segment(paragraphs))
                text = "\n".join(stream.vocab).encode("utf-8")
                return {"ids": stream.ids, "vocab_utf8": torch.frombuffer(bytearray(text), dtype=torch.uint8),
                        "tokens": torch.tensor([stream.tokens])}

            config = {"segmenter": name, "corpus_sha256": self.corpus.sha256, **versions}
            code = [segmenters, corpus.read_paragraphs]
            return Entry(f"corpus-{name}", fingerprint(config, code=code, device="cpu"),
                         build)

        def load(name: str, _: Entry, saved: dict[str, torch.Tensor]):
            stream = segmenters.TokenStream(vocab=bytes(saved["vocab_utf8"].tolist()).decode("utf-8").split("\n"),
                                            ids=saved["ids"], tokens=int(saved["tokens"]))
            return stream, segmenters.SegmentedVocabulary(stream, loaded[name][0], name)

        return self.cache.fetch_once(self._streams, [name], entry, load)[0]

    def segmented_model(self, name: str, kind: str = "trained") -> Trained:
        """Post A's protocol (the ``trained`` model's config) on the corpus cut by segmenter ``name``; ``kind``
        ``untrained``: that model's initial table, no step taken (not cached: it is drawn in milliseconds).

        Raises:
            llm_claims_lab.word2vec.segmenters.SegmenterUnavailable: the segmenter is not installed.
            ValueError: a kind other than ``trained`` or ``untrained``.
        """
        if kind == "untrained":
            return _initial(len(self.segmented(name)[0].vocab), self.config)
        if kind != "trained":
            raise ValueError(f"unknown model kind {kind!r} for a segmented corpus; use trained or untrained")
        def entry(key: tuple[str, int]) -> Entry:
            stream, _ = self.segmented(name)
            cfg = self.config
            build = self._trainer(stream.ids, len(stream.vocab), cfg)
            # The token stream itself (vocabulary and ids), not the segmenter's code: an edit that leaves the
            # stream unchanged re-segments (cheap) but retrains nothing.
            vocab_sha256 = hashlib.sha256("\n".join(stream.vocab).encode("utf-8")).hexdigest()
            ids_sha256 = hashlib.sha256(stream.ids.numpy().tobytes()).hexdigest()
            config = {**dataclasses.asdict(cfg), "segmenter": name, "corpus_sha256": self.corpus.sha256,
                      "vocab_sha256": vocab_sha256, "ids_sha256": ids_sha256}
            code = [skipgram.SkipGramConfig, skipgram.Lookup, skipgram.SkipGram, skipgram.sample_batch,
                    skipgram.train]
            return Entry(f"skipgram-{name}", fingerprint(config, code=code, device=self.device), build)

        return self.cache.fetch_once(self._models, [(f"trained-{name}", self.config.seed)], entry,
                                     lambda key, _, tensors: Trained(tensors["w_in"], tensors["losses"].tolist()))[0]


def _initial(vocab_size: int, config: skipgram.SkipGramConfig) -> Trained:
    """The initial centre table ``[V, D]`` of a model trained with ``config``, drawn as post A draws it (and as
    :func:`llm_claims_lab.word2vec.skipgram.train` does) in a forked random stream."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        return Trained(skipgram.SkipGram(vocab_size, config.dim).w_in.weight.detach(), [])


CALIBRATION = "word2vec.json"  # the CPU's, in the calibration directory (word2vec-<type>.json off it)


def seed_noise(quantity: str, kernels: str, path: Path, *, fallback: str = "") -> tuple[float, str]:
    """The SD over training seeds disjoint from the run's of a WS-353 ρ of post A's protocol (``quantity``:
    ``trained``, ``shuffled``, ``sequential``, ``trained − shuffled``, or ``trained@STEP`` after a snapshot step), or
    of a recency gap (``recency gap: sequential − random``, w2v.centre_order's), committed by
    ``calibration/calibrate_word2vec.py`` to ``path`` (the suite's: ``<rootdir>/calibration/word2vec.json``, or
    the run's device type's, :func:`seed_noise_for`), and a note saying where it comes from (the file, and whether
    it was measured under today's training code and kernels); ``fallback``, why ``path`` is not the calibration of
    the run's device type, is appended to it.

    Raises:
        llm_claims_lab.core.json_files.InputFileError: the file is missing (no calibration), not JSON, or lacks what
            this reads, ``quantity`` included; the message names it and the script.
    """
    fix = rewrite_hint("calibrate_word2vec.py", path)
    data = read_json(path, required={"seeds": list, "torch": str, "training_code": str, "kernels": str, "sd": dict},
                     fix=fix)
    if not isinstance(data["sd"].get(quantity), (int, float)):
        raise InputFileError(f"{path} has no SD of {quantity!r}; {fix}")
    what = "the recency gap" if quantity.startswith("recency gap") else "ρ"
    note = f"SD of {what} over training seeds {data['seeds'][0]}–{data['seeds'][-1]} ({path.name}, torch {data['torch']})"
    if data["training_code"] != code_digest(TRAINING_CODE) or data["kernels"] != kernels:
        note += (f"; calibrated under training code {data['training_code'][:12]} with {data['kernels']} kernels, "
                 "not today's (rerun calibration/calibrate_word2vec.py)")
    if fallback:
        note += f"; {fallback}"
    return data["sd"][quantity], note


def seed_noise_for(quantity: str, kernels: str, device: torch.device | str, directory: Path) -> tuple[float, str]:
    """:func:`seed_noise` from the calibration that judges a run on ``device``: ``word2vec-<device type>.json`` in
    ``directory`` (the calibration directory) when committed (``calibrate_word2vec.py --device``), else
    ``word2vec.json``, the CPU's, the note saying so
    (:func:`llm_claims_lab.core.calibration_files.committed_calibration`).

    Raises:
        llm_claims_lab.core.json_files.InputFileError: as :func:`seed_noise`.
    """
    path, fallback = committed_calibration(CALIBRATION, device, directory)
    return seed_noise(quantity, kernels, path, fallback=fallback)
