"""The claims catalogue: every declared claim, read from the declarations alone (nothing is measured).

``pytest --claims-catalogue`` collects the suite and writes, in the report directory, ``CATALOGUE.md`` (the index:
the posts, the count, the pages and the test files each holds) and the pages ``CATALOGUE-1.md``, … : per test file,
one table line per row id with its kind, its post with its section, the statement, the post's value, the tolerance
with its reason, the expected verdict with its source (and, when it was revised after measuring, the
pre-registered one with the evidence), and the claim version. Every declaration is written in full, so the test
files are packed into as many pages as the byte budget (:data:`llm_claims_harness.markdown.BUDGET`) needs (a table
line holds a whole declaration, so lines run long); a page an earlier catalogue wrote that this one lacks is removed. The suite's tests check the committed catalogue against
the declarations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from llm_claims_harness import lock
from llm_claims_harness.atomic import remove_generated, write_text_atomic
from llm_claims_harness.markdown import BUDGET
from llm_claims_harness.pages import GENERATED
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import show
from llm_claims_harness.row import Declared

INDEX = "CATALOGUE.md"
PAGE_GLOB = "CATALOGUE-*.md"
_HEAD = ["| id | kind | source | statement | post | tolerance | expected | v |", "|---|---|---|---|---|---|---|---|"]


class CatalogueBudgetError(ValueError):
    """One declaration alone does not fit a catalogue page's budget."""


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _line(r: Declared, registry: Registry) -> str:
    tol, rev = r.tolerance, r.revision
    revised = (f" (revised after measuring, pre-registered {r.preregistered_expect}: "
               f"{_cell(r.preregistered_source)}; why: {_cell(rev.why)}; evidence: "
               f"{_cell(rev.evidence)}, code {rev.code[:12]})" if rev else "")
    post = show(r.post_value) + (f" {r.unit}" if r.unit and r.post_value is not None else "")
    quote = f": “{_cell(r.quote.text)}” ({_cell(r.quote.gloss)})" if r.quote else ""
    where = registry.label(r.post, r.section)
    kind = r.kind + (f" ({r.basis})" if r.basis != "measured" else "")
    return (f"| `{r.id}` | {kind} | {f'§ {where}: ' if where else ''}{_cell(r.source)}{quote} "
            f"| {_cell(r.statement)} | {_cell(post)} | {_cell(tol.describe())}: {_cell(tol.reason)} "
            f"| {r.expected_verdict}: {_cell(r.expect_source)}{revised} | {r.version} |")


def _size(lines: list[str]) -> int:
    return len("\n".join(lines).encode("utf-8")) + 1


def _head(page: int) -> list[str]:
    return [GENERATED, f"# Claims catalogue, page {page}", "", f"[← index]({INDEX})", ""]


def pages(rows: Iterable[tuple[Declared, str]], registry: Registry, budget: int = BUDGET) -> dict[str, str]:
    """The catalogue (file name → text), the index first. ``rows`` are
    :meth:`llm_claims_harness.declare.Claim.resolve` results with the item's test file, in declaration order.

    Raises:
        CatalogueBudgetError: one declaration's line is over ``budget``.
    """
    rows = list(rows)
    blocks: list[tuple[str, list[str]]] = []  # (test file, its table lines), a file over budget in several blocks
    for r, file in rows:
        line = _line(r, registry)
        if _size([*_head(999), f"## `{file}`", "", *_HEAD, line, ""]) > budget:
            raise CatalogueBudgetError(f"{r.id}: its declaration alone is over a page of {budget} bytes")
        if not blocks or blocks[-1][0] != file or _size([*_head(999), f"## `{file}`", "", *_HEAD,
                                                         *blocks[-1][1], line, ""]) > budget:
            blocks.append((file, []))
        blocks[-1][1].append(line)
    texts: list[list[str]] = []
    files: list[list[str]] = []
    for file, lines in blocks:
        section = [f"## `{file}`", "", *_HEAD, *lines, ""]
        if not texts or _size(texts[-1] + section) > budget:
            texts.append(_head(len(texts) + 1))
            files.append([])
        texts[-1] += section
        files[-1] += [file] if file not in files[-1] else []
    names = [f"CATALOGUE-{k}.md" for k in range(1, len(texts) + 1)]
    index = [GENERATED, "# Claims catalogue", "",
             f"{len(rows)} rows, read from the `@claim(...)` declarations (`pytest --claims-catalogue`); "
             "nothing here is measured. Measured values and verdicts are in `CLAIMS.md`.", "",
             *(f"- {p.cited()}" for p in registry.posts), "",
             *(f"- [{name}]({name}): " + ", ".join(f"`{f}`" for f in fs) for name, fs in zip(names, files))]
    return {INDEX: "\n".join(index) + "\n", **{n: "\n".join(t) + "\n" for n, t in zip(names, texts)}}


def listed_files(out: Path) -> list[str]:
    """The test files the catalogue in ``out`` lists on its index (none when there is no readable catalogue)."""
    try:
        text = (out / INDEX).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [f for line in text.splitlines() if re.match(r"- \[CATALOGUE-\d+\.md\]", line)
            for f in re.findall(r"`([^`]+)`", line.partition(": ")[2])]


def write(out: Path, rows: Iterable[tuple[Declared, str]], registry: Registry) -> Path:
    """Write :func:`pages` of ``rows`` into the directory ``out`` atomically, under its report lock
    (:func:`llm_claims_harness.lock.writing`: a page of an earlier catalogue that this one lacks is removed, never
    one another run is writing); returns the index's path.

    Raises:
        OSError: the directory cannot be created or written, or another run held its lock too long.
    """
    texts = pages(rows, registry)
    with lock.writing(out):
        for name, text in texts.items():
            write_text_atomic(out / name, text)
        remove_generated(out, PAGE_GLOB, GENERATED, keep=set(texts))
    return out / INDEX
