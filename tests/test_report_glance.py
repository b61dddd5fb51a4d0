"""What a post's reader must see at a glance on the report's pages (issue 30), on synthetic rows and on the committed
report's rows: a kind marker on every row that is not the post's own claim, the sentence of every quoted row (shortened
in the table, in full with its gloss one click below it), counts per kind and per sentence judged on each page, its
parts and the index, and no literal or control row counted as a refutation of a post (a control as designed never
shows a bare ✅ or ❌)."""

from __future__ import annotations

import re

import pytest
from report_rows import QUOTE, REGISTRY, ROOT, cells, document, doubled, make, synthetic, table, table_ids

from llm_claims_harness import markdown, order, pages, report, results
from llm_claims_harness.row import Quote, Row
from llm_claims_harness.text import LINE_BYTES, fit, inline, shorten, wrap


@pytest.fixture
def rendered() -> dict[str, str]:
    return pages.pages(document(synthetic()), REGISTRY)


@pytest.fixture(scope="module")
def today() -> tuple[dict[str, Row], dict[str, str]]:
    """The committed report's rows, and the pages rendered from them."""
    rows = {r.id: r for r in results.read(ROOT / "reports" / "results.json").rows}
    return rows, pages.pages(document(rows), REGISTRY)


def on_pages(texts: dict[str, str]) -> list[tuple[str, str, str]]:
    """``(page, row id, table line)`` of every row of every page but the index, in table order."""
    return [(name, rid, line) for name, text in texts.items() if name != pages.INDEX
            for rid, line in zip(table_ids(text), table(text))]


def entries(text: str) -> dict[str, str]:
    """The sentences listed below a page's table, by anchor (``q1``: the entry's text, its wrapped lines joined)."""
    out: dict[str, str] = {}
    last = ""
    for line in text.split("## Details by topic")[0].splitlines():
        match = re.match(r'- <a id="(q\d+)"></a>(.*)', line)
        if match:
            last = match.group(1)
            out[last] = match.group(2)
        elif last and line.startswith("    "):
            out[last] += " " + line.strip()
        else:
            last = ""
    return out


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def rule(verdicts: list[str]) -> str:
    """The sentence rule the legend states, written out again: refuted > error > inconclusive > holds > skipped."""
    for verdict in ("refuted", "error", "inconclusive", "holds"):
        if verdict in verdicts:
            return verdict
    return "skipped"


def test_every_row_that_is_not_the_posts_own_claim_shows_its_kind(today, rendered) -> None:
    rows, texts = today
    for which, by_id, pages_of in (("today", rows, texts), ("synthetic", synthetic(), rendered)):
        shown = on_pages(pages_of)
        assert sorted(rid for _, rid, _ in shown) == sorted(by_id), which
        for name, rid, line in shown:
            kind, verdict = by_id[rid].kind, cells(line)["verdict"]
            verdict = re.sub(r" · \*(computed|by construction)\*$", "", verdict)  # its basis, after its kind
            named = [word for word in markdown.KINDS.values() if word and verdict.endswith(f" · *{word}*")]
            assert named == ([] if kind == "post" else [markdown.KINDS[kind]]), (which, name, rid, verdict)
    assert {r.kind for r in rows.values()} == {"post", "literal", "beyond", "control"}  # today shows every kind


def test_a_control_as_designed_never_shows_a_bare_verdict_mark(today) -> None:
    rows, texts = today
    designed = [(name, rid, cells(line)["verdict"]) for name, rid, line in on_pages(texts)
                if rows[rid].kind == "control" and rows[rid].as_expected]
    assert designed and any(rows[rid].verdict == "refuted" for _, rid, _ in designed)
    for name, rid, verdict in designed:
        assert verdict.startswith(f"{report.AS_DESIGNED} {rows[rid].verdict}, as designed"), (name, rid, verdict)
        assert not {"✅", "❌"} & set(verdict), (name, rid, verdict)
    broken = make("toy.control[broken]", kind="control", verdict="holds", expect="refuted")
    line = table(pages.pages(document({broken.id: broken}), REGISTRY)["CLAIMS-beyond.md"])[0]
    assert cells(line)["verdict"] == "✅ holds ⚠ not as designed: designed to be refuted · *control*"


def test_every_quoted_row_shows_its_sentence_with_the_gloss_one_click_away(today) -> None:
    """The first row of each sentence shows the quote, shortened, linking to the sentence in full with its gloss
    below the table (outside any collapsed block); every post or literal row on a post's page quotes one."""
    rows, texts = today
    assert all(r.quote for r in rows.values() if r.kind in report.JUDGED)
    for name, text in texts.items():
        if name == pages.INDEX:
            continue
        listed, above = entries(text), None
        for rid, line in zip(table_ids(text), table(text)):
            r, sentence = rows[rid], cells(line)["sentence"]
            if not r.quote:
                assert sentence == "", (name, rid)
                continue
            key = (r.post, " ".join(r.quote.text.split()))  # a sentence, whatever claim quotes it
            if key == above:
                assert sentence == "", (name, rid)  # the sentence is shown once, above its rows
                continue
            above = key
            match = re.fullmatch(r"\[(Q\d+)\]\(#(q\d+)\) “(.*)”", sentence)
            assert match and match.group(1).lower() == match.group(2), (name, rid, sentence)
            # shortened, shorter where the table's line would be over its bytes
            assert match.group(3) in [inline(shorten(r.quote.text, q)) for _, q in markdown.SHORTER]
            entry = listed[match.group(2)]
            assert f"`{r.claim_id}`" in entry
            assert squeezed(f"“{inline(r.quote.text)}” — *{inline(r.quote.gloss)}*") in squeezed(entry), (name, rid)


def test_a_quote_with_markup_characters_stays_one_cell(rendered) -> None:
    line = table(rendered["CLAIMS-A.md"])[0]  # quotes QUOTE: a '|', a '*' and a '<'
    assert cells(line)["sentence"] == f"[Q1](#q1) “{inline(shorten(QUOTE.text, markdown.QUOTE))}”"
    assert shorten(QUOTE.text, markdown.QUOTE) == "위치 정보는 완벽하게 학습하지만 | *별*…"  # cut at a word boundary
    assert "\\|" in cells(line)["sentence"] and "\\*별\\*" in cells(line)["sentence"]
    assert "\\| \\*별\\* \\<표\\> 새 위치는" in entries(rendered["CLAIMS-A.md"])["q1"]  # in full below, escaped


def test_the_sentence_rule() -> None:
    for verdicts, sentence in ((["holds", "refuted"], "refuted"), (["holds", "skipped"], "holds"),
                               (["holds", "inconclusive"], "inconclusive"), (["skipped", "skipped"], "skipped"),
                               (["error", "holds"], "error"), (["refuted", "error"], "refuted")):
        assert report.sentence_verdict([make(f"toy.s[{i}]", verdict=v) for i, v in enumerate(verdicts)]) == sentence
        assert rule(verdicts) == sentence


def test_twelve_rows_of_one_sentence_read_as_one_sentence_judged() -> None:
    rows = {r.id: r for r in (make(f"toy.table[cell{i}]") for i in range(12))}
    texts = pages.pages(document(rows), REGISTRY)
    line = "- the posts' claims: 1 sentence judged: 1 confirmed — 12 rows: 12 confirmed"
    assert line in texts["CLAIMS-A.md"].splitlines()
    assert "**The post's claims**: 1 sentence judged: 1 confirmed (12 rows)." in texts["CLAIMS.md"].splitlines()
    assert "**12 rows**, **1 sentence judged**" in texts["CLAIMS-A.md"]
    assert "the post: 1 sentence (12 rows): 1 confirmed</summary>" in texts["CLAIMS-A.md"]
    assert [cells(line)["sentence"] != "" for line in table(texts["CLAIMS-A.md"])] == [True] + [False] * 11


def test_the_cases_of_one_sentence_stand_together() -> None:
    other = Quote("새 위치는 바닥을 칩니다", "new positions hit the floor")
    rows = [make("toy.mixed[a1]"), make("toy.mixed[b1]", quote=other), make("toy.mixed[a2]"),
            make("toy.mixed[b2]", quote=other)]
    assert [r.id for r in order.by_sentence(rows)] == ["toy.mixed[a1]", "toy.mixed[a2]", "toy.mixed[b1]",
                                                       "toy.mixed[b2]"]
    text = pages.pages(document({r.id: r for r in rows}), REGISTRY)["CLAIMS-A.md"]
    assert [cells(line)["sentence"][:9] for line in table(text)] == ["[Q1](#q1)", "", "[Q2](#q2)", ""]
    assert "**4 rows**, **2 sentences judged**" in text


def test_counts_per_kind_and_per_sentence_on_each_page_and_the_index(today) -> None:
    """Each post's page (its first part) and the index count the post's sentences judged, by the legend's rule
    computed here again, beside its rows, for the post's claims and for the literal readings apart."""
    rows, texts = today
    for post in REGISTRY.posts:
        ours = [r for r in rows.values() if r.post == post.id]
        if not ours:
            continue
        line = f"the posts' claims: {{n}} sentences judged: {{counts}} — {len([r for r in ours if r.kind == 'post'])} rows:"
        judged: dict[tuple, list[tuple[str, str]]] = {}
        for r in ours:
            if r.kind == "post":  # a sentence, whatever claim quotes it
                judged.setdefault(" ".join(r.quote.text.split()), []).append((r.verdict, r.basis))
        words = {"holds": "confirmed", "refuted": "refuted", "inconclusive": "inconclusive", "skipped": "skipped",
                 "error": "error"}
        by_basis: dict[str, list[str]] = {"measured": [], "computed": [], "construction": []}
        for rs in judged.values():  # a sentence is counted apart unless a measured row gives its verdict
            v = rule([verdict for verdict, _ in rs])
            giving = {basis for verdict, basis in rs if verdict == v}
            by_basis[next(b for b in by_basis if b in giving)].append(v)
        counts = " · ".join(
            [f"{by_basis['measured'].count(v)} {words[v]}" for v in words if by_basis["measured"].count(v)]
            + [f"{report.APART[b]}: " + ", ".join(f"{by_basis[b].count(v)} {words[v]}" for v in words
                                                   if by_basis[b].count(v)) for b in ("computed", "construction")
               if by_basis[b]])
        expected = line.format(n=len(judged), counts=counts)
        assert expected in texts[f"CLAIMS-{post.id}.md"], post.id
        n_rows = len([r for r in ours if r.kind == "post"])
        assert f"**The post's claims**: {len(judged)} sentences judged: {counts} ({n_rows} rows)" in texts[pages.INDEX]
        n_literal = len({" ".join(r.quote.text.split()) for r in ours if r.kind == "literal"})
        if n_literal:
            assert (f"**Literal readings of its sentences (not counted against the post)**: {n_literal} sentence"
                    in texts[pages.INDEX])
    assert "Sentences judged (Q), in full with an English gloss. " + report.SENTENCE_RULE[:60] in texts["CLAIMS-A.md"]


def topic_headers(text: str) -> dict[str, str]:
    """A page's topic headers (the counts after the title) by anchor."""
    return dict(re.findall(r'<a id="([^"]+)"></a>\n<details><summary><b>.*?</b> · (.*)</summary>', text))


def test_no_topic_header_counts_a_literal_or_control_row_as_refuted(today) -> None:
    rows = [make("toy.t_post"), make("toy.t_literal", kind="literal", verdict="refuted", expect="refuted"),
            make("toy.t_control[a]", kind="control", verdict="refuted", expect="refuted"),
            make("toy.t_control[b]", kind="control", section="exp3")]
    texts = pages.pages(document({r.id: r for r in rows}), REGISTRY)
    assert set(topic_headers(texts["CLAIMS-A.md"]).values()) == {
        "the post: 1 sentence (1 row): 1 confirmed; literal, not counted: 1 sentence (1 row): 1 refuted"}
    assert set(topic_headers(texts["CLAIMS-beyond.md"]).values()) == {"controls: 2 rows: 2 behave as designed"}
    by_id, texts = today
    for name, text in texts.items():
        if name == pages.INDEX:
            continue
        anchor, in_topic = "", {}
        for rid, line in zip(table_ids(text), table(text)):
            link = re.search(r"\]\(#([^)]+)\)", cells(line)["claim"])
            anchor = link.group(1) if link else anchor
            in_topic.setdefault(anchor, []).append(by_id[rid])
        for anchor, header in topic_headers(text).items():
            topic = in_topic[anchor]
            parts = dict(part.split(": ", 1) for part in header.split("; "))
            assert set(parts) <= {"the post", "literal, not counted", "beyond", "controls"}, header
            refuted = sum(report.sentence_verdict(rs) == "refuted"
                          for rs in report.sentences(r for r in topic if r.kind == "post").values())
            said = re.search(r"(\d+) refuted", parts.get("the post", ""))
            assert (int(said.group(1)) if said else 0) == refuted, (name, header)
            assert "refuted" not in parts.get("controls", ""), (name, header)


def test_a_part_says_the_whole_pages_counts() -> None:
    rows = doubled(list(results.read(ROOT / "reports" / "results.json").rows))
    texts = pages.pages(document(rows), REGISTRY)
    split = sorted({name.split(".")[0] for name in texts if re.fullmatch(r"CLAIMS-[^.]+\.\d+\.md", name)})
    assert split
    for key in split:
        parts = [name for name in texts if name.split(".")[0] == key]
        whole = f"The whole page ({' · '.join(f'[part {k}]({name})' for k, name in enumerate(parts, 1))}):"
        heads = [re.split(r"\n(?:Inconclusive|Expectations) in this part: ", texts[name].split(whole)[1])[0] for name in parts]
        assert all(head == heads[0] for head in heads), key
        n = sum(len(table(texts[name])) for name in parts)
        assert heads[0].lstrip().startswith(f"**{n} rows**"), key




def test_korean_prose_wraps_within_the_line_budget_in_bytes_and_keeps_every_word() -> None:
    """A Hangul syllable is 3 bytes in UTF-8: a sentence wrapped at 300 characters would be a 900-byte line. Wrapped
    lines keep every word (nothing cut) and none is over ``LINE_BYTES`` bytes; a line cut as a last resort, too."""
    sentence = "더하기는 공짜인 대신 두 신호가 섞이는데, 고차원 공간에서는 학습이 위치 성분과 의미 성분을 " * 12
    lines = wrap(sentence, "- ")
    assert max(len(line.encode("utf-8")) for line in lines) <= LINE_BYTES
    assert " ".join(" ".join(lines).split()) == "- " + " ".join(sentence.split())
    assert len(fit("가" * 500).encode("utf-8")) <= LINE_BYTES and fit("short") == "short"
