"""Shared by the word2vec claims (``test_word2vec*.py``): how their skip-gram models are computed.

Not a test module (no ``test_`` prefix): pytest's default import mode puts ``claims/`` on ``sys.path``, so the
claim modules import it as ``word2vec_common``.
"""

from llm_claims_lab.skipgram import KERNELS

KERNELS_DEVIATION = (f"Skip-gram's step is computed with {KERNELS['fast']} (--claims-w2v-kernels fast, the default "
                     f"since issue 17, fewer CPU-seconds per step); post A's code as written is --claims-w2v-kernels post "
                     f"({KERNELS['post']}). The algorithm, draws and seed are the post's; the tables differ by float "
                     "rounding (benchmarks/bench_word2vec.py prints the drift).")
