"""Post B's insertion example: the positions of 먹었다 before and after 정말 is inserted.

Post B, after figure 3 ('나는 정말 오늘 밥을 먹었다': 먹었다 moves from position 4 to 5) and its numbering rule
('첫 번째 토큰이면 0', '1부터 시작할 수도 있지만'), counted per eojeol and under GPT-2's byte-level BPE. What the
insertion does to the attention logits is ``pos.relative_survives_insertion`` (``test_attention.py``).
"""

from llm_claims_harness.declare import Case, Quote, at_least, claim, exact

SENTENCE, WITH_JEONGMAL, VERB = "나는 오늘 밥을 먹었다", "나는 정말 오늘 밥을 먹었다", "먹었다"  # post B's example
EXAMPLE = Quote("나는 오늘 밥을 먹었다에서 먹었다는 4번 위치에 있을 수 있다. 나는 정말 오늘 밥을 먹었다에서는 5번 위치로 밀린다",
                "in 나는 오늘 밥을 먹었다 ('I ate a meal today'), 먹었다 may be at position 4; in 나는 정말 오늘 밥을 "
                "먹었다 ('I really ate a meal today') it is pushed to position 5")


@claim(
    id="pos.insertion_example_positions",
    post="B", section="fig3",
    source="Post B, after figure 3 ('먹었다는 4번 위치에 있을 수 있다', '5번 위치로 밀린다'); post B, '공식 읽기' "
           "('첫 번째 토큰이면 0', '구현에 따라 1부터 시작할 수도 있지만 원리는 같다')",
    statement="Post B's example puts 먹었다 at position 4 ('있을 수 있다': it may be), then 5 once 정말 is inserted: one "
              "word in front of it pushes it back by one. The post allows counting from 1 ('1부터 시작할 수도 있지만') "
              "and hedges the number, so its reading is the 1-based count of the example's words; counting from 0 "
              "is a literal reading. Measured with one token per eojeol (the example's words).",
    post_value=[4, 5], unit="(position of 먹었다 before, after)",
    tolerance=exact(reason="positions are integers"),
    kind="post",
    quote=EXAMPLE,
    cases={
        "zero_based": Case(
            statement="A literal reading: counting from 0, the rule post B states first ('첫 번째 토큰이면 0'): "
                      "[position before, after].", expect="refuted", kind="literal",
            quote=Quote("첫 번째 토큰이면 0, 두 번째 토큰이면 1이다. … 먹었다는 4번 위치에 있을 수 있다",
                        "the first token is 0, the second 1 … 먹었다 may be at position 4"),
            expect_source="arithmetic: 먹었다 is the 4th of 나는 오늘 밥을 먹었다, so position 3 when the first token "
                          "is 0 ('첫 번째 토큰이면 0'), then 4"),
        "one_based": Case(
            statement="The post's reading: counting from 1, which post B allows ('1부터 시작할 수도 있지만'): "
                      "[before, after].",
            expect_source="arithmetic: the 4th token is 4 when counting from 1, then 5: the post's numbers are the "
                          "1-based count"),
        "shift_gpt2_bpe": Case(
            statement="Beyond the post (its example counts words): under GPT-2's byte-level BPE, inserting ' 정말' "
                      "moves the verb's first token by the token count of ' 정말', more than the one position of "
                      "post B's word-level 4 → 5.",
            post_value=1, unit="positions moved (post B: 4 → 5)",
            tolerance=at_least(2, reason="more than the one position of post B's example"),
            kind="beyond",
            expect_source="arithmetic: 정 and 말 are three UTF-8 bytes each, and GPT-2's byte-level BPE (Radford et "
                          "al. 2019, §2.2) splits Korean into byte fragments (post A, exp. 2: '바이트 파편')"),
    },
    version=2,
    version_note="v2: re-read under the reading rule (issue 19): post B hedges the example ('4번 위치에 있을 수 있다') "
                 "and allows counting from 1, so the 0-based count (3 → 4) is kind literal, not a refutation of the "
                 "post; shift_gpt2_bpe measures a subword tokenizer the example does not use, so it is kind beyond. "
                 "Measurements and expectations unchanged",
)
def test_insertion_example_positions(verify, case, request):
    if case == "shift_gpt2_bpe":
        tok = request.getfixturevalue("gpt2_tokenizer")
        start = [len(tok.encode(text[:text.index(" " + VERB)])) for text in (SENTENCE, WITH_JEONGMAL)]
        verify(start[1] - start[0], details={"verb's first token, before and after": start,
                                             "tokens of ' 정말'": len(tok.encode(" 정말")),
                                             "tokenizer": tok.source})
        return
    base = 0 if case == "zero_based" else 1
    verify([text.split().index(VERB) + base for text in (SENTENCE, WITH_JEONGMAL)])
