"""The measurement library: positional encodings, attention, the models and training loops of the posts'
experiments, evaluation sets, statistics and the cache of trained weights. Imports neither pytest nor the claims
harness (``tests/test_library_layout.py``).

One sub-package per experiment, over a shared core (each may import only the sub-packages
``tests/test_library_layout.py`` allows it): :mod:`.core` (shared), :mod:`.data` (the word2vec data store),
:mod:`.word2vec` (post A's exp. 1), :mod:`.pretrained` (GPT-2 and GloVe), :mod:`.positional` (encodings and
attention), :mod:`.extrapolation` (post A's exp. 3) and :mod:`.heads` (the toy heads models); and two top-level
modules: :mod:`.inputs` (the inventory of external inputs) and :mod:`.tokenizers` (GPT-2's BPE, used by
word2vec's segmenters and the pretrained embeddings).

PYTEST_DONT_REWRITE: installed beside the claims harness plugin, whose distribution pytest marks for
assertion rewriting; nothing here is a test.
"""
