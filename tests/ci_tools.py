"""The check tools of CI (``.ci/lint-tools.txt``, installed by ``WITH_LINT=1 bash .ci/install``): a test that needs
one skips on a person's machine where it is absent, and fails under ``CI=true`` (GitHub's runners and ``.ci/run`` set
it), where a check that skipped would pass what it never read."""

from __future__ import annotations

import os
import shutil

import pytest

INSTALL = "WITH_LINT=1 bash .ci/install (the hash-pinned .ci/lint-tools.txt)"


def tool(name: str) -> str:
    """The path of the tool ``name``.

    Raises:
        pytest.skip.Exception: it is not installed and this is no CI run.
        pytest.fail.Exception: it is not installed under ``CI=true``.
    """
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not installed, and CI must run every check: {INSTALL}")
        pytest.skip(f"{name} is not installed: {INSTALL}")
    return found
