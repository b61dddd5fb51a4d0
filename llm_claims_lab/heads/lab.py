"""Two toy experiments on what training does with added positions: head specialisation and subspaces.

Post B, '위치는 왜 embedding에 더해도 되는가' ('어떤 head는 토큰 의미에 강하게 반응하고, 어떤 head는 위치 차이에
민감하게 반응한다'); post A, '더할 것인가, 이어붙일 것인가' ('학습이 위치 성분과 의미 성분을 사실상 다른 부분공간에
배치할 수 있어서').

Letters: B batch, T seq_len (= 2K), D d_model, H heads, K keys, NV values, V vocabulary (K·NV stored tokens,
then K query tokens), C classes of the second target.

Task ``lookup``: a sequence holds K stored tokens, one per key k with a random value v (id ``k·NV + v``), and
the K query tokens (id ``K·NV + k``), in random order. At every position ``i ≥ 1`` predict the token at
``i − 1`` (a positional lookup, V classes); at every query position also predict the value stored under its
key (a content lookup, NV classes). One attention layer solves both: a head that attends to offset −1 and a
head that attends to the stored token whose key matches the query. Task ``positional`` (the control): the same
sequences, targets the tokens at ``i − 1`` and ``i + 1``: no target needs content.

The model is post A's exp. 3 model with H heads: token embedding (``nn.Embedding``, N(0, 1)) and a positional
table, added (``add``) or concatenated (``concat_half``: ``[tok D/2 ‖ pos D/2]``, the same width D;
``concat_full``: ``[tok D ‖ pos D]``, width 2D, post B's 'hidden size가 커지고'), H independent
:class:`~llm_claims_lab.positional.attention.SingleHeadSelfAttention` heads on the whole input (no mask), their outputs
concatenated ``[B, T, H·width]`` and read by one ``Linear`` per target.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from llm_claims_lab.core import cache
from llm_claims_lab.positional import attention
from llm_claims_lab.positional.attention import SingleHeadSelfAttention
from llm_claims_lab.core.subspaces import centred_subspace
from llm_claims_lab.core.devices import one_thread
from llm_claims_lab.positional import (LearnedPositionalEmbedding, SinusoidalPositionalEncoding, absolute,
                                       biases, rope)

TASKS = ("lookup", "positional")
COMBINES = ("add", "concat_half", "concat_full")
PES = ("sinusoidal", "learned")
IGNORE = -100  # cross_entropy's ignore_index: positions without a target
DATA_SEED_OFFSET = 2_000_000  # training batches: seed + this (the same for every arm of one seed: paired)
EVAL_SEED_OFFSET = 3_000_000  # evaluation batches: seed + this, independent of training


@dataclasses.dataclass(frozen=True)
class HeadsConfig:
    """One training protocol; every field has a default.

    Raises:
        ValueError: an unknown ``task``, ``pe`` or ``combine``.
    """

    task: str = "lookup"  # "lookup" (positional + content targets) or "positional" (control: i − 1 and i + 1)
    pe: str = "sinusoidal"  # positional table: "sinusoidal" (post B) or "learned" (post A's choice, randn·0.02)
    combine: str = "add"  # "add", "concat_half" ([tok D/2 ‖ pos D/2]) or "concat_full" ([tok D ‖ pos D])
    keys: int = 8  # K: keys, hence query tokens; T = 2K
    values: int = 8  # NV: values per key
    d_model: int = 32  # D: width of the added input (add, concat_half); concat_full's is 2D
    num_heads: int = 2  # H
    batch_size: int = 32  # sequences per step
    lr: float = 1e-2  # Adam, torch's other defaults
    steps: int = 500  # training steps

    def __post_init__(self) -> None:
        for field, allowed in (("task", TASKS), ("pe", PES), ("combine", COMBINES)):
            if getattr(self, field) not in allowed:
                raise ValueError(f"{field} must be one of {allowed}, got {getattr(self, field)!r}")

    @property
    def seq_len(self) -> int:
        return 2 * self.keys

    @property
    def vocab_size(self) -> int:
        return self.keys * self.values + self.keys

    @property
    def widths(self) -> tuple[int, int, int]:
        """(token width, position width, model width)."""
        d = self.d_model
        return {"add": (d, d, d), "concat_half": (d // 2, d // 2, d), "concat_full": (d, d, 2 * d)}[self.combine]


@dataclasses.dataclass(frozen=True)
class Batch:
    """Sequences and targets: ``x``, ``prev``, ``second`` and ``match`` are ``[B, T]`` (long).
    ``second`` is the content value (lookup) or the token at ``i + 1`` (positional); ``match`` is the
    position of the stored token a query asks for (−1 at stored tokens); ``IGNORE`` where no target."""

    x: torch.Tensor
    prev: torch.Tensor
    second: torch.Tensor
    match: torch.Tensor


def sample(config: HeadsConfig, n: int, g: torch.Generator) -> Batch:
    """``n`` sequences of the task drawn from ``g`` (CPU)."""
    K, NV, T = config.keys, config.values, config.seq_len
    values = torch.randint(0, NV, (n, K), generator=g)  # [n, K]
    items = torch.cat([torch.arange(K) * NV + values, K * NV + torch.arange(K).expand(n, K)], 1)  # [n, T]
    order = torch.rand(n, T, generator=g).argsort(1)  # [n, T]: position p holds item order[p]
    x = items.gather(1, order)  # [n, T]
    key = (order - K).clamp(min=0)  # [n, T]: the key a query position asks for
    is_query = order >= K
    match = torch.where(is_query, order.argsort(1).gather(1, key), -1)  # position of item `key` (stored)
    pad = torch.full((n, 1), IGNORE)
    prev = torch.cat([pad, x[:, :-1]], 1)
    if config.task == "lookup":
        second = torch.where(is_query, values.gather(1, key), IGNORE)
    else:
        second = torch.cat([x[:, 1:], pad], 1)
    return Batch(x, prev, second, match)


class HeadsModel(nn.Module):
    """Embedding, positions added or concatenated, H single-head attentions, two readouts (module docstring).
    ``forward(x: [B, T]) -> (logits_prev [B, T, V], logits_second [B, T, C], attn [B, H, T, T])``."""

    def __init__(self, config: HeadsConfig) -> None:
        super().__init__()
        self.config = config
        tok, pos, width = config.widths
        self.tok_emb = nn.Embedding(config.vocab_size, tok)
        self.pos = (LearnedPositionalEmbedding(config.seq_len, pos) if config.pe == "learned"
                    else SinusoidalPositionalEncoding(pos))
        self.heads = nn.ModuleList(SingleHeadSelfAttention(width) for _ in range(config.num_heads))
        classes = config.values if config.task == "lookup" else config.vocab_size
        self.out_prev = nn.Linear(config.num_heads * width, config.vocab_size)
        self.out_second = nn.Linear(config.num_heads * width, classes)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        """The attention's input ``[B, T, width]`` for tokens ``x: [B, T]``."""
        e, p = self.tok_emb(x), self.pos(x.shape[1])  # [B, T, tok], [T, pos]
        return e + p if self.config.combine == "add" else torch.cat([e, p.expand(x.shape[0], -1, -1)], -1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.embed(x)  # [B, T, W]
        attn = torch.stack([head.logits(h).softmax(-1) for head in self.heads], 1)  # [B, H, T, T]
        values = torch.stack([h @ head.Wv for head in self.heads], 1)  # [B, H, T, W]
        mixed = (attn @ values).transpose(1, 2).flatten(2)  # [B, T, H·W]
        return self.out_prev(mixed), self.out_second(mixed), attn

    def loss(self, batch: Batch) -> torch.Tensor:
        """Sum of the two targets' mean cross-entropies (positions without a target ignored)."""
        prev, second, _ = self(batch.x)
        return (F.cross_entropy(prev.flatten(0, 1), batch.prev.flatten(), ignore_index=IGNORE)
                + F.cross_entropy(second.flatten(0, 1), batch.second.flatten(), ignore_index=IGNORE))


def initial_model(config: HeadsConfig, seed: int) -> HeadsModel:
    """The model before training: torch's initialisers under ``torch.manual_seed(seed)``, inside
    :func:`torch.random.fork_rng` so the caller's global random state is untouched."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return HeadsModel(config)


def train(config: HeadsConfig, seed: int, device: torch.device,
          progress: cache.Progress | None = None) -> cache.Tensors:
    """Train ``config`` from :func:`initial_model` on batches from ``seed + DATA_SEED_OFFSET`` (drawn on the CPU,
    one thread, in the order of the steps, all before the first step and moved to ``device`` at once, so a GPU
    run copies nothing from the host per step); return the trained ``state_dict``."""
    model = initial_model(config, seed).to(device)
    g = torch.Generator().manual_seed(seed + DATA_SEED_OFFSET)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    with one_thread():
        drawn = [dataclasses.astuple(sample(config, config.batch_size, g)) for _ in range(config.steps)]
        batches = [torch.stack(field).to(device) for field in zip(*drawn)]  # each [steps, B, T]
        for step in range(1, config.steps + 1):
            loss = model.loss(Batch(*(field[step - 1] for field in batches)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if progress is not None and (step % 100 == 0 or step == config.steps):
                progress(step, config.steps)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


# What trained weights depend on (their cache fingerprint); evaluation code retrains nothing.
TRAINING_CODE = (HeadsConfig, Batch, sample, HeadsModel, initial_model, train, one_thread, attention, absolute, biases,
                 rope)


def entry(config: HeadsConfig, seed: int, device: torch.device) -> cache.Entry:
    """The cache entry of one training run."""
    spec = {**dataclasses.asdict(config), "seed": seed}
    name = f"heads-{config.task}-{config.pe}-{config.combine}-seed{seed}"
    return cache.Entry(name, cache.fingerprint(spec, code=TRAINING_CODE, device=device),
                       lambda progress: train(config, seed, device, progress))


@dataclasses.dataclass(frozen=True)
class Measures:
    """One trained model on its evaluation batch: ``accuracy`` of each target (fraction, mean of the two),
    per head (``[H]``) the mean attention mass on each offset the task needs (``offsets``: {offset: [H]}) and
    on the stored token a query asks for (``content``)."""

    accuracy: dict[str, float]
    offsets: dict[int, list[float]]
    content: list[float]


@torch.no_grad()
def measure(model: HeadsModel, seed: int, *, sequences: int = 2048) -> Measures:
    """Evaluate ``model`` on ``sequences`` fresh sequences from ``seed + EVAL_SEED_OFFSET``: accuracies and
    attention masses are fractions in [0, 1]. Positions whose content key is an immediate neighbour (offset ±1)
    are left out of the attention scores, so a positional and a content score never share mass."""
    c = model.config
    batch = sample(c, sequences, torch.Generator().manual_seed(seed + EVAL_SEED_OFFSET))
    device = next(model.parameters()).device
    with one_thread():
        prev, second, attn = (t.cpu() for t in model(batch.x.to(device)))  # attn: [B, H, T, T]
    T = c.seq_len
    pos = torch.arange(T)
    near = (batch.match >= 0) & ((batch.match - pos).abs() == 1)  # [B, T]: content key next to the query
    accuracy = {}
    for name, logits, target in (("prev", prev, batch.prev), ("second", second, batch.second)):
        keep = target != IGNORE
        accuracy[name] = (logits.argmax(-1) == target)[keep].float().mean().item()
    accuracy["mean"] = (accuracy["prev"] + accuracy["second"]) / 2
    offsets = {}
    for o in (-1,) if c.task == "lookup" else (-1, 1):
        key = pos + o  # [T]
        ok = ((key >= 0) & (key < T))[None, :] & ~near  # [B, T]
        mass = attn.gather(3, key.clamp(0, T - 1)[None, None, :, None].expand(*attn.shape[:3], 1))[..., 0]
        offsets[o] = [mass[:, h][ok].mean().item() for h in range(c.num_heads)]
    query = (batch.match >= 0) & ~near  # [B, T]
    content = attn.gather(3, batch.match.clamp(min=0)[:, None, :, None].expand(*attn.shape[:3], 1))[..., 0]
    return Measures(accuracy, offsets, [content[:, h][query].mean().item() for h in range(c.num_heads)])


def specialisation(m: Measures) -> dict[str, float]:
    """Which head is positional and what the other does: ``positional`` is the largest positional score
    (mass on one of the task's offsets) of any head; ``content`` the content score of every other head (its
    largest); ``least_positional`` the smallest positional score of any head."""
    per_head = [max(m.offsets[o][h] for o in m.offsets) for h in range(len(m.content))]
    best = max(range(len(per_head)), key=per_head.__getitem__)
    others = [m.content[h] for h in range(len(per_head)) if h != best]
    return {"positional": per_head[best], "content": max(others), "least_positional": min(per_head)}


def subspace_angle(model: HeadsModel, k: int) -> float:
    """Smallest principal angle, in degrees, between the ``k``-dimensional leading subspaces of the token
    table (``[V, D]``) and the position table (``[T, D]``) of an ``add`` model (scipy's ``subspace_angles``).

    Raises:
        ValueError: a model that concatenates its tables (they live in different coordinates by construction).
    """
    if model.config.combine != "add":
        raise ValueError("token and position rows share one space only when they are added")
    from scipy.linalg import subspace_angles  # imported on use, as llm_claims_lab.core.stats imports scipy

    tok, pos = model.tok_emb.weight.detach().cpu(), model.pos(model.config.seq_len).detach().cpu()
    angles = subspace_angles(centred_subspace(tok, k).numpy(), centred_subspace(pos, k).numpy())
    return math.degrees(float(angles.min()))


CALIBRATION = "heads.json"  # the CPU's, in the calibration directory (calibrate_heads.py; heads-<type>.json off it)
SEEDS = 10  # trained seeds per configuration: the run's seed and the nine after it
SPECIALISATION = HeadsConfig()  # post B's setting: sinusoidal PE added
CONTROL = dataclasses.replace(SPECIALISATION, task="positional")  # same sequences, no content target
ADD = dataclasses.replace(SPECIALISATION, pe="learned")  # post A's choice of table (its series, GPT-2's)
CONCAT = {combine: dataclasses.replace(ADD, combine=combine) for combine in ("concat_half", "concat_full")}


class HeadsLab:
    """Trained models of ``seeds`` (the suite's: its run plan's seeds, at least :data:`SEEDS` of them) per
    configuration, each trained once through ``weights`` (a :class:`llm_claims_lab.core.cache.WeightCache`) and
    measured once per process."""

    def __init__(self, weights: cache.WeightCache, device: torch.device, seeds: Sequence[int]) -> None:
        self.weights, self.device = weights, torch.device(device)
        self.seeds = list(seeds)
        self._models: dict[tuple[HeadsConfig, int], HeadsModel] = {}  # (config, seed) -> trained model
        self._measures: dict[HeadsConfig, list[Measures]] = {}

    def models(self, config: HeadsConfig) -> list[HeadsModel]:
        """The trained models of ``config``, one per seed (on ``device``)."""
        return self.weights.fetch_once(self._models, [(config, s) for s in self.seeds],
                                       lambda key: entry(*key, self.device), self._model)

    def _model(self, key: tuple[HeadsConfig, int], _: cache.Entry, state: cache.Tensors) -> HeadsModel:
        """The trained model of ``key`` (config, seed) from its saved ``state_dict``, on ``device``."""
        model = initial_model(*key)
        model.load_state_dict(state)
        return model.to(self.device).eval()

    def measures(self, config: HeadsConfig) -> list[Measures]:
        """:func:`measure` of every seed's model of ``config``."""
        if config not in self._measures:
            self._measures[config] = [measure(m, s) for m, s in zip(self.models(config), self.seeds)]
        return self._measures[config]
