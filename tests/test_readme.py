"""README is the first screen (issue 33): at most 150 lines; what a run gives (report rows and the headline counts,
each line as the committed report has it, so the README cannot drift from the report), its cost before you start,
the two commands with the CPU-wheel line, a first run that names a real file and row, where the output lands, and
links for three readers that all resolve. The reference lives in ``docs/`` (``tests/test_docs.py`` builds it)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
REPORT = ROOT / "reports"
# [text](target) on one line, the text may hold [brackets]
LINK = re.compile(r"\[((?:[^\[\]\n]|\[[^\]\n]*\])*)\]\(([^)\n]*)\)")


def _block(name: str, text: str = README) -> list[str]:
    body = text.split(f"<!-- {name}", 1)[1].split(f"<!-- /{name} -->", 1)[0]
    return [line for line in body.splitlines()[1:] if line.strip()]


def _unlinked(text: str) -> str:
    """``text`` without its links, the rows' anchors and the line-break hints a page's ids carry."""
    return re.sub(r'<a id="[^"]*"></a>|<wbr>', "", LINK.sub(r"\1", text))


def test_readme_fits_one_screen_of_sections() -> None:
    assert len(README.splitlines()) <= 150
    headings = re.findall(r"(?m)^## (.+)$", README)
    assert headings == ["What you get", "Before you start: cost and downloads", "Two commands",
                        "A first run in 30 seconds", "Where the output lands", "Where to go next"]


def test_the_rows_shown_are_the_reports_own() -> None:
    pages = "\n".join(_unlinked(p.read_text(encoding="utf-8")) for p in sorted(REPORT.glob("CLAIMS-*.md")))
    for where, rows in (("README", _block("report-rows")),
                        ("docs/report.md", _block("example-rows", (ROOT / "docs" / "report.md").read_text("utf-8")))):
        assert len(rows) >= 4 and rows[0].startswith("| verdict |")
        missing = [row for row in rows if row not in pages.splitlines()]
        assert not missing, f"{where}'s rows not on any page of reports/ (copy them again from the page): {missing}"


def test_the_headline_counts_are_the_index_s() -> None:
    index = (REPORT / "CLAIMS.md").read_text(encoding="utf-8")
    lines = _block("headline")
    assert lines and all(line in index.splitlines() for line in lines), lines
    total = re.search(r"\*\*(\d[\d,]*) rows\*\*", index).group(1)
    assert f"{total} rows in all" in README


def test_cost_and_the_two_commands_come_first() -> None:
    first = README.split("## A first run", 1)[0]
    for needed in ("min on 2 CPU cores", "GB", "--index-url https://download.pytorch.org/whl/cpu",
                   "python -m pip install torch==2.13.0 -e ./llm_claims_harness", "pytest -n auto"):
        assert needed in first, needed


def test_the_first_run_names_a_real_file_and_row() -> None:
    section = README.split("## A first run", 1)[1].split("\n## ", 1)[0]
    path = re.search(r"pytest (claims/\S+\.py)", section).group(1)
    assert (ROOT / path).is_file()
    row = re.search(r"-k '([^']+)'", section).group(1)
    assert f'id="{row}"' in (ROOT / path).read_text(encoding="utf-8")


def test_every_link_resolves() -> None:
    targets = [target for _, target in LINK.findall(README) if not target.startswith(("http", "#"))]
    assert len(targets) >= 4
    assert [t for t in targets if not (ROOT / t.split("#")[0]).exists()] == []
    for reader in ("reports/CLAIMS.md", "docs/adding-a-claim.md", "llm_claims_harness/README.md"):
        assert reader in targets, reader
