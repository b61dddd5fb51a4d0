"""Post B's insertion example: the positions of 먹었다 before and after 정말 is inserted.

Post B, after figure 3 ('나는 정말 오늘 밥을 먹었다': 먹었다 moves from position 4 to 5) and its numbering rule
('첫 번째 토큰이면 0'), counted per eojeol and under GPT-2's byte-level BPE. What the insertion does to the
attention logits is ``pos.relative_survives_insertion`` (``test_attention.py``).
"""

from llm_claims_harness.declare import Case, at_least, claim, exact

SENTENCE, WITH_JEONGMAL, VERB = "나는 오늘 밥을 먹었다", "나는 정말 오늘 밥을 먹었다", "먹었다"  # post B's example


@claim(
    id="pos.insertion_example_positions",
    source="Post B, after figure 3 ('먹었다는 4번 위치에 있을 수 있다', '5번 위치로 밀린다'); post B, '공식 읽기' "
           "('첫 번째 토큰이면 0')",
    statement="Post B's example puts 먹었다 at position 4, then 5 once 정말 is inserted; its own rule numbers the "
              "first token 0. Measured with one token per eojeol (the example's words).",
    post_value=[4, 5], unit="(position of 먹었다 before, after)",
    tolerance=exact("positions are integers"),
    kind="post",
    cases={
        "zero_based": Case(
            statement="counting from 0, post B's rule: [position before, after].", expect="refuted",
            expect_source="arithmetic: 먹었다 is the 4th of 나는 오늘 밥을 먹었다, so position 3 when the first token "
                          "is 0 ('첫 번째 토큰이면 0'), then 4"),
        "one_based": Case(
            statement="counting from 1, which post B allows ('1부터 시작할 수도 있지만'): [before, after].",
            expect_source="arithmetic: the 4th token is 4 when counting from 1, then 5: the post's numbers are the "
                          "1-based count"),
        "shift_gpt2_bpe": Case(
            statement="under GPT-2's byte-level BPE, inserting ' 정말' moves the verb's first token by the token "
                      "count of ' 정말', not by one as post B's 4 → 5.",
            post_value=1, unit="positions moved (post B: 4 → 5)",
            tolerance=at_least(2, "more than the one position of post B's example"),
            expect_source="post A, exp. 2: Korean is not single tokens but byte fragments in GPT-2's vocabulary "
                          "('바이트 파편'): 정 and 말 are three UTF-8 bytes each"),
    },
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
