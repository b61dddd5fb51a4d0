"""Post A's exp. 1, skip-gram with negative sampling on Korean Wikipedia: the suite's copy of the post's loop
(:mod:`.skipgram`), the corpus and its particle stripper (:mod:`.corpus`, :mod:`.stemming`), other segmenters
(:mod:`.segmenters`), the Korean evaluation sets (:mod:`.ko_eval`) and relatedness scores (:mod:`.relatedness`),
topical relatedness from the corpus's paragraphs (:mod:`.topical`), the models trained once through the weight
cache (:mod:`.lab`: :class:`~.lab.Word2VecLab`), the timing of a negative-sampling step against a full-softmax one
(:mod:`.timing`) and the figures (:mod:`.figures`).

May import :mod:`llm_claims_lab.core`, :mod:`llm_claims_lab.data` and the top-level :mod:`llm_claims_lab.tokenizers`
(``tests/test_library_layout.py``).
"""
