"""Coverage counted by sentence (issue 43, item 8): "sentences judged" counts distinct sentences of each post (one
quote, whatever claims test it), each with one verdict by the rule the pages state, its rows' claims listed with it."""

from __future__ import annotations

import re
from pathlib import Path

from llm_claims_harness import report
from llm_claims_harness.results import read

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "reports"


def _distinct(rows, kind: str) -> set[tuple[str, str]]:
    return {(r.post, " ".join(r.quote.text.split())) for r in rows if r.kind == kind}


def test_the_index_counts_each_quoted_sentence_once() -> None:
    rows = read(REPORT / "results.json").rows
    text = (REPORT / "CLAIMS.md").read_text(encoding="utf-8")
    for kind, title in (("post", "the posts' claims"), ("literal", "literal readings (not counted against the posts)")):
        n = len(_distinct(rows, kind))
        assert f"- {title}: {n} sentences judged:" in text, (kind, n)
    # a sentence more than one claim tests is one sentence (the audit's three: one verdict each, not ✅ and ❔)
    shared = [s for s, rs in report.sentences(rows).items() if len({r.claim_id for r in rs}) > 1]
    assert len(shared) >= 5


def test_each_page_lists_a_sentence_once_with_all_its_claims() -> None:
    rows = read(REPORT / "results.json").rows
    for page in sorted(REPORT.glob("CLAIMS-*.md")):
        text = page.read_text(encoding="utf-8")
        entries = re.findall(r'^- <a id="q\d+"></a>\*\*Q\d+\*\* (.*?): “(.*?)” — \*', text, flags=re.M)
        quotes = [q for _, q in entries]
        assert len(quotes) == len(set(quotes)), page.name
        for claims, quote in entries:
            testing = {r.claim_id for r in rows if r.quote and " ".join(r.quote.text.split()) == " ".join(quote.split())
                       and f"`{r.claim_id}`" in text.split("## Details by topic")[0]}
            assert all(f"`{c}`" in claims for c in testing), (page.name, quote[:30], testing)
