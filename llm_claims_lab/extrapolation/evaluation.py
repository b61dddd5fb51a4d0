"""What a trained model of the length-extrapolation duel measures: accuracy by position and attention by
offset on independent evaluation batches (:func:`evaluate`, :class:`Run`, :func:`measures`), and the probes
of its positional table and relative bias.

Letters: N evaluation sequences, L evaluation length, V vocab_size, D d_model.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

import torch
import torch.nn.functional as F

from llm_claims_lab.extrapolation.model import ExtrapolationConfig, ExtrapolationModel
from llm_claims_lab.core.devices import one_thread
from llm_claims_lab.positional import relative_offsets
from llm_claims_lab.core.stats import standard_error

EVAL_SEQUENCES = 16384  # random sequences per evaluation length (post A: 4096; 4× keeps eval noise below seed noise)
EVAL_SEED_OFFSET = 1_000_000  # evaluation batches come from seed + this, independent of training's stream
PerLength = dict[int, torch.Tensor]  # evaluation length L -> a tensor measured at that length


def eval_generator(seed: int, device: torch.device) -> torch.Generator:
    """The generator of the evaluation batches: seeded with ``seed + EVAL_SEED_OFFSET``, so they are
    independent of the training stream (post A draws them from the training stream after training)."""
    return torch.Generator(device).manual_seed(seed + EVAL_SEED_OFFSET)


def eval_batch(config: ExtrapolationConfig, seed: int, L: int, device: torch.device, *,
               sequences: int = EVAL_SEQUENCES) -> torch.Tensor:
    """The evaluation sequences of length ``L``: ``[N, L]`` token ids, the batch :func:`evaluate` draws for ``L``
    when it evaluates ``config.eval_lens`` in order from ``eval_generator(seed)`` (the batches of the lengths
    before ``L`` are drawn and dropped, so a length can be evaluated on its own).

    Raises:
        ValueError: ``L`` not among ``config.eval_lens``.
    """
    if L not in config.eval_lens:
        raise ValueError(f"length {L} is not evaluated for {config.scheme!r} (lengths {config.eval_lens})")
    g = eval_generator(seed, device)
    for length in config.eval_lens:
        x = torch.randint(0, config.vocab_size, (sequences, length), generator=g, device=device)  # [N, length]
        if length == L:
            return x
    raise AssertionError("unreachable")


@torch.no_grad()
def evaluate_batch(model: ExtrapolationModel, x: torch.Tensor, *,
                   chunk: int = 512) -> tuple[torch.Tensor, torch.Tensor]:
    """Measure ``model`` on the sequences ``x: [N, L]``:

    - correctness ``[N, L − 1]`` (bool, on the CPU), position ``i`` of sequence ``n`` predicting token ``i + 1``;
    - attention by offset ``[2L − 1]`` (on the CPU), mean weight a query puts on the key at ``j − i``
      (offsets ``−(L−1) … L−1``, averaged over heads), over the queries that have such a key.

    Chunks of ``chunk`` sequences bound memory and do not change any result.
    """
    sequences, L = x.shape
    hits, attn_sum = [], torch.zeros(L, L, device=x.device)
    for part in x.split(chunk):
        logits, attn = model.forward_with_attention(part)  # [chunk, L, V], [chunk, L, L]
        hits.append((logits[:, :-1].argmax(-1) == part[:, 1:]).cpu())  # [chunk, L − 1]
        attn_sum += attn.sum(0)
    offsets = relative_offsets(L, L, device=x.device) + L - 1  # [L, L]: index of j − i
    per_offset = attn_sum.new_zeros(2 * L - 1).index_add_(0, offsets.flatten(), attn_sum.flatten())
    counts = torch.bincount(offsets.flatten(), minlength=2 * L - 1)  # queries having each offset
    return torch.cat(hits), (per_offset / (sequences * counts)).cpu()


def evaluate(model: ExtrapolationModel, seed: int, lens: Sequence[int], *,
             sequences: int = EVAL_SEQUENCES) -> tuple[PerLength, PerLength]:
    """Correctness ``{L: [N, L − 1]}`` and attention by offset ``{L: [2L − 1]}`` (see :func:`evaluate_batch`) at
    each length of ``lens`` (a subset of ``model.config.eval_lens``), on the batches of :func:`eval_batch`."""
    device = next(model.parameters()).device
    measured = {L: evaluate_batch(model, eval_batch(model.config, seed, L, device, sequences=sequences))
                for L in lens}
    return {L: m[0] for L, m in measured.items()}, {L: m[1] for L, m in measured.items()}


class Evaluation(Mapping[int, torch.Tensor]):
    """One of a run's per-length measurements (``part`` 0: correctness, 1: attention by offset), each length
    computed on first use by ``compute(L) -> (correctness, attention)`` and kept; shared by the two parts.
    Its keys are the lengths the run can be evaluated at (asking for one computes nothing)."""

    def __init__(self, lens: Sequence[int], compute: Callable[[int], tuple[torch.Tensor, torch.Tensor]],
                 part: int, memo: dict[int, tuple[torch.Tensor, torch.Tensor]] | None = None) -> None:
        self.lens, self.compute, self.part = tuple(lens), compute, part
        self.memo = {} if memo is None else memo

    def sibling(self, part: int) -> Evaluation:
        """The other part, sharing this one's computations."""
        return Evaluation(self.lens, self.compute, part, self.memo)

    def __getitem__(self, L: int) -> torch.Tensor:
        if L not in self.lens:
            raise KeyError(L)
        if L not in self.memo:
            self.memo[L] = self.compute(L)
        return self.memo[L][self.part]

    def __contains__(self, L: object) -> bool:  # Mapping's would compute the length
        return L in self.lens

    def __iter__(self) -> Iterator[int]:
        return iter(self.lens)

    def __len__(self) -> int:
        return len(self.lens)


@dataclasses.dataclass
class Run:
    """One trained model of the protocol and what its evaluation measured (see :func:`evaluate`)."""

    config: ExtrapolationConfig
    seed: int
    steps: int
    model: ExtrapolationModel
    correct: Mapping[int, torch.Tensor]  # L -> [N, L − 1] bool, per evaluation sequence and position
    attention: Mapping[int, torch.Tensor]  # L -> [2L − 1], mean attention weight per offset j − i

    def accuracy(self, L: int) -> torch.Tensor:
        """Accuracy per position at length ``L``: ``[L − 1]``, %."""
        return 100 * self.correct[L].double().mean(0)

    def _positions(self, part: str, L: int) -> slice | list[int]:
        T, held = self.config.train_len, list(self.config.held_out)
        if part in ("held", "kept"):  # the query positions the loss left out, and the others
            return held if part == "held" else [i for i in range(L - 1) if i not in held]
        return {"acc": slice(None), "seen": slice(None, T - 1), "new": slice(T - 1, None)}[part]

    def score(self, part: str, L: int) -> tuple[float, float]:
        """Accuracy at length ``L`` (%) on ``part`` — ``acc`` all positions (the post's ``전체``),
        ``seen`` positions ``0 … train_len − 2`` (``본 위치``), ``new`` the rest (``새 위치``), ``held`` the query
        positions the loss left out (:attr:`ExtrapolationConfig.held_out`), ``kept`` the others — and its
        evaluation noise: the standard error over the ``N`` independent evaluation sequences (pp)."""
        per_sequence = 100 * self.correct[L][:, self._positions(part, L)].double().mean(1)  # [N]
        return per_sequence.mean().item(), standard_error(per_sequence.std(), len(per_sequence)).item()

    def total(self, L: int) -> float:
        """Accuracy at length ``L`` over all positions (%), the post's ``전체``."""
        return self.score("acc", L)[0]


_QUANTITY = re.compile(r"(acc|seen|new|held|kept)(\d+)(_eval_se)?")


def quantities(run: Run) -> list[str]:
    """The names :func:`measure` knows for ``run``: ``acc{L}``, ``seen{L}``, ``new{L}`` (%) for each evaluated
    length (seen/new past the training length only; held/kept at the training length of a run with held-out
    positions), each with ``{name}_eval_se``, its evaluation noise (pp); ``attn_right``; ``positional_peak_gap``
    (additive tables only)."""
    names = []
    for L in run.config.eval_lens:
        parts = ("acc", "seen", "new") if L > run.config.train_len else ("acc", "held", "kept") if \
            run.config.held_out else ("acc",)
        for part in parts:
            names += [f"{part}{L}", f"{part}{L}_eval_se"]
    names.append("attn_right")
    if run.model.pos.kind == "additive":
        names.append("positional_peak_gap")
    return names


def measure(run: Run, name: str) -> float:
    """One headline number of the run (see :func:`quantities`): ``acc{L}``, ``seen{L}``, ``new{L}`` (%, see
    :meth:`Run.score`) and their ``_eval_se`` (pp); ``attn_right``, the mean attention weight on the right
    neighbour (offset +1) at ``train_len``; ``positional_peak_gap`` (:func:`positional_peak_gap`). Evaluates
    only the length the name reads.

    Raises:
        KeyError: a name :func:`quantities` does not list for this run.
    """
    if name not in quantities(run):
        raise KeyError(f"{name!r} is not measured for {run.config.scheme!r}; known: {quantities(run)}")
    if name == "attn_right":
        T = run.config.train_len
        return run.attention[T][T].item()  # index T − 1 is offset 0
    if name == "positional_peak_gap":
        return positional_peak_gap(run.model)
    part, L, noise = _QUANTITY.fullmatch(name).groups()
    return run.score(part, int(L))[1 if noise else 0]


def measures(run: Run) -> dict[str, float]:
    """Every quantity of :func:`quantities` (this evaluates every length)."""
    return {name: measure(run, name) for name in quantities(run)}


def positional_peak_gap(model: ExtrapolationModel) -> float:
    """How much better the positional part of the logits points at the right neighbour on trained
    queries than on new ones (post A, exp. 3: ``PE(i)ᵀ Wq Wkᵀ PE(j)`` is not a function of ``j − i``).

    Over keys ``0 … max_len − 1``, the fraction of queries ``i`` whose largest positional logit
    ``P_i Wq Wkᵀ P_jᵀ`` is at ``j = i + 1``: on the trained queries ``0 … train_len − 2`` minus on the
    new ones ``train_len − 1 … max_len − 2``. Unit: fraction (−1 … 1). Computed in float64.
    """
    c = model.config
    with torch.no_grad():
        P = model.pos(c.max_len).double().cpu()  # [L, D]
        w = (model.attn.Wq.double() @ model.attn.Wk.double().T).cpu()  # [D, D]
        form = P @ w @ P.T  # [L, L]: query i, key j
        hit = (form[:-1].argmax(-1) == torch.arange(1, c.max_len)).double()  # [L − 1]
    T = c.train_len
    return (hit[: T - 1].mean() - hit[T - 1:].mean()).item()


def order_blind_ceiling(x: torch.Tensor, vocab_size: int, *, chunk: int = 2048) -> float:
    """The expected accuracy (%) at the right-neighbour task of the best model blind to order, on sequences
    ``x: [N, L]`` of i.i.d. tokens: one whose prediction at position ``i`` depends on the token ``x_i`` and on
    the sequence's multiset of tokens ``M`` only, as attention without positions and without a mask does
    (:class:`~llm_claims_lab.positional.NoPositionalEncoding`).

    With i.i.d. tokens every order of ``M`` is equally likely, so the token after a position holding ``a`` is
    any other slot of ``M``: ``P(x_{i+1} = t | x_i = a, M) = (c_t − [t = a]) / (L − 1)``, ``c_t`` the count of
    ``t`` in ``M``. The best such model predicts the ``t`` with the largest count and is right with that
    probability; the ceiling averages it over the ``N·(L − 1)`` predictions. A model blind to order scores at
    most this, up to its evaluation noise (the same sequences' standard error). Integer counts, no model involved.
    """
    V, L, total = vocab_size, x.shape[1], 0
    for part in x.split(chunk):  # [n, L]
        counts = torch.zeros(len(part), V, dtype=torch.int64, device=x.device)  # [n, V]: c_t per sequence
        counts.scatter_add_(1, part, torch.ones_like(part))
        others = counts[:, None, :] - F.one_hot(part[:, :-1], V)  # [n, L − 1, V]: M less the query's own slot
        total += others.amax(-1).sum().item()
    return 100 * total / (x.shape[0] * (L - 1) ** 2)


@torch.no_grad()
def correct_with_offsets_masked(model: ExtrapolationModel, seed: int, L: int, max_offset: int | None, *,
                                sequences: int = EVAL_SEQUENCES, chunk: int = 512) -> torch.Tensor:
    """Correctness ``[N, L − 1]`` (bool) of a one-head bias scheme (post A's ``rel``) at length ``L``, with every
    key at ``|j − i| > max_offset`` removed from the attention (logit −∞; ``None``: nothing removed).

    The sequences are those :func:`evaluate` draws for ``Run.correct[L]`` (``eval_generator(seed)``, lengths
    in the order of ``config.eval_lens``), so masked and unmasked scores are paired sequence by sequence.
    Computed step by step as post A writes the forward pass
    (:meth:`~llm_claims_lab.extrapolation.model.ExtrapolationModel.forward_plain`), with
    the mask added to the bias. Evaluation only: nothing here enters the training fingerprint.

    Raises:
        ValueError: a scheme that is not a one-head attention bias, or ``L`` not among the evaluated lengths.
    """
    c = model.config
    if model.pos.kind != "bias" or c.num_heads != 1:
        raise ValueError(f"offsets can be masked only for a one-head attention bias, not {c.scheme!r}")
    device = next(model.parameters()).device
    x = eval_batch(c, seed, L, device, sequences=sequences)  # [N, L]: the batch of Run.correct[L]
    bias = model.pos(L, L)  # [1, L, L]
    if max_offset is not None:
        bias = bias.masked_fill(relative_offsets(L, L, device=device).abs() > max_offset, -math.inf)
    hits = []
    with one_thread() if device.type == "cpu" else contextlib.nullcontext():
        for part in x.split(chunk):
            logits = model.out(model.attn(model.tok_emb(part), bias=bias))  # [chunk, L, V]
            hits.append((logits[:, :-1].argmax(-1) == part[:, 1:]).cpu())  # [chunk, L − 1]
    return torch.cat(hits)


def relative_bias_probes(bias: torch.Tensor, max_len: int, train_len: int) -> dict[str, float]:
    """What ``extrap.relative_bias_table`` reads from a trained relative bias ``[2·max_len − 1]`` (index
    ``o + max_len − 1`` for offset ``o``; post A's ``rel`` table): the bias at −1 (``bias_minus1``), at +1
    (``bias_plus1``), the larger of ±5 (``bias_five``), and the trained offset (``|o| < train_len``) where it is
    largest (``argmax_offset``). Used on one seed's table (calibration) and on a mean over seeds (the claim)."""
    at = lambda o: bias[o + max_len - 1].item()  # noqa: E731
    trained = torch.arange(1 - train_len, train_len)  # [2·train_len − 1] offsets
    return {"bias_minus1": at(-1), "bias_plus1": at(1), "bias_five": max(at(-5), at(5)),
            "argmax_offset": int(trained[bias[trained + max_len - 1].argmax()])}
