"""``reports/CLAIMS.md``, the report for people, drawn from the ``results.json`` document.

Layout: (1) a header block saying what was measured where (date, commit and tree hash, versions, device,
seeds, command, wall time); (2) the counts by kind of claim and verdict, and the inconclusive rows; (3) one
compact table, a line per row in the posts' order (:mod:`llm_claims_harness.order`): id (linking to its
topic), where in the posts, the post's value, the measured value (± its noise SD), verdict, claim version,
figures; (4) one collapsible ``<details>`` block per topic (a test module's docstring title) with each
claim's statement, tolerance and reason, expectation source, version note, and the topic's deviations and
skip reasons written once each (rows cite them as ``D1``, ``S1``). Long values and prose are cut with an
ellipsis (every value in full: ``results.json``; every declaration in full: ``CATALOGUE.md``); no line is
longer than :data:`MAX_LINE` characters.
"""

from __future__ import annotations

from collections import Counter

from llm_claims_harness import order
from llm_claims_harness.declare import DECISION_SIGMAS, QUOTED_KINDS
from llm_claims_harness.legend import Legend, skip_legend
from llm_claims_harness.report import MARK, REVISED, inconclusive, revised, show, summary_lines
from llm_claims_harness.text import cell, cut, slug, wrap

MAX_LINE = 400  # no line of CLAIMS.md is longer
BUDGET = 39_900  # bytes: CLAIMS.md stays under 40 KB when the rows allow it
CELL = 20  # table cells (the post's value, the measured value) are cut to this many characters
# How much prose the details keep, from the fullest level to the leanest: characters per text, 0 = left out
# (every declaration in full: CATALOGUE.md). render() takes the first level that fits its byte budget.
LEVELS = tuple(dict(zip(("statement", "case", "reason", "reasons", "expect", "note", "deviation", "skip"), caps))
               for caps in ((400, 200, 300, 3, 240, 300, 800, 800),
                            (240, 140, 200, 2, 160, 200, 600, 600),
                            (160, 90, 120, 2, 100, 120, 400, 400),
                            (130, 0, 90, 2, 0, 90, 300, 300),
                            (110, 0, 70, 1, 0, 70, 260, 260),
                            (100, 0, 60, 1, 0, 60, 220, 220),
                            (90, 0, 50, 1, 0, 50, 180, 200),
                            (80, 0, 45, 1, 0, 40, 150, 160),
                            (75, 0, 40, 1, 0, 40, 130, 150),
                            (70, 0, 40, 1, 0, 0, 120, 140),
                            (60, 0, 0, 0, 0, 0, 100, 100),
                            (50, 0, 0, 0, 0, 0, 80, 90),
                            (40, 0, 0, 0, 0, 0, 60, 80)))
INTRO = ("The claims two posts make about LLM internals, measured and judged with each claim's declared tolerance. "
         "In full: declarations [CATALOGUE.md](CATALOGUE.md), values [results.json](results.json) "
         "([SCHEMA.md](SCHEMA.md)). Post A: \"LLM from the Scratch in DGX Spark — (8) 위치 Embedding에 대해서 "
         "알아보자\" (2026-07-12); post B: an untitled explainer of sinusoidal positional encoding.")
LEGEND = (f"✅ holds · ❌ refuted · ❔ inconclusive (a bound within {DECISION_SIGMAS:g} noise SDs, or inside a share's interval) · ⏭ skipped (S: "
          "reason below the table) · 💥 error · ⚠ not the declared expectation · "
          f"{REVISED} expectation set after measuring (a finding or a regression check) · ↺ carried from an earlier run. "
          "Controls hold or are refuted as designed unless ⚠. §: where in the posts; v: the claim's version.")


def devices_line(env: dict, claims: list[dict]) -> str:
    """Where the rows ran: the measurement device (``env['device']``) for rows that train or load models,
    the CPU for the rest; every row carries its own ``device``."""
    on = Counter(r.get("device", "cpu").split(":")[0] for r in claims)
    if set(on) <= {"cpu"}:
        return f"Device: {env['device']} (every row)"
    return (f"Devices: {env['device']} for the {on['cuda']} rows that train or load models; "
            f"cpu for the other {on['cpu']}")


def _header(data: dict) -> list[str]:
    env, claims = data["environment"], data["claims"]
    seeds = ", ".join(map(str, env.get("seeds", [env.get("seed")])))
    return [
        f"- **Measured** {env['date']} · commit `{env['git_commit']}` · tree `{env.get('git_tree', 'unknown')}`",
        f"- **Versions** Python {env['python']} · torch {env['torch']} · transformers {env['transformers']} · "
        f"numpy {env['numpy']} · {env['platform']}",
        f"- {devices_line(env, claims)} · seeds {seeds} · xdist workers: {env['xdist_workers']}",
        f"- **Command** `{cut(env['command'], 200)}` · {env['wall_s']} s",
    ]


def _counts(data: dict) -> list[str]:
    claims = data["claims"]
    unexpected = [r["id"] for r in claims if r.get("as_expected") is False]
    lines = [f"**{len(claims)} rows** — " + (f"**not as expected: {', '.join(unexpected)}**" if unexpected
                                            else "every decided verdict as expected."), ""]
    lines += [f"- {line}" for line in summary_lines(claims)] + [""]
    findings = revised(claims)
    if findings:
        lines += wrap(f"{REVISED} {len(findings)} expectations set after measuring, marked {REVISED} in the table: findings "
                      "of the suite on committed evidence from seeds disjoint from the run's, or regression checks of "
                      "fixed inputs; not predictions that held (the pre-registered verdict and the evidence: "
                      "CATALOGUE.md, results.json).") + [""]
    undecided = inconclusive(claims)
    if undecided:
        lines += wrap(f"Inconclusive (within {DECISION_SIGMAS:g} noise SDs of a bound, or a bound inside the interval): "
                          f"{', '.join(undecided)}")
        lines.append("")
    if data.get("carried_over"):
        stamps = Counter((str((r.get("measured_at") or {}).get("git_commit")), str((r.get("measured_at") or {})
                          .get("date"))[:10]) for r in claims if r.get("carried"))
        at = ", ".join(f"`{commit}` {date} ({n} rows)" for (commit, date), n in stamps.most_common())
        lines += wrap(f"> Partial run: {data['measured_this_run']} rows measured now, {data['carried_over']} carried "
                       f"over from earlier runs (marked ↺), measured at {at}") + [""]
    if data.get("not_carried"):
        gone = ", ".join(f"{n['id']} (v{n['version']} → v{n['declared_version']})" for n in data["not_carried"])
        lines += wrap(f"> Not carried, measured under another claim version: {gone}") + [""]
    if data.get("warning"):
        lines += wrap(f"> Warning: {data['warning']}") + [""]
    return lines


def _measured(r: dict) -> str:
    if r["verdict"] in ("skipped", "error"):
        return "—"
    text = cut(show(r["measured"]), CELL)
    if isinstance(r["measured"], list) and r.get("max_abs_diff"):
        text += f" (Δ {show(r['max_abs_diff'], 2)})"
    if r.get("noise_sd") is not None:
        text += f" ± {show(r['noise_sd'], 2)}"
    elif r.get("interval"):
        text += f" [{show(r['interval'][0], 2)}, {show(r['interval'][1], 2)}]"
    return cell(text)


def _verdict(r: dict, labels: dict[str, str]) -> str:
    text = MARK.get(r["verdict"], r["verdict"])
    if r["verdict"] == "inconclusive" and isinstance(r.get("margin_sigma"), (int, float)):
        text += f" {r['margin_sigma']:+.1f} SD"
    if r.get("as_expected") is False:
        text += f" ⚠ expected {r['expected_verdict']}"
    if r.get("revision"):
        text += f" {REVISED}"
    if r["id"] in labels:
        text += f" {labels[r['id']]}"
    if r.get("carried"):
        text += " ↺"
    return text


def _where(r: dict) -> str:
    return order.section(r.get("source", ""))[2] if r.get("kind") in QUOTED_KINDS else str(r.get("kind"))


def _figures(r: dict) -> str:
    links = []
    for path in r.get("figures") or []:
        name = path.rsplit("/", 1)[-1]
        links.append(f"[{'table' if name.endswith('.md') else 'plot'}]({path})")
    return " ".join(links)


def _table(rows: list[dict], anchors: dict[str, str], labels: dict[str, str]) -> list[str]:
    """One line per row. A row that follows another case of the same claim shows only ``↳ [case]`` (and its
    figures only when they differ from the case above), and the section (§) is shown where it changes: the
    table reads as the posts' sections, claims and their cases."""
    lines = ["| id | § | post | measured | verdict | v | fig |", "|---|---|---|---|---|---|---|"]
    above: dict = {}
    for r in rows:
        post = show(r["post_value"]) + (f" {r['unit']}" if r.get("unit") and r["post_value"] is not None else "")
        where, same = _where(r), r.get("case") and r.get("claim_id") == above.get("claim_id")
        name = f"↳ [{r['case']}]" if same else f"[{r['id']}](#{anchors[r['topic']]})"
        shown = "" if above and where == _where(above) else where
        figures = "" if same and r.get("figures") == above.get("figures") else _figures(r)
        lines.append(f"| {name} | {shown} | {cell(post, CELL)} | {_measured(r)} | {_verdict(r, labels)} "
                     f"| {r['version']} |" + (f" {figures} |" if figures else ""))
        above = r
    return lines


def _distinct(rows: list[dict], key: str) -> list:
    seen: dict = {}
    for r in rows:
        seen.setdefault(str(r.get(key)), r.get(key))
    return list(seen.values())


def _joined(rs: list[dict], key: str, limit: int, most: int = 2) -> str:
    texts = _distinct(rs, key)
    return "; ".join(cut(t, limit) for t in texts[:most]) + ("; …" if len(texts) > most else "")


def _claim(claim_id: str, rs: list[dict], dev: Legend, notes: Legend, shared: set[str],
           cap: dict[str, int]) -> list[str]:
    """One claim: statement, tolerance with reason, expectation, version note (a label when ``shared`` with
    other claims of the topic), deviation label; a cap of 0 leaves that part out (the declaration in full:
    CATALOGUE.md)."""
    first, statements = rs[0], _distinct(rs, "statement")
    head = f"`{claim_id}` v{first['version']}"
    if first.get("version_note") and cap["note"]:
        note = first["version_note"]
        head += f" ({notes.label(note) if note in shared else cut(note, cap['note'])})"
    if len(statements) == 1 or not cap["case"]:
        head += ": " + ("" if len(statements) == 1 else f"[{first['case']}] ") + cut(statements[0], cap["statement"])
    parts = [head, ", ".join(f"`{t}`" for t in _distinct(rs, "tolerance"))
             + (f": {_joined(rs, 'tolerance_reason', cap['reason'], cap['reasons'])}" if cap["reason"] else "")]
    verdicts = "/".join(_distinct(rs, "expected_verdict"))
    if cap["expect"]:
        parts.append(f"expects {verdicts}: {_joined(rs, 'expect_source', cap['expect'])}")
    elif verdicts != "holds":
        parts.append(f"expects {verdicts}")
    if first.get("deviation"):
        parts.append(dev.label(first["deviation"]))
    lines = wrap(" · ".join(parts), "- ")
    if len(statements) > 1 and cap["case"]:
        for r in rs:
            lines += wrap(f"`{r['case']}` {cut(r['statement'], cap['case'])}", "  - ")
    for r in rs:
        if r.get("reason") and r["verdict"] == "error":
            lines += wrap(f"`{r['id']}` error: {cut(r['reason'], 300)}", "  - ")
    return lines


def _topic(title: str, rows: list[dict], anchor: str, cap: dict[str, int]) -> list[str]:
    dev, notes = Legend("D"), Legend("N")
    files = sorted({r["nodeid"].split("::")[0] for r in rows})
    counts = " · ".join(f"{n} {v}" for v, n in Counter(r["verdict"] for r in rows).items())
    claims: dict[str, list[dict]] = {}
    for r in rows:
        claims.setdefault(r.get("claim_id") or r["id"], []).append(r)
    repeated = Counter(rs[0].get("version_note") for rs in claims.values() if rs[0].get("version_note"))
    shared = {note for note, n in repeated.items() if n > 1}
    body = [line for claim_id, rs in claims.items() for line in _claim(claim_id, rs, dev, notes, shared, cap)]
    return [f'<a id="{anchor}"></a>', f"<details><summary><b>{cut(title, 150)}</b> · {counts}</summary>", "",
            ", ".join(f"`{f}`" for f in files), "", *body, "",
            *dev.lines("Deviations from the posts' protocols (D)", cap["deviation"]),
            *notes.lines("Version notes shared by claims (N)", 2 * cap["note"]),
            "</details>", ""]


def _render(data: dict, rows: list[dict], cap: dict[str, int]) -> str:
    anchors: dict[str, str] = {}
    taken: set[str] = set()
    for r in rows:
        if r["topic"] not in anchors:
            anchors[r["topic"]] = slug(r["topic"], taken)
    skips, labels = skip_legend(rows)
    lines = ["# Claims report", "", *wrap(INTRO), "", *_header(data), "", *_counts(data), *wrap(LEGEND), "",
             f"## The {len(rows)} rows, in the posts' order", "", *_table(rows, anchors, labels), "",
             *skips.lines("Skip reasons (how to run the skipped rows)", cap["skip"]), "## Details by topic", ""]
    by_topic: dict[str, list[dict]] = {}
    for r in rows:
        by_topic.setdefault(r["topic"], []).append(r)
    for title, rs in by_topic.items():
        lines += _topic(title, rs, anchors[title], cap)
    return "\n".join(line if len(line) <= MAX_LINE else cut(line, MAX_LINE) for line in lines).rstrip("\n") + "\n"


def render(data: dict, budget: int = BUDGET) -> str:
    """``CLAIMS.md`` for a ``results.json`` document (:func:`llm_claims_harness.results.build`). Prose is cut
    to the fullest level of :data:`LEVELS` that keep the file under ``budget`` bytes;
    the table and the labels are never cut further."""
    rows = order.ordered(list(data["claims"]))
    for cap in LEVELS:
        text = _render(data, rows, cap)
        if len(text.encode("utf-8")) <= budget:
            break
    return text
