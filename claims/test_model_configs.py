"""Model configurations: position-table sizes and RoPE settings in transformers' classes and on the hub.

Offline rows read transformers' own configuration classes; the config.hub_* rows read the hub's config.json
at a pinned commit, and are skipped, saying how to get the file, where neither the local Hugging Face cache
nor the hub has it. transformers' model classes are imported where a row builds one: importing them costs
seconds, which every collection of the suite (``--collect-only``, ``-k``, each xdist worker) would pay.
"""

import importlib.metadata

import pytest
import torch

from llm_claims_harness.declare import Case, Quote, claim, exact
from llm_claims_lab.pretrained.configs import ConfigUnavailable, hub_config, rope_settings

OFFLINE = ("offline: the defaults of transformers' configuration classes (and tiny randomly initialised "
           "models built from them), not the hub's config.json, which is unreachable here")
TRANSFORMERS = importlib.metadata.version("transformers")
TINY_BERT = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
             "vocab_size": 100}  # max_position_embeddings left at the default
TINY_GPT2 = {"n_layer": 1, "n_embd": 32, "n_head": 2}  # n_positions left at the default
BERT_512 = Quote("BERT의 입력 길이가 512 토큰으로 제한되는 식이다", "BERT's input length is limited to 512 tokens, for example")
GPT2_LEARNED = Quote("12편 baseline은 학습형 PE로 갑니다. GPT-2가 학습형을 썼고",
                     "part 12's baseline goes with learned PE: GPT-2 used the learned kind")
GPT2_ROWS_BEYOND = ("v2: re-read under the reading rule (issue 19): the post says GPT-2 used learned positions but gives "
                    "no number of rows, so the 1,024-row case is kind beyond (Radford et al. 2019), not a claim of "
                    "the post; measurement unchanged")


def _runs(model: torch.nn.Module, seq_len: int) -> bool:
    """Whether ``model`` accepts ``seq_len`` tokens (ids all 0) in one forward pass."""
    try:
        with torch.no_grad():
            model(torch.zeros(1, seq_len, dtype=torch.long))
        return True
    except (IndexError, RuntimeError):
        return False


@claim(
    id="model.bert.max_positions",
    basis="computed",
    post="B", section="learned",
    source="Post B, '학습되는 position embedding과의 차이' ('512 토큰으로 제한')",
    statement="BERT's learned position table limits its input to 512 tokens.",
    tolerance=exact(reason="sizes and outcomes are exact"),
    kind="post",
    quote=BERT_512,
    expect_source="post B's sentence; Devlin et al. 2019 (BERT): sequences of at most 512 tokens",
    deviation=OFFLINE,
    cases={
        "config_default": Case(statement="BertConfig().max_position_embeddings.", post_value=512),
        "learned_table": Case(
            statement="a BertModel built from that default has a trainable position table of 512 rows: "
                      "[rows, trainable].", post_value=[512, True],
            quote=Quote("BERT 계열에서는 position embedding table을 학습하는 방식이 널리 쓰였다. … BERT의 입력 길이가 512 "
                        "토큰으로 제한되는 식이다",
                        "in the BERT family, learning a position embedding table was widely used … BERT's input "
                        "length is limited to 512 tokens, for example")),
        "input_past_512": Case(
            statement="that model runs on 512 tokens and not on 513: [runs at 512, runs at 513].",
            post_value=[True, False]),
    },
)
def test_bert_max_positions(verify, case):
    from transformers import BertConfig, BertModel

    if case == "config_default":
        verify(BertConfig().max_position_embeddings, details={"transformers": TRANSFORMERS})
        return
    model = BertModel(BertConfig(**TINY_BERT)).eval()
    table = model.embeddings.position_embeddings
    if case == "learned_table":
        verify([table.num_embeddings, table.weight.requires_grad])
    else:
        verify([_runs(model, 512), _runs(model, 513)])


@claim(
    id="model.gpt2.learned_positions",
    basis="computed",
    post="A", section="add-concat",
    source="Post A, '더할 것인가, 이어붙일 것인가' ('GPT-2가 학습형을 썼고')",
    statement="GPT-2 adds a learned position table (wpe), 1,024 rows.",
    tolerance=exact(reason="sizes and flags are exact"),
    kind="post",
    quote=GPT2_LEARNED,
    deviation=OFFLINE,
    cases={
        "learned": Case(
            statement="a GPT2Model built from GPT2Config()'s positions has wpe, a trainable nn.Embedding: "
                      "[is nn.Embedding, trainable].", post_value=[True, True],
            expect_source="post A: 'GPT-2가 학습형을 썼고' (GPT-2 used the learned kind); Radford et al. 2019"),
        "rows": Case(
            statement="GPT2Config().n_positions and the rows of that wpe: [n_positions, rows] (the post gives "
                      "no number, so this case is beyond it).", post_value=[1024, 1024], kind="beyond",
            expect_source="Radford et al. 2019 (GPT-2), §2.3: the context size grows from 512 to 1024 tokens"),
    },
    version=2,
    version_note=GPT2_ROWS_BEYOND,
)
def test_gpt2_learned_positions(verify, case):
    from transformers import GPT2Config, GPT2Model

    model = GPT2Model(GPT2Config(**TINY_GPT2))
    if case == "learned":
        verify([isinstance(model.wpe, torch.nn.Embedding), model.wpe.weight.requires_grad])
    else:
        verify([GPT2Config().n_positions, model.wpe.num_embeddings])


ROPE_SOURCE = ("post B ('RoPE 관련 설정', 'rope_theta, rope_scaling'): Qwen and Llama configurations carry "
               "rope_theta and rope_scaling")
ROPE_QUOTE = Quote("Qwen, Llama 계열 모델을 만지다 보면 RoPE 관련 설정을 자주 보게 된다. rope_theta, rope_scaling, context "
                   "extension 같은 값들이 여기에 걸려 있다",
                   "working with Qwen and Llama family models you often see RoPE settings: values such as rope_theta, "
                   "rope_scaling and context extension hang on it")


@claim(
    id="model.rope_settings",
    basis="computed",
    post="B", section="rope",
    source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다' ('rope_theta, rope_scaling, context extension')",
    statement="Llama and Qwen configurations carry RoPE settings named rope_theta and rope_scaling.",
    tolerance=exact(reason="flags and the values read back are exact"),
    kind="post",
    quote=ROPE_QUOTE,
    expect_source=ROPE_SOURCE,
    deviation=OFFLINE + "; transformers ≥ 5 keeps both inside rope_parameters (details say where)",
    cases={
        "llama_defaults": Case(statement="LlamaConfig(): [carries a rope_theta, carries a scaling setting].",
                               post_value=[True, True]),
        "qwen2_defaults": Case(statement="Qwen2Config(): [carries a rope_theta, carries a scaling setting].",
                               post_value=[True, True]),
        "gpt2_control": Case(
            statement="control: GPT2Config() (learned absolute positions) carries neither: [rope_theta, scaling "
                      "setting].", post_value=[False, False], kind="control",
            expect_source="control's design: GPT-2 has no rotary embedding, so the probe must find no RoPE "
                          "setting there"),
    },
)
def test_rope_settings(verify, case):
    from transformers import GPT2Config, LlamaConfig, Qwen2Config

    config = {"llama_defaults": lambda: LlamaConfig(), "qwen2_defaults": lambda: Qwen2Config(),
              "gpt2_control": lambda: GPT2Config()}[case]()
    settings = rope_settings(config.to_dict())
    details = {"rope_theta": settings["theta"], "scaling": settings["scaling"], "where": settings["where"],
               "transformers": TRANSFORMERS}
    verify([isinstance(settings["theta"], (int, float)), settings["has_scaling"]], details=details)


# The hub's config.json at a pinned commit (a repo's main branch may change), read from the local Hugging Face
# cache or, when reachable, the hub; skipped otherwise, saying how to get the file.
HUB = {
    "bert": ("google-bert/bert-base-uncased", "86b5e0934494bd15c9632b12f734a8a67f723594"),
    "gpt2": ("openai-community/gpt2", "607a30d783dfa663caf39e06633721c8d4cfcd7e"),
    "qwen2": ("Qwen/Qwen2.5-0.5B", "060db6499f32faf8b98477b0a26969ef7d8b9987"),
    "llama": ("TinyLlama/TinyLlama-1.1B-Chat-v1.0", "fe8a4ea1ffedaf415f4da2f062534de366a451e6"),
}
HUB_DEVIATION = ("the hub's config.json at a pinned commit, not transformers' defaults (model.bert.max_positions, "
                 "model.gpt2.learned_positions, model.rope_settings); skipped when neither the local Hugging Face "
                 "cache nor the hub has it")


def _hub_fields(name: str, required: dict[str, type] | None = None) -> tuple[dict, dict]:
    """The hub's config.json of ``HUB[name]`` (holding each of ``required``, of its type) and the details every hub
    row shows (repo, commit, source). A file that is not such a configuration skips the row, saying how to
    download it again (:func:`llm_claims_lab.pretrained.configs.hub_config`)."""
    repo, revision = HUB[name]
    try:
        fields, source = hub_config(repo, revision, fields=required)
    except ConfigUnavailable as exc:
        pytest.skip(str(exc))
    return fields, {"repo": repo, "revision": revision, "config.json from": source}


@claim(
    id="config.hub_positions",
    post="B", section="learned",
    source="Post B, '학습되는 position embedding과의 차이' ('512 토큰으로 제한'); post A, '더할 것인가, 이어붙일 것인가' "
           "('GPT-2가 학습형을 썼고')",
    statement="The hub's configurations of BERT and GPT-2 give their learned position tables 512 and 1,024 rows.",
    tolerance=exact(reason="sizes are exact"),
    kind="post",
    quote=BERT_512,
    deviation=HUB_DEVIATION,
    cases={
        "bert": Case(statement=f"{HUB['bert'][0]}'s config.json: max_position_embeddings.", post_value=512,
                     expect_source="post B's sentence; Devlin et al. 2019 (BERT): sequences of at most 512 tokens"),
        "gpt2": Case(statement=f"{HUB['gpt2'][0]}'s config.json: n_positions (the post gives no number, so this "
                               "case is beyond it).", post_value=1024, kind="beyond",
                     expect_source="Radford et al. 2019 (GPT-2), §2.3: the context size grows from 512 to 1024 "
                                   "tokens"),
    },
    version=2,
    version_note=GPT2_ROWS_BEYOND,
)
def test_hub_positions(verify, case):
    field = {"bert": "max_position_embeddings", "gpt2": "n_positions"}[case]
    fields, details = _hub_fields(case, {field: int})
    verify(fields[field], details=details)


@claim(
    id="config.hub_rope_settings",
    post="B", section="rope",
    source="Post B, '요즘 모델은 RoPE를 더 많이 쓴다' ('rope_theta, rope_scaling, context extension')",
    statement="The RoPE settings post B names appear in published Llama and Qwen configurations (the hub's "
              "config.json). The post's reading ('자주 보게 된다': you often see them) is that opening such a "
              "model's configuration shows a RoPE setting, rope_theta, for each family; that every published "
              "configuration carries both rope_theta and rope_scaling is a literal reading, for each family alike.",
    tolerance=exact(reason="flags are exact"),
    kind="post",
    quote=ROPE_QUOTE,
    expect_source=ROPE_SOURCE,
    deviation=HUB_DEVIATION + "; a rope_scaling of null counts as carried (the field is there, unscaled)",
    cases={
        "llama": Case(statement=f"{HUB['llama'][0]} (a Llama-architecture model): [carries a numeric "
                                "rope_theta].", post_value=[True]),
        "qwen2": Case(statement=f"{HUB['qwen2'][0]}: [carries a numeric rope_theta].", post_value=[True]),
        "llama_both": Case(
            statement=f"A literal reading: {HUB['llama'][0]} carries both settings: [a numeric rope_theta, "
                      "rope_scaling].", post_value=[True, True], kind="literal"),
        "qwen2_both": Case(
            statement=f"A literal reading: {HUB['qwen2'][0]} carries both settings: [a numeric rope_theta, "
                      "rope_scaling].",
            post_value=[True, True], expect="refuted", kind="literal",
            expect_source="a copy of this commit's config.json, printed in GitHub chtho-like/rosellm "
                          "(rosellm/models/pretrained_config.py at 6ab3b43), has rope_theta 1000000.0 and no "
                          "rope_scaling field (saved by transformers 4.40.1, whose Qwen2Config had none): the "
                          "pair is expected to fail on its second half (Qwen2.5's documentation, e.g. the Qwen2.5-32B-"
                          "Instruct card, has users add a YaRN rope_scaling to config.json past 32K tokens: the "
                          "setting belongs to the family, not to every file)"),
        "gpt2_control": Case(
            statement=f"control: {HUB['gpt2'][0]} (learned absolute positions) carries neither: [rope_theta, "
                      "rope_scaling].", post_value=[False, False], kind="control",
            expect_source="control's design: GPT-2 has no rotary embedding, so the probe must find no RoPE "
                          "setting there"),
    },
    version=3,
    version_note="v3 (issue 30): one reading for both families. v2 judged Llama's file on both settings as the "
                 "post's reading and Qwen's on the same pair as a literal one; now llama and qwen2 judge the post's "
                 "reading (the file shows a RoPE setting, rope_theta) and llama_both and qwen2_both the literal "
                 "one (both settings in every file). v2: re-read under the reading rule (issue 19)",
)
def test_hub_rope_settings(verify, case):
    family = case.removesuffix("_control").removesuffix("_both")
    fields, details = _hub_fields(family)
    settings = rope_settings(fields)
    details |= {"rope_theta": settings["theta"], "scaling": settings["scaling"], "where": settings["where"]}
    theta = isinstance(settings["theta"], (int, float))
    verify([theta] if case in ("llama", "qwen2") else [theta, settings["has_scaling"]], details=details)


WIDTHS = {  # model family -> (its configuration class in transformers, the width field), defaults = the model named
    "T5-small (Transformer-base width)": ("T5Config", "d_model"),
    "GPT-2 small": ("GPT2Config", "n_embd"),
    "BERT-base": ("BertConfig", "hidden_size"),
    "Llama (7B)": ("LlamaConfig", "hidden_size"),
}


@claim(
    id="model.real_widths",
    basis="computed",
    post="B", section="formula",
    source="Post B, '공식 읽기' (after the hidden-size-8 table)",
    statement="Real models use far larger widths such as 512, 768 and 4096: the hidden sizes of T5-small (the "
              "Transformer-base width of Vaswani et al. 2017, 512), GPT-2 small and BERT-base (768) and Llama 7B (4096), "
              "read offline from the defaults of their transformers configuration classes, are each one of those three.",
    kind="post",
    quote=Quote("실제 모델에서는 512, 768, 4096 같은 훨씬 큰 차원을 쓴다",
                "real models use far larger dimensions such as 512, 768, 4096"),
    expect_source="post B's sentence; Vaswani et al. 2017 Table 3 (base: d_model 512), Radford et al. 2019 (GPT-2 "
                  "small: 768), Devlin et al. 2019 (BERT-base: 768), Touvron et al. 2023 (Llama 7B: 4096)",
    post_value=[512, 768, 768, 4096], unit="(hidden size)",
    tolerance=exact(reason="a width is an integer"),
)
def test_real_widths(verify):
    import transformers

    widths = {name: getattr(getattr(transformers, cls)(), field) for name, (cls, field) in WIDTHS.items()}
    verify(list(widths.values()), details={**widths, "transformers": transformers.__version__})
