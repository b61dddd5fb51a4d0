"""Tokenization of Korean: GPT-2's byte-level BPE, and post A's particle stripper.

Post A, exp. 1 (1) "교착어의 특성을 제거하기 위하여 조사부분 제거" and the end of exp. 2.
"""

import pytest

from fixtures.declare import Case, at_least, at_most, claim, exact
from fixtures.stemming import strip_particle

KOREAN_WORDS = {"imo": "이모", "samchon": "삼촌"}  # post A's aunt / uncle; ASCII ids for pytest


@claim(
    id="tokenizer.gpt2_korean_is_bytes",
    source="Post A, end of exp. 2 ('GPT-2 어휘에서 한국어는 단일 토큰이 아니라 바이트 파편')",
    statement="GPT-2's BPE has no single token for Korean words such as 이모 and 삼촌: each splits into "
              "several tokens, and no single token decodes to text (each is a UTF-8 byte fragment).",
    tolerance=at_least(2, "more than one token is the claim"),
    kind="post",
    expect_source="post A, end of exp. 2: 'GPT-2 어휘에서 한국어는 단일 토큰이 아니라 바이트 파편이기 때문입니다' "
                  "(in GPT-2's vocabulary Korean is byte fragments, not single tokens)",
    cases={
        **{f"{key}-token_count": Case(statement=f"' {w}' (with GPT-2's leading space) takes ≥ 2 tokens.")
           for key, w in KOREAN_WORDS.items()},
        **{f"{key}-whole_text_tokens": Case(
            statement=f"share of the tokens of ' {w}' whose own decoding is valid text (no U+FFFD).",
            tolerance=at_most(0.0, "a byte fragment of a 3-byte Hangul syllable cannot decode to text"))
           for key, w in KOREAN_WORDS.items()},
        "control-token_count": Case(
            statement="control: ' king' is one token (the tokenizer is GPT-2's).",
            post_value=1, tolerance=exact("a token count"), kind="control",
            expect_source="control's design: post A uses ' king' as one GPT-2 token in exp. 2; a tokenizer "
                          "that splits it is not GPT-2's, and the Korean rows would prove nothing"),
    },
)
@pytest.mark.parametrize(("word", "quantity"), [
    *(pytest.param(w, q, id=f"{key}-{q}") for key, w in KOREAN_WORDS.items()
      for q in ("token_count", "whole_text_tokens")),
    pytest.param("king", "token_count", id="control-token_count"),
])
def test_gpt2_korean_is_bytes(verify, word, quantity, gpt2_tokenizer):
    ids = gpt2_tokenizer.encode(" " + word)
    pieces = [gpt2_tokenizer.decode([i]) for i in ids]
    details = {"ids": ids, "single-id decodings": [repr(p) for p in pieces], "tokenizer": gpt2_tokenizer.source}
    if quantity == "whole_text_tokens":
        verify(sum("\ufffd" not in p for p in pieces) / len(pieces), details=details)
    else:
        verify(len(ids), details=details)


# (eojeol, what post A's rule gives): longest particle first, only when ≥ 2 characters remain,
# punctuation stripped from both ends first.
PARTICLE_CASES = [
    ("물리학의", "물리학"),
    ("학교에서는", "학교"),  # 에서는 before 는 (longest first)
    ("서울에서", "서울"),
    ("조선은", "조선"),
    ("나는", "나는"),  # only one character would remain
    ("그가", "그가"),
    ("에서", "에서"),  # nothing would remain
    ("연구하였다.", "연구"),  # punctuation, then 하였다
    ("사용되었다", "사용"),
    ("것이다", "것이다"),  # 이다 would leave one character; 다 is not listed
    ("(전쟁)", "전쟁"),
    ("고려와", "고려"),
    ("대한민국으로는", "대한민국"),
    ("음악처럼", "음악"),
    ("...", ""),
]


@claim(
    id="stem.particle_rules",
    source="Post A, exp. 1 (1) 'stem' with the JOSA list",
    statement="The particle stripper removes the longest listed particle, only when ≥ 2 characters "
              "remain, after stripping punctuation from both ends (15 eojeols).",
    post_value=[out for _, out in PARTICLE_CASES], unit="(what post A's rule gives)",
    tolerance=exact("string equality"),
    kind="post",
    expect_source="post A, exp. 1 (1) 'stem': its particle list and rule (longest particle first, only when "
                  "≥ 2 characters remain), applied by hand to each eojeol",
)
def test_particle_rules(verify):
    measured = [strip_particle(word) for word, _ in PARTICLE_CASES]
    mismatches = {w: m for (w, want), m in zip(PARTICLE_CASES, measured) if m != want}
    verify(measured, details={"inputs": [w for w, _ in PARTICLE_CASES], "mismatches": mismatches or "none"})
