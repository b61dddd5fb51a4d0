"""Plain helpers (not tests) for the GPT-2 weight tests: a tiny GPT-2 built with transformers, the folder
layout of a Hugging Face cache, and an interrupted download."""

from __future__ import annotations

from pathlib import Path


def tiny_gpt2(model_class: str = "GPT2Model"):
    import transformers

    config = transformers.GPT2Config(vocab_size=11, n_embd=8, n_layer=1, n_head=2, n_positions=16,
                                     bos_token_id=0, eos_token_id=0)
    return getattr(transformers, model_class)(config).eval()


def hf_cache_snapshot(root: Path, repo_id: str = "gpt2") -> Path:
    """The layout huggingface_hub writes for ``repo_id`` under cache root ``root``
    (``models--{org}--{name}``): refs/main names the snapshot folder that holds the files. Returns that
    folder (not yet created)."""
    repo = root / f"models--{repo_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    return repo / "snapshots" / "0123abcd"


def truncate(path: Path) -> None:
    """An interrupted download: the first half of the file."""
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
