"""Skip-gram word2vec with negative sampling, trained on real Korean Wikipedia.

Post A, exp. 1 "의미의 지도를 밑바닥부터 기르기" (``word2vec_zero.py``) and "네거티브 샘플링". The tables
are judged by people, not by the training signal: the Korean WS-353 and the Korean analogy set of Park, Byun,
Baek, Cho and Oh 2018 (``llm_claims_lab/word2vec/ko_eval.py``).

Lookup rule for the evaluation sets: a word is looked up **as written** and is covered only when that exact
string is a row of the vocabulary. The vocabulary holds particle-stripped stems, so stripping the evaluation
words too would move a dictionary form onto another row (고양이 → 고양, which also holds 고양시) and would turn
the case-particle analogies (자동차 : 자동차를) into identities; ``w2v.ws353`` shows the stripped lookup beside.
"""

import pytest

from claims.scored_items import analogy_samples, pair_samples, per_seed
from llm_claims_harness.declare import DECISION_SIGMAS, NO_PREDICTION, Case, Revision, at_least, at_most, claim, close
from llm_claims_harness.measure import DECISION_LEVEL
from llm_claims_lab.core.analogy import analogy, listing
from llm_claims_lab.core.stats import (bootstrap, items_to_decide, items_to_exclude, mean_over_seeds,
                                      proportion_interval, standard_error)
from llm_claims_lab.word2vec import ko_eval
from llm_claims_lab.word2vec.corpus import explicit_corpus
from llm_claims_lab.word2vec.figures import plot_relatedness, write_neighbour_table
from llm_claims_lab.word2vec.relatedness import spearman, ws353_items, ws353_score
from llm_claims_lab.word2vec.stemming import strip_particle
from claims.word2vec_common import (ANALOGY_BOUND, CLUSTERS, KERNELS_DEVIATION, POST_NEIGHBOURS, TOO_LITTLE, analogy_items,
                             analogy_items_needed, covered, neighbours, require_learned_ranks, vocabulary,
                             ws353_vocabulary)

PARK = "Park, Byun, Baek, Cho, Oh 2018, 'Subword-level Word Vector Representations for Korean' (ACL)"
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


@claim(
    id="w2v.corpus_stats",
    post="A", section="exp1",
    source="Post A, exp. 1, after the neighbour table ('단지 2M의 Corpus 상에서도 보이게 됩니다')",
    statement="Protocol check, not a verdict on the post (whose corpus we do not have): is our stand-in corpus "
              "(the registry's Korean Wikipedia) of the size post A states, 'only a 2M corpus'? Two counts, each a "
              "row: raw eojeols, and what post A's script prints ('학습 코퍼스 {len(ids):,} 어절': tokens kept).",
    kind="control",
    post_value=2_000_000, unit="eojeols",
    tolerance=close(reason="'2M' is rounded to the million: any count from 1.5M to 2.5M is written '2M'",
                    atol=500_000),
    quote=CLUSTERS,
    cases={
        "raw": Case(statement="raw eojeols of the stand-in corpus: about 2M.", params={"count": "eojeols"},
                    expect_source="design: the stand-in corpus was taken at the post's stated size, counted in raw "
                                  "eojeols"),
        "kept": Case(statement="tokens kept after post A's vocabulary cut (what its script prints as '학습 코퍼스 … "
                               "어절'): about 2M.", params={"count": "tokens kept"}, expect="refuted",
                     expect_source="regression check of a fixed input: the corpus file is pinned by its sha256, so "
                                   "its counts are the same every run",
                     revised=Revision(NO_PREDICTION, "nothing predicted the count after the cut",
                                      "the pinned corpus keeps 1.21M of its 1.83M eojeols after the cut",
                                      "reports/results.json at commit 1cd4d76, w2v.corpus_stats details 'tokens kept'",
                                      "the corpus's sha256 (data registry), not training code")),
    },
    version=3,
    version_note="v3 (issue 19, the reading rule): a protocol check (kind control), not the post's claim, since the "
                 "post's corpus is not measured; both counts are rows, the raw eojeols and the count the post's "
                 "script prints. v2: v1 checked that the vocabulary fills 10,000 stems, a number the post never "
                 "prints and that any corpus of this size reaches (291,489 distinct stems), so it could not fail",
)
def test_corpus_stats(verify, word2vec, count, pytestconfig):
    if (named := explicit_corpus(pytestconfig.getoption("claims_corpus"))) is not None:
        pytest.skip(f"a check of the registry's stand-in corpus; this run measures the corpus named ({named}), "
                    "whose size says nothing about post A's")
    data = word2vec.corpus
    verify(data.stats[count], details={key: data.stats[key] for key in ("eojeols", "stems", "vocabulary", "tokens kept")})


WS353_MODELS = {
    "trained": Case(
        statement="Beyond the post (a benchmark it never names): the trained centre table puts related words "
                  "close: Spearman ρ between cosine and the human score of WS-353 pairs is above 0, decided as "
                  "every row is, when 0 lies 3 SDs of the noise below it (the pairs' bootstrap SE and the training seeds' SD combined, a 99.73 % "
                  "interval); the 95 % bootstrap interval over pairs alone is shown, not judged. Its details say how "
                  "many covered pairs would decide it: seeds narrow only the seeds' part.",
        kind="beyond", expect="holds",
        expect_source="a standard check of the table beyond post A's sentence: trained skip-gram vectors put related "
                      "words close (Mikolov et al. 2013a; Park et al. 2018 evaluate Korean vectors on this set); "
                      "the post's cluster sentence ('학문·왕조·예술의 클러스터가 … 보이게 됩니다') speaks of its "
                      "neighbour lists, judged by w2v.semantic_neighbours"),
}


@claim(
    id="w2v.ws353",
    post="A", section="exp1",
    source=f"Post A, exp. 1 (the neighbour table and its remark); evaluation set: {PARK}, Korean WS-353",
    statement="Spearman ρ between the cosine of two words' rows in the centre table and their human "
              "relatedness score (WS-353, Korean translation, 0–10), over the pairs of two different words "
              "both in the vocabulary as written; noise: the bootstrap standard error over pairs combined with the "
              "SD over training seeds (calibration/word2vec.json).",
    unit="Spearman ρ",
    tolerance=at_least(0.0, reason="the post claims that training puts related words close, not how close: "
                            "any monotone association with people's judgements (ρ > 0) is that claim, and "
                            "none (ρ = 0) is its negation; a higher bar would test a strength the post never "
                            "states", strict=True),
    cases=WS353_MODELS,
    deviation=KERNELS_DEVIATION,
    version=5,
    version_note="v5 (issue 43): trained is kind beyond, no longer the post's row: post A's sentence ('학문·왕조·예술의 "
                 "클러스터가 … 보이게 됩니다') says the neighbour lists show topical clusters, which "
                 "w2v.semantic_neighbours tests on those lists (against the untrained and the shuffled tables); a "
                 "Spearman ρ with human relatedness scores over 166 pairs is a benchmark the post never names, a "
                 "different property; measure, tolerance and noise unchanged (it was inconclusive at +2.4 SD). "
                 "v4 (issue 30): the statement says the rule the row is judged by (3 SDs of the combined noise), where "
                 "it said '95 % interval clear of 0', a rule no row of the suite uses and that ignores the seeds' "
                 "noise; tolerance, protocol and noise unchanged; the pairs a decision needs are in its details. "
                 "v3: the noise adds the training seeds' part (the SD of ρ over 5 training seeds disjoint from the "
                 "run's, calibration/word2vec.json) to the bootstrap SE over pairs, which sees only the evaluation "
                 "set's; v2: v1 also had untrained and shuffled cases expecting 'refuted' against ρ > 0: with a true ρ of 0 they "
                 "came out refuted only when ρ < −3 SD (about 0.1 % of runs), inconclusive by construction; "
                 "w2v.ws353_controls replaces them with controls that can be decided (issue 18)",
)
def test_ws353(verify, word2vec, ws353, case, seed, figure, w2v_seed_noise):
    model_kind = case
    vocab = ws353_vocabulary(word2vec, ws353)  # enough pairs covered, checked before training
    models = word2vec.models(model_kind)  # one per seed of --claims-seeds; the first is the run's seed
    model = models[0]
    (cos, human, same_row), log = ws353_items(model.w_in, vocab, ws353)  # log: one record per pair
    n, rho = len(cos), spearman(cos, human)
    boot = bootstrap((cos, human), spearman, seed=seed)
    others = [ws353_items(m.w_in, vocab, ws353) for m in models[1:]]
    rhos = [rho] + [spearman(*score[:2]) for score, _ in others]
    low, high = boot.confidence_interval
    s_cos, s_human, _ = ws353_score(model.w_in, vocab, ws353, lookup=strip_particle)
    details = {"coverage": f"{n} of {len(ws353)} pairs ({100 * n / len(ws353):.0f} %; {same_row} pair of "
                           "one word with itself left out)",
               "95 % interval (bootstrap BCa)": [round(low, 3), round(high, 3)],
               "bootstrap SE": round(boot.standard_error, 4),
               "particle-stripped lookup": f"ρ = {spearman(s_cos, s_human):.3f} on {len(s_cos)} pairs"}
    if model.losses:
        details["loss every 4,000 steps"] = [round(v, 3) for v in model.losses[39::40]]
    figures = []
    if model_kind == "trained":
        details["kernels"] = word2vec.config.kernels
        ours = {query: neighbours(model.w_in, vocab, query) for query in POST_NEIGHBOURS}
        details["neighbours (ours | post's | overlap)"] = {
            query: f"{ours[query]} | {post} | {sorted(set(ours[query]) & set(post)) or 'none'}"
            for query, post in POST_NEIGHBOURS.items()}
        figures = [*figure("w2v_ws353_trained.png", lambda path: plot_relatedness(
                       cos.tolist(), human.tolist(), rho, [low, high], path)),
                   *figure("w2v_neighbours.md", lambda path: write_neighbour_table(
                       {query: (ours[query], post) for query, post in POST_NEIGHBOURS.items()}, path))]
    if len(models) > 1:
        details["ρ per seed"] = {s: round(r, 4) for s, r in zip(word2vec.seeds, rhos)}
    seed_sd, details["seed noise"] = w2v_seed_noise(model_kind)
    measured, noise = mean_over_seeds(rhos, boot.standard_error, seed_sd)
    details["reading"] = (f"the 95 % interval over pairs {'includes' if low <= 0 <= high else 'clears'} 0 (not the "
                          f"rule); with {n} pairs and {len(rhos)} seed{'s' if len(rhos) > 1 else ''} only |ρ| > "
                          f"{DECISION_SIGMAS * noise:.3f} is decided ({DECISION_SIGMAS:g} SDs of the combined noise)")
    needed = items_to_decide(n, boot.standard_error, abs(measured), sigmas=DECISION_SIGMAS,
                             seed_se=standard_error(seed_sd, len(rhos)))
    plural = "s" if len(rhos) > 1 else ""
    details["to decide"] = (f"at this ρ, about {needed:,} covered pairs at {len(rhos)} seed{plural} "
                            f"(the pairs' part, SE {boot.standard_error:.3f} at {n}, shrinks as 1/√pairs; WS-353 has "
                            f"{len(ws353)}, a larger corpus's vocabulary covers more)" if needed else
                            "no number of pairs at this many seeds: the seeds' part alone is a third of ρ or more")
    verify(measured, details=details, noise=noise, figures=figures,
           samples=per_seed(pair_samples, word2vec.seeds, [log] + [records for _, records in others]))


@claim(
    id="w2v.analogy_ko",
    post="A", section="exp1",
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
    quote=TOO_LITTLE,
    tolerance=at_most(ANALOGY_BOUND, reason="the effect size of 'analogies work': Mikolov et al. 2013a, Table 2 (CBOW, "
                            "100 dimensions like ours) reach 19.4 % on their smallest corpus, 24M words, and "
                            "lose ~4 pp per halving of the data (23.1 % at 49M); 10 % is half that accuracy, "
                            "so a section at or below it does analogies worse than the weakest model there "
                            "does. Extrapolated to ~2M words (3.7 halvings below 24M): ~5 %"),
    cases={name: Case(statement=f"{name} — {what}: 3CosAdd accuracy on the trained table ≤ 10 %.")
           for name, what in ANALOGY_SECTIONS.items()},
    deviation=KERNELS_DEVIATION + " Noise: the accuracy's exact (Clopper–Pearson) 99.73 % interval over the covered "
              "items (several seeds: the union of the seeds' intervals); a section whose covered items cannot reach "
              "both verdicts at that level (confirmed at 0 % correct, refuted at 100 %) is skipped, naming the covered "
              "items it would need; an inconclusive section's details give the covered items that would "
              "decide it at its share. Positive control (the row errors without it): the trained table ranks the "
              "section's answers better than the seed's untrained table (one-sided Wilcoxon signed-rank over the "
              "covered items, p < 0.0027), so an untrained table cannot confirm the row.",
    version=3,
    version_note="v3 (issue 30): a section is skipped unless its covered items can reach both verdicts; v2 skipped it "
                 "only when neither 0 % nor 100 % correct could decide, so syn3_voice (30 items) and syn4_form (4), "
                 "which can be refuted but never confirmed, were judged and read inconclusive at 0 correct. "
                 "v2: v1 gave each section the Agresti–Coull SD, centred at (hits + 1.92)/(n + 3.84) rather than at the "
                 "accuracy printed (a section with 0 of 2 covered items printed '0 ± 19 pp'), and decided by ± 3 SD; "
                 "v2 decides by the exact 99.73 % interval and skips a section too small to decide (issue 18)",
)
def test_analogy_ko(verify, word2vec, ko_analogies, case):
    section = case
    if section not in ko_analogies:
        raise ko_eval.MalformedEvalFile(f"{ko_eval.ANALOGY_FILE} has no section {section!r}; it has {list(ko_analogies)}")
    vocab = vocabulary(word2vec)
    tables = [m.w_in for m in word2vec.models("trained")]  # one per seed of --claims-seeds
    table = tables[0]
    items = ko_analogies[section]
    covered_items = covered(vocab, items)
    if not covered_items:
        pytest.skip(f"no item of {section} has its 4 words, as written, among the vocabulary's 10,000 "
                    f"particle-stripped stems (0 of {len(items)} items)")
    n, needed = len(covered_items), analogy_items_needed()
    if n < needed:
        extremes = {k: [100 * v for v in proportion_interval(k, n, level=DECISION_LEVEL)] for k in (0, n)}
        pytest.skip(f"{section}: {n} covered item{'s' if n != 1 else ''} of {len(items)} cannot reach both verdicts of "
                    f"the {ANALOGY_BOUND:g} % bound at the suite's {100 * DECISION_LEVEL:.2f} % level (exact interval "
                    f"at 0 % correct: [0, {extremes[0][1]:.1f}] %; at 100 %: [{extremes[n][0]:.1f}, 100] %); that "
                    f"needs {needed} covered items, {needed - n} more than the vocabulary covers")
    hits, log = analogy_items(table, vocab, covered_items)  # log: one record per covered item
    sample = covered_items[0]
    details = {"coverage": f"{n} of {len(items)} items ({100 * n / len(items):.1f} %)", "correct": hits,
               f"e.g. {sample.a} : {sample.b} = {sample.c} : ?":
                   listing(analogy(table, vocab, sample.b, sample.a, sample.c, k=3)) + f" (answer {sample.d})"}
    require_learned_ranks([r["rank"] for r in log], word2vec.model("untrained").w_in, vocab, covered_items, details)
    others = [analogy_items(t, vocab, covered_items) for t in tables[1:]]
    seed_hits = [hits] + [h for h, _ in others]
    if len(tables) > 1:
        details["% per seed"] = {s: round(100 * h / n, 2) for s, h in zip(word2vec.seeds, seed_hits)}
    intervals = [[100 * v for v in proportion_interval(h, n, level=DECISION_LEVEL)] for h in seed_hits]
    share = sum(seed_hits) / len(seed_hits) / n
    low, high = min(lo for lo, _ in intervals), max(hi for _, hi in intervals)
    if low <= ANALOGY_BOUND < high:
        more = items_to_exclude(share, ANALOGY_BOUND / 100, level=DECISION_LEVEL, start=n)
        details["to decide"] = (f"at {100 * share:.1f} % correct, {more:,} covered items (the section has "
                                f"{len(items):,})" if more else f"no number of items at {100 * share:.1f} % correct")
    verify(sum(100 * h / n for h in seed_hits) / len(seed_hits), details=details,
           interval=(low, high),
           samples=per_seed(analogy_samples, word2vec.seeds, [log] + [records for _, records in others]))
