"""Where the posts' own texts are: their copies beside the checkout (``../shared/seeds``), which tests read to check
what the suite quotes or copies from them, skipping where the copies are absent."""

from __future__ import annotations

from pathlib import Path

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
POST_TEXTS = {"A": "000_86fb1aaf3ae0498f.txt", "B": "002_76efdfd3f753ef97.txt"}  # the registry's id → its copy
