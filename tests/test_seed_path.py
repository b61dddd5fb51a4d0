"""One seed path: a claim's draws come from --claims-seed, the process's global stream is forked around each
claim (never reseeded for good), and --claims-seeds reaches the trained resources."""

from __future__ import annotations

import json
import math

import pytest

from harness_toy import LOCAL_REPORT

from llm_claims_lab.core.stats import mean_over_seeds

CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n'
DRAWS = '''
import torch
from llm_claims_harness.declare import claim, exact

BEFORE = []


def test_before():
    BEFORE.append(torch.random.get_rng_state())


@claim(id="toy.draw", source="s", statement="st", kind="beyond", expect_source="x", tolerance=exact(reason="r"),
       post_value=True)
def test_draw(verify, generator, seed):
    verify(bool(torch.rand(3).tolist() == torch.rand(3, generator=torch.Generator().manual_seed(seed)).tolist()
                and torch.rand(2, generator=generator).tolist()
                == torch.rand(2, generator=torch.Generator().manual_seed(seed)).tolist()))


def test_after():
    assert torch.equal(torch.random.get_rng_state(), BEFORE[0])  # the claim's reseed did not leak
'''


@pytest.mark.parametrize("seed", [42, 7])
def test_claim_draws_follow_the_run_seed_and_do_not_leak(pytester: pytest.Pytester, seed: int) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_draws=DRAWS)
    result = pytester.runpytest(f"--claims-seed={seed}")
    result.assert_outcomes(passed=3)
    rows = json.loads((pytester.path / LOCAL_REPORT / "results.json").read_text(encoding="utf-8"))["claims"]
    assert [r["verdict"] for r in rows] == ["holds"]


def test_one_seed_keeps_the_value_and_its_noise() -> None:
    assert mean_over_seeds([0.25], 0.1) == (0.25, 0.1)


def test_more_seeds_add_their_standard_error_to_the_evaluation_noise() -> None:
    mean, noise = mean_over_seeds([0.2, 0.4], 0.1)
    assert mean == pytest.approx(0.3)
    assert noise == pytest.approx(math.hypot(0.1, math.sqrt(0.02) / math.sqrt(2)))  # SD of (0.2, 0.4) = √0.02
    with pytest.raises(ValueError, match="at least one value"):
        mean_over_seeds([], 0.1)


def test_a_calibrated_seed_sd_replaces_the_values_own_spread() -> None:
    assert mean_over_seeds([0.25], 0.1, 0.05) == pytest.approx((0.25, math.hypot(0.1, 0.05)))
    mean, noise = mean_over_seeds([0.2, 0.4, 0.3, 0.3], 0.1, 0.06)  # four seeds: the seed part halves
    assert mean == pytest.approx(0.3) and noise == pytest.approx(math.hypot(0.1, 0.03))


def test_seeds_reach_word2vec_and_heads(pytestconfig: pytest.Config) -> None:
    """The fixtures take the run's seed list: word2vec trains one model per seed, the heads toy at least its
    protocol's 10 seeds or --claims-seeds when more."""
    import inspect

    from fixtures import trained
    from llm_claims_lab.heads.lab import SEEDS, HeadsLab

    assert "seeds" in inspect.signature(trained.word2vec.__wrapped__).parameters
    from llm_claims_harness.plan import RunPlan

    assert "run_plan" in inspect.signature(trained.heads_lab.__wrapped__).parameters
    twelve, one = (RunPlan(42, tuple(range(42, 42 + n)), "cpu", "cpu") for n in (12, 1))
    assert HeadsLab(None, "cpu", twelve.at_least(SEEDS)).seeds == list(range(42, 54))
    assert HeadsLab(None, "cpu", one.at_least(SEEDS)).seeds == list(range(42, 42 + SEEDS))


def test_word2vec_trains_one_model_per_seed_without_touching_the_global_stream(tmp_path) -> None:
    import dataclasses

    import torch

    from llm_claims_lab.core.cache import WeightCache
    from llm_claims_lab.word2vec.corpus import build_corpus
    from llm_claims_lab.word2vec.lab import Word2VecLab

    text = tmp_path / "corpus.txt"
    text.write_text("\n".join(["고양이 개 강아지 사자 호랑이 늑대 여우 곰"] * 40), encoding="utf-8")
    lab = Word2VecLab(build_corpus(text), WeightCache(tmp_path / "cache", run_id="t"), torch.device("cpu"),
                      kernels="post", seeds=[3, 4])
    lab.config = dataclasses.replace(lab.config, steps=5, dim=4, batch=8, window=2)  # small, same loop
    state = torch.random.get_rng_state()
    first, second = lab.models("trained")
    untrained = lab.models("untrained")
    assert torch.equal(torch.random.get_rng_state(), state)  # forked, not reseeded
    assert not torch.equal(first.w_in, second.w_in)
    assert torch.equal(lab.model("trained").w_in, first.w_in)  # model() is the run's seed
    assert not torch.equal(untrained[0].w_in, untrained[1].w_in)
    with pytest.raises(ValueError, match="at least one seed"):
        Word2VecLab(build_corpus(text), WeightCache(tmp_path / "cache", run_id="t"), torch.device("cpu"),
                    kernels="post", seeds=[])
