"""What a trained model of the length-extrapolation duel measures: accuracy by position and attention by
offset on independent evaluation batches (:func:`evaluate`, :class:`Run`, :func:`measures`), and the probes
of its positional table and relative bias.

Letters: N evaluation sequences, L evaluation length, V vocab_size, D d_model.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Sequence

import torch

from llm_claims_lab.extrapolation.model import ExtrapolationConfig, ExtrapolationModel
from llm_claims_lab.extrapolation.training import one_thread
from llm_claims_lab.positional import relative_offsets
from llm_claims_lab.stats import standard_error

EVAL_SEQUENCES = 16384  # random sequences per evaluation length (post A: 4096; 4× keeps eval noise below seed noise)
EVAL_SEED_OFFSET = 1_000_000  # evaluation batches come from seed + this, independent of training's stream
PerLength = dict[int, torch.Tensor]  # evaluation length L -> a tensor measured at that length


def eval_generator(seed: int, device: torch.device) -> torch.Generator:
    """The generator of the evaluation batches: seeded with ``seed + EVAL_SEED_OFFSET``, so they are
    independent of the training stream (post A draws them from the training stream after training)."""
    return torch.Generator(device).manual_seed(seed + EVAL_SEED_OFFSET)


@torch.no_grad()
def evaluate(model: ExtrapolationModel, g: torch.Generator, lens: Sequence[int], *,
             sequences: int = EVAL_SEQUENCES, chunk: int = 512) -> tuple[PerLength, PerLength]:
    """Draw ``sequences`` random sequences per length from ``g`` (in the order of ``lens``) and measure:

    - correctness: ``{L: [N, L − 1]}`` (bool), position ``i`` of sequence ``n`` predicting token ``i + 1``;
    - attention by offset: ``{L: [2L − 1]}``, mean weight a query puts on the key at ``j − i``
      (offsets ``−(L−1) … L−1``, averaged over heads), over the queries that have such a key.

    Chunks of ``chunk`` sequences bound memory and do not change any result.
    """
    device = next(model.parameters()).device
    correct, by_offset = {}, {}
    for L in lens:
        x = torch.randint(0, model.config.vocab_size, (sequences, L), generator=g, device=device)  # [N, L]
        hits, attn_sum = [], torch.zeros(L, L, device=device)
        for part in x.split(chunk):
            logits, attn = model.forward_with_attention(part)  # [chunk, L, V], [chunk, L, L]
            hits.append((logits[:, :-1].argmax(-1) == part[:, 1:]).cpu())  # [chunk, L − 1]
            attn_sum += attn.sum(0)
        correct[L] = torch.cat(hits)  # [N, L − 1]
        offsets = relative_offsets(L, L, device=device) + L - 1  # [L, L]: index of j − i
        per_offset = attn_sum.new_zeros(2 * L - 1).index_add_(0, offsets.flatten(), attn_sum.flatten())
        counts = torch.bincount(offsets.flatten(), minlength=2 * L - 1)  # queries having each offset
        by_offset[L] = (per_offset / (sequences * counts)).cpu()
    return correct, by_offset


@dataclasses.dataclass
class Run:
    """One trained model of the protocol and what its evaluation measured (see :func:`evaluate`)."""

    config: ExtrapolationConfig
    seed: int
    steps: int
    model: ExtrapolationModel
    correct: PerLength  # L -> [N, L − 1] bool, per evaluation sequence and position
    attention: PerLength  # L -> [2L − 1], mean attention weight per offset j − i

    def accuracy(self, L: int) -> torch.Tensor:
        """Accuracy per position at length ``L``: ``[L − 1]``, %."""
        return 100 * self.correct[L].double().mean(0)

    def _positions(self, part: str, L: int) -> slice:
        T = self.config.train_len
        return {"acc": slice(None), "seen": slice(None, T - 1), "new": slice(T - 1, None)}[part]

    def score(self, part: str, L: int) -> tuple[float, float]:
        """Accuracy at length ``L`` (%) on ``part`` — ``acc`` all positions (the post's ``전체``),
        ``seen`` positions ``0 … train_len − 2`` (``본 위치``), ``new`` the rest (``새 위치``) — and its
        evaluation noise: the standard error over the ``N`` independent evaluation sequences (pp)."""
        per_sequence = 100 * self.correct[L][:, self._positions(part, L)].double().mean(1)  # [N]
        return per_sequence.mean().item(), standard_error(per_sequence.std(), len(per_sequence)).item()

    def total(self, L: int) -> float:
        """Accuracy at length ``L`` over all positions (%), the post's ``전체``."""
        return self.score("acc", L)[0]


def measures(run: Run) -> dict[str, float]:
    """The run's headline numbers: ``acc{L}``, ``seen{L}``, ``new{L}`` (%) for each evaluated length
    (with ``{name}_eval_se``, the evaluation noise of each, pp), ``attn_right``, the mean attention weight
    on the right neighbour (offset +1) at ``train_len``, and ``positional_peak_gap`` (learned and
    sinusoidal tables only, see :func:`positional_peak_gap`)."""
    out = {}
    for L in run.config.eval_lens:
        parts = ("acc", "seen", "new") if L > run.config.train_len else ("acc",)
        for part in parts:
            out[f"{part}{L}"], out[f"{part}{L}_eval_se"] = run.score(part, L)
    T = run.config.train_len
    out["attn_right"] = run.attention[T][T].item()  # index T − 1 is offset 0
    if run.model.pos.kind == "additive":
        out["positional_peak_gap"] = positional_peak_gap(run.model)
    return out


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
    if L not in c.eval_lens:
        raise ValueError(f"length {L} is not evaluated for {c.scheme!r} (lengths {c.eval_lens})")
    device = next(model.parameters()).device
    g = eval_generator(seed, device)
    for length in c.eval_lens:  # draw in evaluate()'s order, so the batch of length L is the same
        x = torch.randint(0, c.vocab_size, (sequences, length), generator=g, device=device)  # [N, length]
        if length == L:
            break
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
