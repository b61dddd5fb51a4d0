"""Shared by the sinusoidal-encoding claims (``test_sinusoidal*.py``, ``test_position_tables.py``): post A's
gaps, their printed means and stds, the post's code for those stds, and the long table's size.

Not a test module (no ``test_`` prefix): the claim modules import it as ``claims.sinusoidal_common``, a name that resolves
from the repository root (``pythonpath = ["."]``) under every pytest import mode, ``importlib`` included.
"""

import torch

# Post A's table: mean of PE(i)·PE(i+k) over i, per gap k (its std over i: POST_GAP_STD).
POST_GAP_MEAN = {1: 62.094, 3: 52.186, 10: 42.820, 30: 36.244}
GAPS = list(POST_GAP_MEAN)
LONG, WIDE = 10_000, 128  # "a large length": 10,000 positions at post A's d_model

# Post A's table: the std over i of PE(i)·PE(i+k), per gap k (the means: POST_GAP_MEAN).
POST_GAP_STD = {1: 7.2e-7, 3: 6.3e-7, 10: 6.97e-7, 30: 4.83e-7}
# Post A's printed rows (gap, mean, std), as the post writes them (its table's cells, tabs read as spaces).
POST_GAP_ROWS = {1: "1 62.094 0.00000072", 3: "3 52.186 0.00000063", 10: "10 42.820 0.000000697",
                 30: "30 36.244 0.000000483"}


def post_code_gap_std(k: int) -> float:
    """Std over i of PE(i)·PE(i+k) the way post A's pe_probe.py gets it, rewritten here so the comparison
    does not depend on our table: float32 positions 0–63 and pair indices 0, 2, …, 126, angles
    position / 10000^(index/128) and their sin (even columns) and cos (odd columns) all in float32, the
    64×64 Gram matrix from one float32 matmul on the CPU, the gap-k entries, torch's (n − 1) std."""
    position = torch.arange(64, dtype=torch.float32).unsqueeze(1)  # [L, 1]
    index = torch.arange(0, 128, 2, dtype=torch.float32)  # [D/2]
    phase = position / torch.pow(10000, index / 128)  # [L, D/2]
    table = torch.zeros(64, 128)  # [L, D]
    table[:, 0::2], table[:, 1::2] = torch.sin(phase), torch.cos(phase)
    return torch.diagonal(table @ table.T, offset=k).std().item()
