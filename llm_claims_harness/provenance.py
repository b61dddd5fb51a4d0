"""Which inputs a row read, by hash (lm-evaluation-harness's ``task_hashes``): the fixture that provides an input
names it once with :func:`record_inputs`; every row whose test uses that fixture, directly, through another
fixture's signature or by asking for it in the test's body (``request.getfixturevalue``: :func:`track` and
:func:`call_started`), carries its digests in ``inputs`` (``results.json``). What a *fixture* asks for as it runs
is not followed: pytest credits such a request to whichever test happened to set the fixture up (an autouse
session fixture that builds models would credit every model to the first test on each worker), so a fixture that
reads another's input as it runs names that input itself. Under pytest-xdist each worker sets its fixtures up,
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

UNREGISTERED = "(not the registered file)"  # after an input's name: the row read another copy than the registered one
_DIGEST = re.compile(r"^(sha256:[0-9a-f]{64}|fingerprint:[0-9a-f]{16,64})$")
_RECORDED = pytest.StashKey[dict[str, dict[str, str]]]()  # fixture name -> {input name: digest}
_REQUEST = pytest.StashKey[pytest.FixtureRequest]()  # the item's request, which knows every fixture it set up
_BEFORE_CALL = pytest.StashKey[frozenset[str]]()  # the request's fixture names when the test's body started


def record_inputs(request: pytest.FixtureRequest, digests: Mapping[str, str],
                  registered: Mapping[str, str] | None = None) -> None:
    """Name the inputs the requesting fixture provides: ``{name: digest}``, a digest being ``sha256:<64 hex>`` (a
    file's bytes: :func:`sha256_of`) or ``fingerprint:<hex>`` (the hash of everything trained weights depend on).
    ``registered``: the digest the suite registered for an input (a data set's published sha256); an input whose
    digest is another is recorded as ``"<name> (not the registered file)"`` (:data:`UNREGISTERED`), which its rows'
    page marks.

    Raises:
        ValueError: a name that is not text, or a digest of neither form.
    """
    bad = {k: v for k, v in digests.items() if not isinstance(k, str) or not k or not isinstance(v, str)
           or not _DIGEST.match(v)}
    if bad:
        raise ValueError(f"fixture {request.fixturename!r}: inputs are {{name: 'sha256:<64 hex>' or "
                         f"'fingerprint:<hex>'}}, got {bad!r}")
    named = {(f"{name} {UNREGISTERED}" if registered and registered.get(name, digest) != digest else name): digest
             for name, digest in digests.items()}
    request.config.stash.setdefault(_RECORDED, {}).setdefault(str(request.fixturename), {}).update(named)


def unregistered(inputs: Mapping[str, str]) -> list[str]:
    """The names of the inputs a row read in another copy than the registered one (:func:`record_inputs`)."""
    return [name.removesuffix(f" {UNREGISTERED}") for name in inputs if name.endswith(f" {UNREGISTERED}")]


def track(request: pytest.FixtureRequest) -> None:
    """Follow the fixtures ``request``'s item uses, also those it asks for with ``request.getfixturevalue`` while it
    runs (``request.fixturenames`` names every fixture the item set up; the ``verify`` fixture calls this)."""
    request.node.stash[_REQUEST] = request


def call_started(item: pytest.Item) -> None:
    """Mark where ``item``'s body starts (the plugin's ``pytest_runtest_call``): the fixtures its request names
    from here on are the ones the body asks for; those it named before include whatever the fixtures set up so far
    asked for as they ran, which is not this row's."""
    request = item.stash.get(_REQUEST, None)
    if request is not None:
        item.stash[_BEFORE_CALL] = frozenset(request.fixturenames)


def inputs_of(item: pytest.Item) -> dict[str, str]:
    """The digests recorded by the fixtures ``item`` used (its closure, as collected, and, where :func:`track`
    followed it, the fixtures its body asked for and their closures), by input name, sorted."""
    recorded = item.config.stash.get(_RECORDED, {})
    names = set(getattr(item, "fixturenames", ()))
    request = item.stash.get(_REQUEST, None)
    if request is not None:
        before: frozenset[str] = item.stash.get(_BEFORE_CALL, frozenset())
        names |= set(request.fixturenames) - before
    found: dict[str, str] = {}
    for name in sorted(names):
        found.update(recorded.get(name, {}))
    return dict(sorted(found.items()))


def sha256_of(path: str | os.PathLike) -> str:
    """``sha256:<hex>`` of the file at ``path`` (read once, in chunks: ``hashlib.file_digest`` is Python 3.11's, and
    the harness runs on 3.10)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()
