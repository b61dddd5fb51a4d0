"""``python -m llm_claims_lab.data fetch|list``: fetch, verify and build the word2vec claims' data, or print the
registry (see :mod:`llm_claims_lab.data`)."""

from __future__ import annotations

import argparse
import sys

from llm_claims_lab import data
from llm_claims_lab.data import CORPUS_FILE, DATA_DIR_ENV, MIRROR_ENV, DataError, Store, data_dir, describe, mirror


def main(argv: list[str] | None = None) -> int:
    """``python -m llm_claims_lab.data fetch|list``: see the module docstring. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m llm_claims_lab.data",
                                     description="Fetch, verify and build the word2vec claims' data.")
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="fetch and build every data set into the data directory")
    fetch.add_argument("--data-dir", metavar="DIR",
                       help=f"where to put it (default: ${DATA_DIR_ENV}, else <user cache>/llm-claims/data)")
    fetch.add_argument("--mirror", metavar="DIR|URL",
                       help=f"read the files from this mirror, not the network (default: ${MIRROR_ENV})")
    commands.add_parser("list", help="the data sets: sources, sha256, license and attribution")
    args = parser.parse_args(argv)
    if args.command == "list":
        print("\n".join(describe(s) for s in (data.REGISTRY.ko_eval, data.REGISTRY.kowiki)), end="")
        print(f"{data.REGISTRY.kowiki.name}/{CORPUS_FILE}: built from these by llm_claims_lab/data/kowiki.py, "
              f"sha256 {data.REGISTRY.corpus_sha256}")
        return 0
    try:
        store = Store(data_dir(args.data_dir, "--data-dir"), mirror(args.mirror, "--mirror"),
                      progressbar=True, say=lambda line: print(line, file=sys.stderr, flush=True))
        eval_dir, corpus = store.ko_eval(), store.corpus()
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"Korean evaluation sets: {eval_dir}\nKorean Wikipedia corpus: {corpus}")
    if store.root != data_dir(None):
        print(f"pytest finds them with --claims-data-dir {store.root} (or {DATA_DIR_ENV}={store.root})")
    return 0

