"""Screenshots of the report's pages as a reader sees them: each page rendered as GitHub renders Markdown (markdown-it-py:
CommonMark with GFM tables; GitHub's layout rules for a file's Markdown: a centred body at most 980 px wide with 32 px
padding, tables as scrollable blocks of their content's width, 6 px × 13 px cells, images at most the body's width),
opened in a real headless browser (Debian's chromium) at a window 1,000 px wide, and saved as PNG. For each page it
also says how wide its widest table is against the room it has, the test of "readable without horizontal
scrolling" (a GitHub table wider than the body scrolls sideways).

    python tools/screenshot_report.py                    # reports/ -> screenshots/*.png, one line per page
    python tools/screenshot_report.py --report-dir .claims/report --out /tmp/shots --width 1400

Needs markdown-it-py (``pip install -e ".[docs]"``) and chromium (``apt-get install chromium``, or --browser PATH).
Exit status 1 when a page's table would scroll sideways at that width, 2 on a usage error (no browser, no pages).
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# GitHub's rules that decide a Markdown page's layout (github-markdown-css, MIT): the rest is typography.
CSS = """
body { margin: 0; padding: 16px; background: #fff; }
.markdown-body { box-sizing: border-box; max-width: 980px; margin: 0 auto; padding: 32px;
  font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Sans CJK KR";
  font-size: 16px; line-height: 1.5; color: #1f2328; word-wrap: break-word; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; margin: 0 0 16px; }
.markdown-body td, .markdown-body th { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body th { font-weight: 600; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body img { max-width: 100%; box-sizing: content-box; }
.markdown-body code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 85%;
  padding: .2em .4em; background: rgba(129,139,152,.12); border-radius: 6px; }
.markdown-body h1, .markdown-body h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
"""
# Written into the page's title once laid out: each table's content width and the width it is given.
MEASURE = """<script>
addEventListener("load", () => {
  const widths = [...document.querySelectorAll("table")].map(t => t.scrollWidth + "/" + t.clientWidth);
  document.title = "widths:" + widths.join(",");
});
</script>"""


def html_page(markdown_text: str, title: str) -> str:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown_text)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style>{MEASURE}</head><body><article class='markdown-body'>{body}</article></body></html>")


def browser(given: str | None) -> str:
    found = given or shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not found:
        raise SystemExit("screenshot_report: no chromium found: apt-get install chromium, or pass --browser PATH")
    return found


def shoot(chrome: str, page: Path, png: Path, width: int, height: int) -> list[tuple[int, int]]:
    """Save ``page``'s screenshot to ``png``; return each table's (content width, width given) in CSS px."""
    flags = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},{height}"]
    subprocess.run([*flags, f"--screenshot={png}", page.as_uri()], check=True, capture_output=True, timeout=120)
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], check=True, capture_output=True, text=True,
                         timeout=120).stdout
    title = re.search(r"<title>widths:([^<]*)</title>", dom)
    return [tuple(map(int, pair.split("/"))) for pair in title.group(1).split(",") if pair] if title else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report-dir", type=Path, default=ROOT / "reports", help="the report (default: reports/)")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots", help="where the PNGs go")
    parser.add_argument("--width", type=int, default=1000, help="the window's width in CSS px (default 1000)")
    parser.add_argument("--height", type=int, default=1600, help="the window's height: the first screen(s) shown")
    parser.add_argument("--browser", help="the chromium binary (default: chromium on PATH)")
    args = parser.parse_args(argv)
    pages = sorted(args.report_dir.glob("CLAIMS*.md"))
    if not pages:
        print(f"screenshot_report: no CLAIMS*.md in {args.report_dir}", file=sys.stderr)
        return 2
    chrome = browser(args.browser)
    args.out.mkdir(parents=True, exist_ok=True)
    scrolls = 0
    with tempfile.TemporaryDirectory() as tmp:
        for md in pages:
            # beside the report's own files, so that its figures load
            page = args.report_dir / f".{md.stem}.screenshot.html"
            try:
                page.write_text(html_page(md.read_text(encoding="utf-8"), md.name), encoding="utf-8")
                png = args.out / f"{md.stem}-{args.width}px.png"
                widths = shoot(chrome, page, Path(tmp) / png.name, args.width, args.height)
                shutil.move(Path(tmp) / png.name, png)
            finally:
                page.unlink(missing_ok=True)
            wide = [(content, given) for content, given in widths if content > given]
            scrolls += bool(wide)
            said = (f"{len(wide)} of {len(widths)} tables scroll sideways ({', '.join(f'{c} px in {g}' for c, g in wide)})"
                    if wide else f"{len(widths)} tables, widest {max((c for c, _ in widths), default=0)} px, none "
                                 "scrolls sideways")
            print(f"{md.name}: {png} · {said}")
    return 1 if scrolls else 0


if __name__ == "__main__":
    sys.exit(main())
