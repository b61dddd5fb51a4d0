"""Hooks a suite implements (in a conftest or a plugin of its own) to tell the harness about its devices;
the harness itself imports no torch."""

from __future__ import annotations

import pytest


@pytest.hookspec(firstresult=True)
def pytest_claims_device(config: pytest.Config) -> str | None:
    """The device this process measures on (e.g. ``cpu``, ``cuda:0``), recorded in the rows of tests that
    use a fixture named ``device`` and in the report header. Default when no plugin answers: ``cpu``."""


@pytest.hookspec(firstresult=True)
def pytest_claims_device_name(config: pytest.Config, device: str) -> str | None:
    """A person's name for ``device`` in the report header (e.g. the GPU model). Default: ``device``."""
