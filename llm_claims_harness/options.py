"""The harness's command-line options: where the report goes, the seeds, strictness; their values parsed (a
value out of range is argparse's usage error, naming the option)."""

from __future__ import annotations

import argparse

import pytest

MAX_SEED = 2**31 - 1  # every generator takes it (numpy's legacy seeds stop at 2**32 − 1; offsets are added)


def _int_in(text: str, low: int, high: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def _seed(text: str) -> int:
    return _int_in(text, 0, MAX_SEED // 2, f"a seed from 0 to {MAX_SEED // 2}")


def _positive_int(text: str) -> int:
    return _int_in(text, 1, 1000, "a positive integer up to 1000")


def _given(text: str, noun: str, fix: str) -> str:
    """``text`` when it names something; an empty or blank one (``--opt=``, an unset shell variable) names nothing
    and is refused, never read as the default."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty value names no {noun}; {fix}")
    return text


def path_value(text: str) -> str:
    """An option's path as given (:func:`_given`).

    Raises:
        argparse.ArgumentTypeError: an empty or blank value (pytest's usage error, naming the option).
    """
    return _given(text, "path", "give one, or leave the option out for its default")


def _post_id(text: str) -> str:
    """A post's id as given (:func:`_given`).

    Raises:
        argparse.ArgumentTypeError: an empty or blank value (pytest's usage error, naming the option).
    """
    return _given(text, "post", "give a post's id as the suite's registry names it, or leave the option out for "
                                "every post")


def add(parser: pytest.Parser) -> None:
    """Add the harness's options (group ``claims``) to ``parser``."""
    group = parser.getgroup("claims", "claims suite")
    group.addoption("--claims-report-dir", type=path_value, default=None, metavar="DIR",
                    help="where CLAIMS.md and results.json are written (default: <rootdir>/.claims/report, which "
                         "git ignores, its unmeasured rows carried from <rootdir>/reports; --claims-regenerate: "
                         "<rootdir>/reports itself)")
    group.addoption("--claims-regenerate", action="store_true",
                    help="write the committed report, <rootdir>/reports (and, with --claims-catalogue, its "
                         "catalogue); without it a run leaves tracked files alone")
    group.addoption("--no-claims-report", action="store_true",
                    help="measure and judge, but do not write the report")
    group.addoption("--claims-catalogue", action="store_true",
                    help="list every declared claim (id, kind, source, statement, post value, tolerance, "
                         "expected verdict, version) in CATALOGUE.md and its pages in the report directory, without "
                         "measuring anything")
    group.addoption("--claims-post", action="append", default=[], metavar="ID", type=_post_id,
                    help="run only the rows of the post ID (as the suite's registry names it; repeat for several): "
                         "its claims and literal readings, with what they need; other rows and plain tests are "
                         "deselected")
    group.addoption("--claims-list", action="store_true",
                    help="list the selected claim rows, one line each (id, post, kind, the verdict in the last "
                         "report), without measuring or printing pytest's collection tree")
    group.addoption("--claims-strict", action="store_true",
                    help="fail the run on an inconclusive claim (a value within its noise of a bound); by "
                         "default such a row passes with a warning, and --claims-seeds N usually decides it")
    group.addoption("--claims-seed", type=_seed, default=42, metavar="N",
                    help="seed of every random draw in the claims (default: 42)")
    group.addoption("--claims-seeds", type=_positive_int, default=1, metavar="N",
                    help="the seeds fixture holds N seeds, --claims-seed and the N − 1 after it (a claim that "
                         "averages over them judges their mean; default: 1)")
