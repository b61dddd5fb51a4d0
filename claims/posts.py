"""The posts this suite verifies: the registry the harness orders and pages the report by (``conftest.py``
hands it over through the ``pytest_claims_posts`` hook). A claim names its post and section, e.g.
``@claim(post="A", section="exp1", ...)``. Titles and headings are the posts' own words; where a post has no
heading (its opening, the parts of exp. 3) the title says what the part is."""

from __future__ import annotations

from llm_claims_harness.declare import Quote
from llm_claims_harness.posts import Post, Section

POST_A = Post(
    id="A", title="LLM from the Scratch in DGX Spark — (8) 위치 Embedding에 대해서 알아보자", date="2026-07-12",
    note="the copy the project was given names no author or address",
    sections=(
        Section("intro", "(opening) the series so far; the coordinates a token starts from", "intro"),
        Section("skip-gram", "핵심 아이디어 (1) Skip-gram · (2) 네거티브 샘플링", "skip-gram"),
        Section("training", "파이토치(PyTorch) 훈련의 마법의 4단계 공식", "training"),
        Section("exp1", "실험 1: 의미의 지도를 밑바닥부터 기르기", "exp. 1"),
        Section("exp2", "실험 2: 그 유명한 산술 — GPT-2의 실제 임베딩에서", "exp. 2"),
        Section("position", "위치: 순환을 버린 대가, 정산의 시간", "position"),
        Section("exp3", "실험 3: 사인파의 성질 증명과 외삽 대결 — the properties, PE(pos+k) from PE(pos)", "exp. 3"),
        Section("exp3-duel", "실험 3 — the extrapolation duel: learned and sinusoidal PE trained at 20, tested at 40",
                "exp. 3 duel"),
        Section("rel-bias", "실험 3 — the relative bias (`--pe rel`), learned per gap", "rel. bias"),
        Section("exp3-end", "실험 3 — the closing: relative position forced into the mechanism (ALiBi, RoPE, T5)",
                "exp. 3 end"),
        Section("add-concat", "더할 것인가, 이어붙일 것인가 — 그리고 우리의 선택", "add/concat"),
    ),
)

POST_B = Post(
    id="B", title="(untitled) sinusoidal positional encoding, between parts 2 and 3 of an embeddings series",
    note="opens \"토큰을 embedding vector로 바꾸면 문장은 숫자 벡터의 나열이 된다\"; no author, date or address given",
    sections=(
        Section("opening", "(opening) order is what a bag of embeddings lacks", "opening"),
        Section("why-add", "위치는 왜 embedding에 더해도 되는가", "why add"),
        Section("formula", "sinusoidal positional encoding 공식 읽기", "formula"),
        Section("sin-cos", "왜 하필 sin과 cos인가", "sin/cos"),
        Section("fig3", "그림 3. 문장 앞에 토큰이 끼어들면 절대 position은 밀리지만, 상대 관계는 유지된다", "fig. 3"),
        Section("learned", "학습되는 position embedding과의 차이", "learned"),
        Section("pytorch", "작은 PyTorch 구현", "PyTorch"),
        Section("attention", "position 정보가 attention 안에서 쓰이는 방식", "attention"),
        Section("rope", "요즘 모델은 RoPE를 더 많이 쓴다", "RoPE"),
    ),
)

POSTS = (POST_A, POST_B)

# A sentence more than one claim file tests, quoted once (one sentence, one gloss: the report counts it once)
ADD_MIXES_QUOTE = Quote("더하기는 공짜인 대신 두 신호가 섞이는데, 고차원 공간에서는 학습이 위치 성분과 의미 성분을 사실상 다른 "
                        "부분공간에 배치할 수 있어서 실전에서 문제가 되지 않습니다",
                        "adding is free but mixes the two signals; in a high-dimensional space training can place the "
                        "position and meaning components in practically different subspaces, so in practice it is no "
                        "problem")  # post A, section 'add vs concat': heads.add_vs_concat, gpt2.wte_wpe_subspaces
