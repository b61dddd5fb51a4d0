"""Shared by the sinusoidal-encoding claims (``test_sinusoidal*.py``, ``test_position_tables.py``): post A's
gaps and their printed means, and the long table's size.

Not a test module (no ``test_`` prefix): pytest's default import mode puts ``claims/`` on ``sys.path``, so the
claim modules import it as ``sinusoidal_common``.
"""

# Post A's table: mean of PE(i)·PE(i+k) over i, per gap k (its std over i: test_sinusoidal.POST_GAP_STD).
POST_GAP_MEAN = {1: 62.094, 3: 52.186, 10: 42.820, 30: 36.244}
GAPS = list(POST_GAP_MEAN)
LONG, WIDE = 10_000, 128  # "a large length": 10,000 positions at post A's d_model
