"""The measurement library: positional encodings, attention, the models and training loops of the posts'
experiments, evaluation sets, statistics and the cache of trained weights. Imports no pytest.

PYTEST_DONT_REWRITE: installed beside the claims harness plugin, whose distribution pytest marks for
assertion rewriting; nothing here is a test.
"""
