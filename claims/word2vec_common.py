"""Shared by the word2vec claims (``test_word2vec*.py``): how their skip-gram models are computed.

Not a test module (no ``test_`` prefix): pytest's default import mode puts ``claims/`` on ``sys.path``, so the
claim modules import it as ``word2vec_common``.
"""

from llm_claims_lab.skipgram import KERNELS

KERNELS_DEVIATION = (f"Skip-gram's step is computed as --claims-w2v-kernels names (w2v.ws353[trained] records it): "
                     f"by default fast, {KERNELS['fast']}, fewer CPU-seconds per step; post is post A's code as "
                     f"written ({KERNELS['post']}). The algorithm, draws and seed are the post's either way; the tables "
                     "differ by float rounding (benchmarks/bench_word2vec.py prints the drift).")
