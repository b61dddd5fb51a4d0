"""Where in a test file's source a declaration's argument is: a misspelt ``@claim`` keyword is reported at its own
line, with the closest valid keyword (difflib, as ``-k`` hints do for row ids), instead of Python's
``unexpected keyword argument`` at the decorator's first line."""

from __future__ import annotations

import ast
import difflib
import linecache
import types
from collections.abc import Iterable, Mapping
from typing import Any


def unknown_keyword(fields: Mapping[str, Any], known: Iterable[str], caller: types.FrameType) -> str:
    """``path:line: claim 'id': unknown argument 'x'; did you mean 'y'?`` for the first keyword of ``fields`` that is
    not in ``known``, its line found in the call the frame ``caller`` is executing; ``""`` when every keyword is
    known."""
    known = list(known)
    unknown = [name for name in fields if name not in known]
    if not unknown:
        return ""
    name = unknown[0]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"the arguments are {', '.join(known)}"
    where = f"{caller.f_code.co_filename}:{keyword_line(caller, name)}"
    return f"{where}: claim {fields.get('id')!r}: unknown argument {name!r}; {hint}"


def keyword_line(caller: types.FrameType, keyword: str) -> int:
    """The line of ``keyword=`` in the ``claim(...)`` call the frame ``caller`` is executing (the call's first line
    when the source cannot be read)."""
    lines = linecache.getlines(caller.f_code.co_filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return caller.f_lineno
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= caller.f_lineno <= (node.end_lineno or node.lineno):
            found = [k.lineno for k in node.keywords if k.arg == keyword]
            if found:
                return found[0]
    return caller.f_lineno
