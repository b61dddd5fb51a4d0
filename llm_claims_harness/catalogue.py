"""The claims catalogue: every declared claim, read from the declarations alone (nothing is measured).

``pytest --claims-catalogue`` collects the suite and writes ``reports/CATALOGUE.md`` (or the path given):
per row id its kind, the post and section it comes from, the statement, the post's value, the tolerance
with its reason, the expected verdict with its source (and, when it was revised after measuring, the
pre-registered one with the evidence), and the claim version. The committed file is
checked against the declarations by ``tests/test_catalogue.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from llm_claims_harness.atomic import write_text_atomic
from llm_claims_harness.posts import Registry
from llm_claims_harness.report import show
from llm_claims_harness.row import Declared


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(rows: Iterable[tuple[Declared, str]], registry: Registry) -> str:
    """The catalogue as Markdown: one table line per row, grouped by test file, in declaration order.
    ``rows`` are :meth:`llm_claims_harness.declare.Claim.resolve` results with the item's test file."""
    rows = list(rows)
    lines = ["# Claims catalogue", "",
             f"{len(rows)} rows, read from the `@claim(...)` declarations (`pytest --claims-catalogue`); "
             "nothing here is measured. Measured values and verdicts are in `CLAIMS.md`.", "",
             *(f"- {p.cited()}" for p in registry.posts), ""]
    by_file: dict[str, list[Declared]] = {}
    for r, file in rows:
        by_file.setdefault(file, []).append(r)
    for file, rs in by_file.items():
        lines += [f"## `{file}`", "", "| id | kind | source | statement | post | tolerance | expected | v |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in rs:
            tol, rev = r.tolerance, r.revision
            revised = (f" (revised after measuring, pre-registered {r.preregistered_expect}: "
                       f"{_cell(r.preregistered_source)}; why: {_cell(rev.why)}; evidence: "
                       f"{_cell(rev.evidence)}, code {rev.code[:12]})" if rev else "")
            post = show(r.post_value) + (f" {r.unit}" if r.unit and r.post_value is not None else "")
            quote = f": “{_cell(r.quote.text)}” ({_cell(r.quote.gloss)})" if r.quote else ""
            where = registry.label(r.post, r.section)
            lines.append(
                f"| `{r.id}` | {r.kind} | {f'§ {where}: ' if where else ''}{_cell(r.source)}{quote} "
                f"| {_cell(r.statement)} | {_cell(post)} | {_cell(tol.describe())}: {_cell(tol.reason)} "
                f"| {r.expected_verdict}: {_cell(r.expect_source)}{revised} | {r.version} |")
        lines.append("")
    return "\n".join(lines)


def write(path: Path, rows: Iterable[tuple[Declared, str]], registry: Registry) -> Path:
    """Write :func:`markdown` of ``rows`` to ``path`` atomically; returns ``path``.

    Raises:
        OSError: the directory cannot be created or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, markdown(rows, registry) + "\n")
    return path
