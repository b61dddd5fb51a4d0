"""Pretrained embeddings and models (post A's exp. 2 and the posts' remarks on GPT-2): GPT-2's and GloVe's tables
(:mod:`.embeddings`, :mod:`.embedding_types`, :mod:`.glove`, :mod:`.gpt2_checkpoint`; whether GPT-2's file is the
published one, :mod:`.gpt2_published`), GPT-2 in context (:mod:`.contextual`) and public models' configurations
(:mod:`.configs`).

May import :mod:`llm_claims_lab.core` and the top-level :mod:`llm_claims_lab.tokenizers`
(``tests/test_library_layout.py``).
"""
