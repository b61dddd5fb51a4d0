"""Two toy experiments on what training does with added positions (posts A and B): head specialisation and
the subspaces of added tables. :mod:`.lab` holds the task, the model, its training and :class:`~.lab.HeadsLab`
(models trained once through the weight cache); :mod:`.rows` the per-seed value of every claim row and its
calibration.

May import :mod:`llm_claims_lab.core` and :mod:`llm_claims_lab.positional` (``tests/test_library_layout.py``).
"""
