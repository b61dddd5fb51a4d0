"""What a reader sees first (issue 42), on the pages as GitHub renders them (markdown-it-py: CommonMark with GFM
tables), for the committed report and for pages rendered again from its rows: the index names every refuted and
inconclusive row of the posts (their claims and, apart, their literal readings) within its first 40 rendered lines,
each with the post's value, ours with its unit and a link to the row's line on its page; each post page's first
table starts within its first 25 rendered lines, has at most six columns with the verdict first, and cuts no skip
reason, unit or command."""

from __future__ import annotations

import re

import pytest
from report_rows import REGISTRY, ROOT, document

from llm_claims_harness import markdown, pages, results
from llm_claims_harness.row import Row

markdown_it = pytest.importorskip("markdown_it", reason='markdown-it-py is not installed: pip install -e ".[docs]"')
GFM = markdown_it.MarkdownIt("commonmark").enable("table")
NAMED = ("refuted", "inconclusive", "error")
TABLE = "\t"  # a rendered table row's cells, joined


def rendered(text: str) -> tuple[list[str], list[str]]:
    """The page's rendered lines (a heading, a paragraph, a list item's paragraph, a table row: its cells joined by
    :data:`TABLE`) and, beside each, the links it holds."""
    lines: list[str] = []
    links: list[str] = []
    row: list[str] | None = None
    for token in GFM.parse(text):
        if token.type == "tr_open":
            row, hrefs = [], []
        elif token.type == "tr_close":
            lines.append(TABLE.join(row or []))
            links.append(" ".join(hrefs))
            row = None
        elif token.type == "inline":
            children = token.children or []
            plain = "".join(c.content if c.type in ("text", "code_inline") else " " if c.type == "softbreak" else ""
                            for c in children)
            found = [str(c.attrs.get("href", "")) for c in children if c.type == "link_open"]
            if row is not None:
                row.append(plain.strip())
                hrefs += found
            else:
                lines.append(plain)
                links.append(" ".join(found))
    return lines, links


@pytest.fixture(scope="module", params=["committed", "rendered again"])
def report(request) -> tuple[dict[str, Row], dict[str, str]]:
    rows = {r.id: r for r in results.read(ROOT / "reports" / "results.json").rows}
    if request.param == "committed":
        texts = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "reports").glob("CLAIMS*.md"))}
    else:
        texts = pages.pages(document(rows), REGISTRY)
    return rows, texts


def test_the_index_names_every_refuted_and_inconclusive_post_row_on_its_first_screen(report) -> None:
    rows, texts = report
    lines, links = rendered(texts[pages.INDEX])
    first = list(zip(lines[:40], links[:40]))
    page_of = {r: name for name, text in texts.items() if name != pages.INDEX
               for r in re.findall(r'<a id="(r-[^"]+)"></a>', text)}
    named = [r for r in rows.values() if r.kind in ("post", "literal") and r.verdict in NAMED]
    assert named
    for r in named:
        anchor = markdown.row_anchor(r.id)
        said = [line for line, href in first if f"{page_of[anchor]}#{anchor}" in href.split()]
        assert said, f"{r.id} is not named with a link to its row in the index's first 40 lines"
        line = said[0]
        assert r.id in line, (r.id, line)
        assert f"post: {markdown.post_cell(r)}".replace("\\|", "|") in line, (r.id, line)
        assert f"ours: {markdown.measured_cell(r)}".replace("\\|", "|") in line, (r.id, line)
    # the literal readings apart from the post's own claims, each under its own heading
    for r in named:
        heading = "Literal readings" if r.kind == "literal" else "The post's claims"
        at = next(i for i, line in enumerate(lines) if r.id in line)
        above = [line for line in lines[:at] if line.startswith(("Literal readings", "The post's claims"))]
        assert above and above[-1].startswith(heading), r.id
    # the words of the headline never read as a verdict on a post
    assert "every decided verdict as expected" not in texts[pages.INDEX]


def test_each_post_page_opens_with_its_table_verdict_first(report) -> None:
    rows, texts = report
    for name, text in texts.items():
        if name == pages.INDEX:
            continue
        lines, _ = rendered(text)
        start = next(i for i, line in enumerate(lines) if TABLE in line)
        assert start < 25, (name, start)
        header = lines[start].split(TABLE)
        assert len(header) <= 6 and "verdict" in header[:2], (name, header)
        body = [line.split(TABLE) for line in lines[start + 1:] if TABLE in line]
        assert all(re.match(r"^(✅|❌|❔|⏭|💥|☑)", cells[header.index("verdict")]) for cells in body), name


def test_no_skip_reason_unit_or_command_is_cut(report) -> None:
    rows, texts = report
    for name, text in texts.items():
        if name == pages.INDEX:
            continue
        plain = " ".join(" ".join(rendered(text)[0]).split())
        on_page = set(re.findall(r'<a id="(r-[^"]+)"></a>', text))
        for r in (r for r in rows.values() if markdown.row_anchor(r.id) in on_page):
            if r.verdict == "skipped":
                reason = " ".join((r.reason or "").replace("`", "").split())  # code spans render as their text
                assert reason in plain, (name, r.id, "skip reason cut")
                for command in re.findall(r"`([^`]+)`", r.reason or ""):
                    assert command in plain, (name, r.id, command)
            row_line = next(line for line in text.splitlines() if f'<a id="{markdown.row_anchor(r.id)}"></a>' in line)
            if r.unit and r.post_value is not None:
                assert markdown.post_cell(r) in row_line or "|  |" in row_line.replace("| |", "|  |"), (name, r.id)
            unit = markdown.measured_unit(r.unit)
            if unit and r.measured is not None and r.verdict not in ("skipped", "error"):
                assert f" {unit}".replace("|", "\\|") in row_line, (name, r.id, unit)  # a table cell escapes |


def test_the_screenshot_script_shows_every_page_without_sideways_scrolling(tmp_path) -> None:
    """tools/screenshot_report.py in a real headless browser at 1,000 px (where one is installed: not required in
    CI): a PNG per page, and no table wider than the page (judged with the Korean font the posts need: without it,
    glyph widths are a fallback's, and only the run itself is checked)."""
    import shutil
    import subprocess
    import sys

    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
        pytest.skip("no chromium: apt-get install chromium (the screenshots are a person's check, not CI's)")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "screenshot_report.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    pages_ = sorted((ROOT / "reports").glob("CLAIMS*.md"))
    assert done.returncode in (0, 1), done.stderr
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(f"{p.stem}-1000px.png" for p in pages_)
    assert len(done.stdout.splitlines()) == len(pages_)
    fonts = subprocess.run(["fc-list"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    if "Noto Sans CJK" in fonts:
        assert done.returncode == 0, done.stdout
