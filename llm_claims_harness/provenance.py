"""Which inputs a row read, by hash (lm-evaluation-harness's ``task_hashes``): the fixture that provides an input
names it once with :func:`record_inputs`; every row whose test uses that fixture, directly, through another
fixture or by asking for it as it runs (``request.getfixturevalue``: :func:`track`), carries its digests in
``inputs`` (``results.json``). Under pytest-xdist each worker sets its fixtures up,
and records, for the rows it measures::

    @pytest.fixture(scope="session")
    def eval_set(request):
        path = fetch("eval.csv")
        record_inputs(request, {"eval.csv": sha256_of(path)})
        return load(path)
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping

import pytest

_DIGEST = re.compile(r"^(sha256:[0-9a-f]{64}|fingerprint:[0-9a-f]{16,64})$")
_RECORDED = pytest.StashKey[dict[str, dict[str, str]]]()  # fixture name -> {input name: digest}
_REQUEST = pytest.StashKey[pytest.FixtureRequest]()  # the item's request, which knows every fixture it set up


def record_inputs(request: pytest.FixtureRequest, digests: Mapping[str, str]) -> None:
    """Name the inputs the requesting fixture provides: ``{name: digest}``, a digest being ``sha256:<64 hex>`` (a
    file's bytes: :func:`sha256_of`) or ``fingerprint:<hex>`` (the hash of everything trained weights depend on).

    Raises:
        ValueError: a name that is not text, or a digest of neither form.
    """
    bad = {k: v for k, v in digests.items() if not isinstance(k, str) or not k or not isinstance(v, str)
           or not _DIGEST.match(v)}
    if bad:
        raise ValueError(f"fixture {request.fixturename!r}: inputs are {{name: 'sha256:<64 hex>' or "
                         f"'fingerprint:<hex>'}}, got {bad!r}")
    request.config.stash.setdefault(_RECORDED, {}).setdefault(request.fixturename, {}).update(digests)


def track(request: pytest.FixtureRequest) -> None:
    """Follow the fixtures ``request``'s item uses, also those it asks for with ``request.getfixturevalue`` while it
    runs (``request.fixturenames`` names every fixture the item set up; the ``verify`` fixture calls this)."""
    request.node.stash[_REQUEST] = request


def inputs_of(item: pytest.Item) -> dict[str, str]:
    """The digests recorded by the fixtures ``item`` used (its whole closure and, where :func:`track` followed it,
    the fixtures it asked for while it ran), by input name, sorted."""
    recorded = item.config.stash.get(_RECORDED, {})
    request = item.stash.get(_REQUEST, None)
    found: dict[str, str] = {}
    for name in request.fixturenames if request is not None else getattr(item, "fixturenames", ()):
        found.update(recorded.get(name, {}))
    return dict(sorted(found.items()))


def sha256_of(path: str | os.PathLike) -> str:
    """``sha256:<hex>`` of the file at ``path`` (read once, in chunks)."""
    with open(path, "rb") as fh:
        return "sha256:" + hashlib.file_digest(fh, "sha256").hexdigest()
