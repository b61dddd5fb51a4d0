"""Texts a report writes once, each under a short label (``D1``, ``S2``): deviations, version notes, skip reasons."""

from __future__ import annotations

from llm_claims_harness.text import cut, wrap


class Legend:
    """Texts written once, each under a short label (``D1``, ``S2``); identical texts share one."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.texts: dict[str, str] = {}

    def label(self, text: str) -> str:
        text = " ".join(str(text).split())
        return self.texts.setdefault(text, f"{self.prefix}{len(self.texts) + 1}") if text else ""

    def lines(self, title: str, limit: int | None = None) -> list[str]:
        """The legend (each text cut at ``limit`` characters; ``None``: whole); a text that contains another labelled text names that label instead of repeating it
        (``D3`` = ``Evaluated at 20, 40 and 80. (as D1)``)."""
        out = []
        for text, name in self.texts.items():
            inner = max((t for t in self.texts if t != text and t in text), key=len, default="")
            if inner:
                before, after = text.split(inner, 1)
                text = " ".join(p for p in (_cut(before, limit).rstrip(" ;,"), f"(as {self.texts[inner]})",
                                            _cut(after, limit).lstrip(" ;,")) if p.strip())
            out += wrap(f"**{name}** {text if inner else _cut(text, limit)}", "- ")
        return ([f"{title}:", ""] + out + [""]) if out else []


def _cut(text: str, limit: int | None) -> str:
    return text if limit is None else cut(text, limit)


def skip_legend(rows: list) -> tuple[Legend, dict[str, str]]:
    """One label per distinct skip reason (``S1``, ``S2``, … in table order) and each skipped row's label."""
    legend = Legend("S")
    return legend, {r.id: legend.label(r.reason or "no reason given") for r in rows if r.verdict == "skipped"}
