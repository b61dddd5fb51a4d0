"""Skip-gram word2vec with negative sampling, trained on real Korean Wikipedia.

Post A, exp. 1 "의미의 지도를 밑바닥부터 기르기" (``word2vec_zero.py``) and "네거티브 샘플링". The tables
are judged by people, not by the training signal: the Korean WS-353 and the Korean analogy set of Park, Byun,
Baek, Cho and Oh 2018 (``fixtures/ko_eval.py``).

Lookup rule for the evaluation sets: a word is looked up **as written** and is covered only when that exact
string is a row of the vocabulary. The vocabulary holds particle-stripped stems, so stripping the evaluation
words too would move a dictionary form onto another row (고양이 → 고양, which also holds 고양시) and would turn
the case-particle analogies (자동차 : 자동차를) into identities; ``w2v.ws353`` shows the stripped lookup beside.
"""

import collections
import math
import statistics

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from scipy import stats

from fixtures import corpus, ko_eval
from fixtures.analogy import (
    WordList,
    analogy,
    analogy_cosines,
    analogy_rank,
    binomial_sd,
    cosine,
    listing,
    token_id,
)
from fixtures.declare import Case, at_least, at_most, claim, close, exact
from fixtures.relatedness import BOOTSTRAP_RESAMPLES
from fixtures.skipgram import SkipGram, SkipGramConfig, sample_batch, time_step
from fixtures.stemming import strip_particle

PARK = "Park, Byun, Baek, Cho, Oh 2018, 'Subword-level Word Vector Representations for Korean' (ACL)"
# Post A's queries and the neighbours it printed (shown beside ours in w2v.ws353[trained]).
POST_NEIGHBOURS = {
    "물리학": ["분야", "물리", "분과", "응집", "역학", "물질"],
    "서울특별시": ["대한민국", "노원구", "중구", "==", "마포구", "종로구"],
    "음악": ["판소리", "소프라노", "빠르기", "악기", "인문학", "크고"],
    "조선": ["후기", "조정", "고려", "국왕", "장악", "국가"],
    "전쟁": ["명나라", "산업", "있던", "일본", "전투", "대첩"],
}
# The 10 sections of word_analogy_korean.txt (names as in the file, 'conturies' sic).
ANALOGY_SECTIONS = {
    "sem1_capital-conturies": "capital : country (아테네 : 그리스)",
    "sem2_male-female": "male : female (계부 : 계모)",
    "sem3_name-nationality": "person : country (간디 : 인도)",
    "sem4_country-language": "country : language (안도라 : 카탈루냐어)",
    "sem5_misc": "animal : its young, and other pairs (개 : 강아지)",
    "syn1_case": "noun : noun + case particle (자동차 : 자동차를)",
    "syn2_tense": "present : past (가다 : 갔다)",
    "syn3_voice": "active : passive (개최했다 : 개최됐다)",
    "syn4_form": "verb : connective form (가다 : 가고)",
    "syn5_honorific": "plain : honorific (가르쳤다 : 가르치셨다)",
}
FEW_ITEMS = 30  # below this many covered items a section's accuracy is marked as resting on very few items


@pytest.fixture(scope="module")
def ko_analogies(ko_eval_dir) -> dict[str, list[ko_eval.Analogy]]:
    """The Korean analogy sections (read as the ``ws353`` fixture reads WS-353)."""
    return ko_eval.load_analogies(ko_eval_dir / ko_eval.ANALOGY_FILE)


def _vocabulary(word2vec) -> WordList:
    return WordList(word2vec.corpus.vocab, name="the skip-gram vocabulary",
                    hint="words are particle-stripped stems of the corpus")


@claim(
    id="w2v.corpus_stats",
    source="Post A, exp. 1, after the neighbour table ('단지 2M의 Corpus 상에서도 보이게 됩니다')",
    statement="Post A's clusters appear on 'only a 2M corpus'; our stand-in corpus (Korean Wikipedia, "
              "the data registry's kowiki corpus) has about 2M eojeols (whitespace tokens before particle stripping).",
    kind="post",
    expect_source="post A, exp. 1: '단지 2M의 Corpus' (the corpus size the post states)",
    post_value=2_000_000, unit="eojeols",
    tolerance=close("'2M' is rounded to the million: any count from 1.5M to 2.5M is written '2M'",
                    atol=500_000),
    version=2,
    version_note="v1 checked that the vocabulary fills 10,000 stems, a number the post never prints and "
                 "that any corpus of this size reaches (291,489 distinct stems), so it could not fail; v2 "
                 "checks the corpus size the post does state",
)
def test_corpus_stats(verify, word2vec):
    data = word2vec.corpus
    verify(data.eojeols, details={
        **{key: data.stats[key] for key in ("eojeols", "stems", "vocabulary", "tokens kept")},
        "note": "post A's script prints len(ids), the tokens kept, as '학습 코퍼스 … 어절'; if its '2M' is "
                f"that count, ours is {data.ids.numel() / 1e6:.2f}M"})


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    return stats.spearmanr(x, y).statistic


def _ws353_score(table: torch.Tensor, vocab: WordList, pairs: list[ko_eval.ScoredPair],
                 lookup=lambda word: word) -> tuple[np.ndarray, np.ndarray, int]:
    """``(cosines [n], human scores [n], same-row pairs left out)`` over the pairs whose two looked-up words
    are rows of ``vocab``. A pair whose words land on one row (호랑이–호랑이) is left out: its cosine is 1 in
    any table, trained or random, so it says nothing about the table and only lifts every ρ."""
    looked_up = [(lookup(p.first), lookup(p.second), p.score) for p in pairs]
    in_vocab = [(a, b, s) for a, b, s in looked_up if vocab.ids(a) and vocab.ids(b)]
    covered = [(a, b, s) for a, b, s in in_vocab if a != b]
    rows_a, rows_b = ([token_id(vocab, pair[i]) for pair in covered] for i in (0, 1))
    cos = cosine(table[rows_a], table[rows_b]).numpy()  # [n]
    return cos, np.array([s for _, _, s in covered]), len(in_vocab) - len(covered)


WS353_MODELS = {
    "trained": Case(
        statement="Post A's trained centre table puts related words close: Spearman ρ between cosine and the "
                  "human score of WS-353 pairs is above 0, its 95 % bootstrap interval clear of 0.",
        kind="post", expect="holds",
        expect_source="post A, exp. 1: '\"주변 단어 맞히기\"라는 과제만으로 학문·왕조·예술의 클러스터가 … 보이게 "
                      f"됩니다' (trained vectors put related words close); the measure: {PARK}"),
    "untrained": Case(
        statement="Control — the same initial table before any step: ρ > 0. Built to fail: a random table "
                  "carries no relatedness, so ρ's interval should include 0.",
        kind="control", expect="refuted",
        expect_source="control's design: a random table carries no relatedness"),
    "shuffled": Case(
        statement="Control — the protocol on a randomly permuted corpus (word frequencies kept, word order "
                  "gone): ρ > 0. Built to fail: its contexts are random draws by frequency, so ρ's interval "
                  "should include 0.",
        kind="control", expect="refuted",
        expect_source="control's design: with no word order, contexts are random draws by frequency"),
}


@claim(
    id="w2v.ws353",
    source=f"Post A, exp. 1 (the neighbour table and its remark); evaluation set: {PARK}, Korean WS-353",
    statement="Spearman ρ between the cosine of two words' rows in the centre table and their human "
              "relatedness score (WS-353, Korean translation, 0–10), over the pairs of two different words "
              "both in the vocabulary as written; noise: the bootstrap standard error over pairs.",
    unit="Spearman ρ",
    tolerance=at_least(0.0, "the post claims that training puts related words close, not how close: "
                            "any monotone association with people's judgements (ρ > 0) is that claim, and "
                            "none (ρ = 0) is its negation; a higher bar would test a strength the post never "
                            "states", strict=True),
    cases=WS353_MODELS,
)
@pytest.mark.parametrize("model_kind", list(WS353_MODELS))
def test_ws353(verify, word2vec, ws353, model_kind, seed):
    vocab = _vocabulary(word2vec)
    model = word2vec.model(model_kind)
    cos, human, same_row = _ws353_score(model.w_in, vocab, ws353)
    n, rho = len(cos), _spearman(cos, human)
    boot = stats.bootstrap((cos, human), _spearman, paired=True, vectorized=False,
                           n_resamples=BOOTSTRAP_RESAMPLES, random_state=seed)
    low, high = boot.confidence_interval
    s_cos, s_human, _ = _ws353_score(model.w_in, vocab, ws353, lookup=strip_particle)
    details = {"coverage": f"{n} of {len(ws353)} pairs ({100 * n / len(ws353):.0f} %; {same_row} pair of "
                           "one word with itself left out)",
               "95 % interval (bootstrap BCa)": [round(low, 3), round(high, 3)],
               "bootstrap SE": round(boot.standard_error, 4),
               "reading": f"the 95 % interval {'includes' if low <= 0 <= high else 'clears'} 0; with {n} "
                          f"pairs only |ρ| > {3 * boot.standard_error:.2f} is decided at 3 SD",
               "particle-stripped lookup": f"ρ = {_spearman(s_cos, s_human):.3f} on {len(s_cos)} pairs"}
    if model.losses:
        details["loss every 4,000 steps"] = [round(v, 3) for v in model.losses[39::40]]
    if model_kind == "trained":
        details["optimizer"] = word2vec.config.optimizer
        details["neighbours (ours | post's | overlap)"] = {
            query: _neighbours_beside_post(model.w_in, vocab, query, post)
            for query, post in POST_NEIGHBOURS.items()}
    verify(rho, details=details, noise=boot.standard_error)


def _neighbours_beside_post(table: torch.Tensor, vocab: WordList, query: str, post: list[str]) -> str:
    """Post A's listing (``topk(7)`` on the centre table, the query dropped): the 6 rows nearest to
    ``query`` by cosine, beside the post's six and their overlap."""
    row = token_id(vocab, query)
    scores = cosine(table, table[row])  # [V]
    scores[row] = -torch.inf
    ours = [vocab.token(i) for i in scores.topk(6).indices.tolist()]
    return f"{ours} | {post} | {sorted(set(ours) & set(post)) or 'none'}"


@claim(
    id="w2v.analogy_ko",
    source="Post A, end of exp. 1 ('왕−남자+여자 같은 산술까지 기대하기엔 데이터가 부족'); evaluation set: "
           f"{PARK}, Korean analogy set",
    statement="~2M eojeols are too few for analogy arithmetic: 3CosAdd accuracy (a : b = c : d answered by "
              "the row nearest to b − a + c by cosine, the three inputs excluded) on the trained centre "
              "table, over the section's items whose 4 words are in the vocabulary as written, is ≤ 10 %.",
    kind="post",
    expect_source="post A, exp. 1: '아직은 그 양이 작아서, 왕−남자+여자 같은 산술까지 기대하기엔 데이터가 부족'; "
                  "Mikolov et al. 2013a, Table 2: analogy accuracy grows with the training words, and their "
                  "smallest corpus (24M words) is >10× ours",
    unit="% of covered items",
    post_value="too little data for analogies",
    tolerance=at_most(10.0, "the effect size of 'analogies work': Mikolov et al. 2013a, Table 2 (CBOW, "
                            "100 dimensions like ours) reach 19.4 % on their smallest corpus, 24M words, and "
                            "lose ~4 pp per halving of the data (23.1 % at 49M); 10 % is half that accuracy, "
                            "so a section at or below it does analogies worse than the weakest model there "
                            "does. Extrapolated to ~2M words (3.7 halvings below 24M): ~5 %"),
    cases={name: Case(statement=f"{name} — {what}: 3CosAdd accuracy on the trained table ≤ 10 %.")
           for name, what in ANALOGY_SECTIONS.items()},
)
@pytest.mark.parametrize("section", list(ANALOGY_SECTIONS))
def test_analogy_ko(verify, word2vec, ko_analogies, section):
    if section not in ko_analogies:
        raise ko_eval.MalformedEvalFile(f"{ko_eval.ANALOGY_FILE} has no section {section!r}; "
                                        f"it has {list(ko_analogies)}")
    vocab = _vocabulary(word2vec)
    table = word2vec.model("trained").w_in
    items = ko_analogies[section]
    covered = [it for it in items if all(vocab.ids(w) for w in (it.a, it.b, it.c, it.d))]
    if not covered:
        pytest.skip(f"no item of {section} has its 4 words, as written, among the vocabulary's 10,000 "
                    f"particle-stripped stems (0 of {len(items)} items)")
    hits = sum(analogy_rank(table, vocab, it.b, it.a, it.c, it.d) == 1 for it in covered)
    n = len(covered)
    sample = covered[0]
    details = {"coverage": f"{n} of {len(items)} items ({100 * n / len(items):.1f} %)", "correct": hits,
               f"e.g. {sample.a} : {sample.b} = {sample.c} : ?":
                   listing(analogy(table, vocab, sample.b, sample.a, sample.c, k=3))
                   + f" (answer {sample.d})"}
    if n < FEW_ITEMS:
        details["caution"] = f"only {n} covered items: the accuracy and its SD rest on very few items"
    verify(100 * hits / n, details=details, noise=100 * binomial_sd(hits, n))


@claim(
    id="w2v.small_corpus_no_analogy",
    source="Post A, end of exp. 1 ('왕−남자+여자 같은 산술까지 기대하기엔 데이터가 부족')",
    statement="~2M eojeols are too few for 왕 − 남자 + 여자 ≈ 여왕: 여왕 is not the nearest word to the "
              "query (inputs excluded). Measured: the rank of 여왕.",
    kind="post",
    expect_source="post A, exp. 1: '왕−남자+여자 같은 산술까지 기대하기엔 데이터가 부족'",
    post_value="not expected to work",
    tolerance=at_least(2, "the analogy works only if 여왕 ranks first"),
)
def test_small_corpus_no_analogy(verify, word2vec):
    vocab = _vocabulary(word2vec)
    table = word2vec.model("trained").w_in
    queen = analogy_cosines(table, vocab, "왕", "남자", "여자")[token_id(vocab, "여왕")].item()
    verify(analogy_rank(table, vocab, "왕", "남자", "여자", "여왕"),
           details={"top-5": listing(analogy(table, vocab, "왕", "남자", "여자", k=5)),
                    "cosine of 여왕": round(queen, 3)})


def _median_ratio(full: np.ndarray, sampled: np.ndarray) -> float:
    return float(np.median(full) / np.median(sampled))


@claim(
    id="ns.wallclock_speedup",
    source="Post A, '핵심 아이디어 (2) 네거티브 샘플링' ('계산 속도가 수천 배 빨라집니다')",
    statement="Negative sampling makes a training step 'thousands of times' faster than a full softmax. "
              "Measured: median wall time of a full-softmax step (V=10,000) over a sampled step (1 + 8), "
              "same batch of 1,024, same dense Adam, same process and device, 20 steps each; noise: the "
              "bootstrap standard error of that ratio over the step times.",
    kind="post",
    expect_source="arithmetic: sampling shrinks only the output layer, by V/(1 + K) = 10,000/9 ≈ 1,111× "
                  "in FLOPs (ns.flop_ratio), and leaves the rest of a step (lookups, dense Adam over both "
                  "tables) as it is, so a step cannot get 2,000× faster",
    post_value="수천 배 (several thousand ×)",
    tolerance=at_least(2000, "'수천' means several thousand; we read it as at least 2,000×"),
    expect="refuted",
)
def test_wallclock_speedup(verify, word2vec, device, seed):
    cfg, data = word2vec.config, word2vec.corpus
    ids = data.ids.to(device)
    torch.manual_seed(cfg.seed)
    model = SkipGram(len(data.vocab), cfg.dim).to(device)
    full = np.array(time_step(model, ids, cfg, device, full_softmax=True))
    sampled = np.array(time_step(model, ids, cfg, device, full_softmax=False))
    boot = stats.bootstrap((full, sampled), _median_ratio, paired=False, vectorized=False,
                           method="percentile", n_resamples=BOOTSTRAP_RESAMPLES, random_state=seed)
    verify(_median_ratio(full, sampled), noise=boot.standard_error,
           details={"full softmax (ms/step)": round(statistics.median(full) * 1e3, 2),
                    "negative sampling (ms/step)": round(statistics.median(sampled) * 1e3, 2),
                    "bootstrap SE": round(boot.standard_error, 3),
                    "noise covers": "step-to-step variation within this run, not machine load between runs",
                    "device": str(device)})


LAST = 50  # recorded losses (every 100 steps) over which the batch-to-batch noise of one recorded loss is taken


@claim(
    id="w2v.loss_toward_negative",
    source="Post A, exp. 1 (11) the loss ('오차를 가장 작게(음수 방향으로) 만드는 것이 목표')",
    statement="Training drives the negative-sampling loss 'toward negative' (음수 방향으로). Two readings, each a "
              "row: literally, the loss reaches negative values; loosely, it moves downward. Measured on the "
              "trained run's loss, recorded every 100 steps (200 batch losses); noise: the SD of the last "
              f"{LAST} recorded losses (batch-to-batch variation at the end of training).",
    kind="post", unit="(loss)",
    cases={
        "below_zero": Case(
            statement="The loss goes below 0: the smallest of the 200 recorded batch losses is < 0.",
            tolerance=at_most(0.0, "'negative' = below 0", strict=True),
            expect="refuted",
            expect_source="arithmetic: the loss is −(mean log σ(s⁺) + mean log σ(−s⁻)) and log σ(x) < 0 for every "
                          "finite x, so every batch loss is > 0; its infimum 0 is approached only as every positive "
                          "score goes to +∞ and every negative one to −∞"),
        "decreases": Case(
            statement="The loss moves downward: the mean of the last 10 recorded losses (steps 19,100–20,000) "
                      "minus the first recorded loss (step 100) is < 0.",
            tolerance=at_most(0.0, "any decrease is the loose reading ('가장 작게': as small as possible)",
                              strict=True),
            expect_source="post A's sentence read loosely ('가장 작게 만드는 것이 목표': make the loss as small as "
                          "possible) and its loop: Adam minimises the loss"),
    },
)
@pytest.mark.parametrize("reading", ["below_zero", "decreases"])
def test_loss_toward_negative(verify, word2vec, reading):
    losses = word2vec.model("trained").losses  # every 100 steps
    noise = statistics.stdev(losses[-LAST:])
    details = {"first (step 100)": round(losses[0], 4), "smallest": round(min(losses), 4),
               "at step": 100 * (losses.index(min(losses)) + 1), "last (step 20,000)": round(losses[-1], 4),
               "shuffled-corpus baseline, smallest": round(min(word2vec.model("shuffled").losses), 4),
               f"SD of the last {LAST} recorded losses": round(noise, 4),
               "the floor": "0, the loss when every positive score is +∞ and every negative one −∞ "
                            f"(at scores ±30 in float32: {_loss_at_scores(30.0):.2e})"}
    if reading == "below_zero":
        verify(min(losses), noise=noise, details=details)
    else:
        verify(statistics.fmean(losses[-10:]) - losses[0], noise=noise * math.sqrt(1 + 1 / 10), details=details)


def _loss_at_scores(score: float) -> float:
    """Post A's loss for one centre whose positive score is ``score`` and whose 8 negative scores are ``−score``."""
    pos, neg = torch.tensor([score]), torch.full((1, 8), -score)
    return -(F.logsigmoid(pos).mean() + F.logsigmoid(-neg).mean()).item()


SAMPLER_CORPUS = 20  # tokens: small, so that the first and last centres are drawn often
SAMPLER_BATCHES = 1000


@claim(
    id="w2v.sampler_stays_inside",
    source="Post A, exp. 1 (3) centre positions ('WIN 크기 만큼 빼고 나머지 단어중에서 중심 단어를 뽑는 형태로 간략화')",
    statement="Drawing centre positions from [WIN, N − WIN) needs no boundary handling: every context index c + off "
              "(off in ±1 … ±WIN) lies inside the corpus and is a neighbour of its centre. Measured with the "
              f"suite's copy of post A's sampler (fixtures.skipgram.sample_batch) on a corpus of positions (ids = "
              f"0 … N − 1, N = {SAMPLER_CORPUS}, so each drawn id is its own index), over {SAMPLER_BATCHES:,} "
              "batches of 1,024: the pairs whose context is not within ±1 … ±WIN of its centre (an index past "
              "the start wraps around to the end; one past the end raises).",
    kind="post", post_value=0, unit="pairs",
    tolerance=exact("a count"),
    expect_source="arithmetic: torch.randint(WIN, N − WIN) draws c in [WIN, N − WIN − 1] and |off| ≤ WIN, so c + off "
                  "is in [0, N − 1]; post A, exp. 1 (3) says the draw avoids the window's edge cases",
)
def test_sampler_stays_inside(verify, seed):
    cfg = SkipGramConfig(seed=seed)
    ids = torch.arange(SAMPLER_CORPUS)  # [N]: each id is its own position
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        pairs = [sample_batch(ids, SAMPLER_CORPUS, cfg, torch.device("cpu"))[:2] for _ in range(SAMPLER_BATCHES)]
    center, ctx = (torch.cat(side) for side in zip(*pairs))  # [n] each
    off = ctx - center
    strays = int(((off.abs() > cfg.window) | (off == 0)).sum())
    verify(strays, details={
        "pairs drawn": center.numel(), "context indices (min, max)": [int(ctx.min()), int(ctx.max())],
        "centres (min, max)": [int(center.min()), int(center.max())],
        "bounds by arithmetic": f"c ∈ [{cfg.window}, {SAMPLER_CORPUS - cfg.window - 1}], c + off ∈ "
                                f"[0, {SAMPLER_CORPUS - 1}]",
        "cost": f"the first and last {cfg.window} positions of the corpus are never centres, whatever its length"})


@claim(
    id="w2v.coffee_near_tea",
    source="Post A, introduction ('\"커피\"와 \"홍차\"는 비슷한 문맥(마시다, 따뜻한, 한 잔)에 나타나므로')",
    statement="커피 and 홍차 occur in similar contexts, so vectors trained to predict contexts put them close: 홍차 "
              "is among the 100 rows nearest to 커피 (1 % of the vocabulary) in the trained centre table. "
              "Measured: the rank of 홍차 by cosine, 커피 itself left out.",
    kind="post", unit="rank",
    tolerance=at_most(100, "'close' = among the nearest 1 % of the 10,000-row vocabulary (the post lists 6 "
                           "neighbours per query, a stricter bar than its sentence states)"),
    expect_source="post A, introduction: the distributional hypothesis (Firth 1957) as word2vec shows it "
                  "(Mikolov et al. 2013): words in similar contexts get nearby vectors",
    deviation="Skipped on the default corpus, where 홍차 is too rare for the vocabulary; measured on a corpus named "
              "with --claims-corpus that has both words (no noise model there: one trained run).",
)
def test_coffee_near_tea(verify, word2vec):
    vocab, words = _vocabulary(word2vec), ("커피", "홍차")
    if not all(vocab.ids(w) for w in words):
        counts = collections.Counter(s for line in corpus.read_paragraphs(word2vec.corpus.path)
                                     for s in map(strip_particle, line.split()) if s)
        cut = counts[word2vec.corpus.vocab[-1]]
        pytest.skip("not measurable on this corpus: " + "; ".join(
            f"{w} occurs {counts[w]} time{'s' if counts[w] != 1 else ''} as a stem and "
            f"{'has a row' if vocab.ids(w) else 'has no row'}" for w in words)
            + f" (the vocabulary keeps the {len(vocab.words):,} most frequent stems with count ≥ 5; the least "
              f"frequent kept occurs {cut} times, of {word2vec.corpus.eojeols:,} eojeols). A corpus with both "
              "words (--claims-corpus) measures it.")
    table = word2vec.model("trained").w_in
    coffee, tea = (token_id(vocab, w) for w in words)
    scores = cosine(table, table[coffee])  # [V]
    scores[coffee] = -torch.inf
    verify(1 + int((scores > scores[tea]).sum()),
           details={"cosine": round(scores[tea].item(), 3),
                    "nearest 6 to 커피": [vocab.token(i) for i in scores.topk(6).indices.tolist()]})
