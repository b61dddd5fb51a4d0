"""Tables as subspaces: the leading principal directions of a table's rows and the principal angles between two
such subspaces. Shared by GPT-2's token and position tables (:mod:`llm_claims_lab.pretrained.contextual`'s claims)
and the toy heads model's (:func:`llm_claims_lab.heads.lab.subspace_angle`).

Letters: N rows, D width, K subspace dimension.
"""

from __future__ import annotations

import math

import torch


def variance_components(rows: torch.Tensor, share: float) -> int:
    """The fewest principal components of ``rows [N, D]`` (centred) that hold ``share`` of its variance."""
    centred = rows.double() - rows.double().mean(0)
    variances = torch.linalg.eigvalsh(centred.T @ centred).flip(0)  # [D], largest first
    return int((variances.cumsum(0) / variances.sum() < share).sum()) + 1


def centred_subspace(rows: torch.Tensor, k: int) -> torch.Tensor:
    """Orthonormal basis ``[D, K]`` of the ``k`` leading principal directions of ``rows [N, D]`` after
    subtracting their mean row (what tells one token, or one position, from another), float64."""
    centred = rows.double() - rows.double().mean(0)
    return torch.linalg.eigh(centred.T @ centred).eigenvectors[:, -k:].flip(-1)  # [D, K]


def principal_cosines(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Cosines of the principal angles between ``span(a)`` and each ``span(b)``: ``a [D, K]``, ``b [..., D, K]``,
    orthonormal columns → ``[..., K]``, largest first (the angles of ``scipy.linalg.subspace_angles``)."""
    return torch.linalg.svdvals(a.T @ b).clamp(max=1.0)


def overlap(cosines: torch.Tensor) -> torch.Tensor:
    """Mean squared cosine of the principal angles, ``[..., K] → [...]``: the share of one subspace's energy
    that lies in the other, ``‖P_a P_b‖²_F / K``; 0 when orthogonal, 1 when equal, ``K / D`` on average for
    uniformly random K-dimensional subspaces of R^D."""
    return cosines.pow(2).mean(-1)


def smallest_angle(cosines: torch.Tensor) -> float:
    """The smallest principal angle of ``cosines [K]``, in degrees (90 when no direction is shared)."""
    return math.degrees(math.acos(cosines.max().item()))


def random_overlaps(basis: torch.Tensor, n: int, generator: torch.Generator, chunk: int = 100) -> torch.Tensor:
    """:func:`overlap` of ``span(basis [D, K])`` with ``n`` uniformly random K-dimensional subspaces of R^D
    (the Q factor of a Gaussian ``[D, K]`` matrix is Haar-distributed), ``[n]``; drawn ``chunk`` at a time."""
    d, k = basis.shape
    out = []
    for start in range(0, n, chunk):
        gauss = torch.randn(min(chunk, n - start), d, k, generator=generator, dtype=torch.float64)
        out.append(overlap(principal_cosines(basis, torch.linalg.qr(gauss).Q)))  # [chunk]
    return torch.cat(out)
