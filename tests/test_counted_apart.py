"""Computed facts and rows true by construction are counted apart (issue 43, item 3): the headline's "confirmed"
counts measurements only; a row whose value is arithmetic on given numbers or a library's constant (``computed``), or
that cannot come out otherwise (``construction``), is shown beside them, on every count line and on its row."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from llm_claims_harness import markdown, report
from llm_claims_harness.declare import Case, ClaimDeclarationError, claim, exact
from llm_claims_harness.results import read
from llm_claims_harness.row import Quote, Row
from report_rows import QUOTE, make

ROOT = Path(__file__).resolve().parents[1]
# The rows the audit of issue 43 names: arithmetic on the post's numbers or a library's defaults, and tautologies
COMPUTED = {"train.loop_repeats_billions", "ns.flop_ratio", "ns.several_thousand_times",
            "input.concat_costs_every_layer[flops]", "input.concat_costs_every_layer[parameters]", "input.add_is_free",
            "pe.raw_integer_unbounded[vs_token_at_40]", "pe.raw_integer_unbounded[vs_token_at_10000]",
            "pe.sin.parameter_free_any_length[learned_past_max_len_raises]", "gpt2.wte_shape", "pe.rel.offset_count",
            "model.real_widths", "model.bert.max_positions[config_default]", "model.gpt2.learned_positions[rows]"}
CONSTRUCTION = {"input.shape_over_length[add_width]", "input.add_keeps_width[add_shape]", "gpt2.bank_senses[one_point]",
                "attn.order_blind_without_pe[without_pe]"}


def _row(rid: str, verdict: str, basis: str = "measured") -> Row:
    """A post row of its own sentence (report_rows.make), measured or not as ``basis`` says."""
    return dataclasses.replace(make(rid, verdict=verdict, quote=Quote(f"문장 {rid}", f"sentence {rid}")), basis=basis)


def test_a_computed_or_constructed_confirmation_is_not_a_measured_one() -> None:
    rows = [_row("a.m", "holds"), _row("a.c", "holds", "computed"), _row("a.k", "holds", "construction"),
            _row("a.r", "refuted", "computed")]
    line = report.summary_lines(rows)[0]
    assert line.startswith("the posts' claims: 1 confirmed · computed, not measured"), line
    assert "computed, not measured (arithmetic on given numbers, a library's constant): 1 confirmed, 1 refuted" in line
    assert "true by construction (cannot fail): 1 confirmed" in line
    n, counts = report.sentence_counts(rows, "post")
    assert n == 4 and counts.startswith("1 confirmed · ")
    assert markdown.verdict_cell(rows[1], {}).endswith("· *computed*")
    assert markdown.verdict_cell(rows[2], {}).endswith("· *by construction*")
    assert not markdown.verdict_cell(rows[0], {}).endswith("*")


def test_a_sentence_a_measurement_confirms_is_measured() -> None:
    """One sentence tested by a computed row and a measured one is the measurement's (the measured row gives it)."""
    rows = [dataclasses.replace(r, quote=QUOTE) for r in (_row("a.x[m]", "holds"), _row("a.x[c]", "holds", "computed"))]
    assert report.sentence_bucket(rows) == ""
    assert report.sentence_bucket(rows[1:]) == "computed"


def test_an_unknown_basis_is_a_declaration_error() -> None:
    with pytest.raises(ClaimDeclarationError, match="basis 'arithmetic' is unknown"):
        claim(id="x.y", source="s", statement="s", kind="beyond", expect_source="e",
              tolerance=exact(reason="r"), cases={"a": Case(basis="arithmetic")})


def test_the_named_rows_are_counted_apart_in_the_committed_report() -> None:
    rows = {r.id: r for r in read(ROOT / "reports" / "results.json").rows}
    assert {rid for rid in COMPUTED if rows[rid].basis != "computed"} == set()
    assert {rid for rid in CONSTRUCTION if rows[rid].basis != "construction"} == set()


def test_the_headline_counts_measured_confirmations_only() -> None:
    """The index's confirmed count for each post, recounted here from results.json without the report's bucket
    function: sentences whose verdict a measured row without a revised expectation gives."""
    doc = read(ROOT / "reports" / "results.json")
    text = (ROOT / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    for post in ("A", "B"):
        groups: dict[tuple, list[Row]] = {}
        for r in doc.rows:
            if r.post == post and r.kind == "post":
                groups.setdefault(" ".join(r.quote.text.split()), []).append(r)  # a sentence, whatever its claim
        measured = 0
        for rs in groups.values():
            verdict = report.sentence_verdict(rs)
            giving = [r for r in rs if r.verdict == verdict]
            if verdict == "holds" and not any(r.revision for r in giving) and any(r.basis == "measured" for r in giving):
                measured += 1
        block = text.split(f"## Post {post}")[1] if f"## Post {post}" in text else text
        shown = re.search(r"\*\*The post's claims\*\*: \d+ sentences judged: (\d+) confirmed", block)
        assert shown and int(shown.group(1)) == measured, (post, shown and shown.group(0), measured)
    assert "computed, not measured" in text
