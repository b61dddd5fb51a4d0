"""Hooks a suite implements (in a conftest or a plugin of its own) to tell the harness what it cannot know: the
posts the suite verifies, its devices and its environment. The harness holds no word of any suite's posts,
libraries or devices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_claims_posts(config: pytest.Config) -> Sequence[Any] | None:
    """The posts the suite verifies, in the report's order: :class:`llm_claims_harness.posts.Post` objects (id,
    title, date, address, sections). A claim's ``post`` and ``section`` are checked against them at collection.
    Default when no plugin answers: no posts (claims of kind ``post`` or ``literal`` then fail to collect)."""


@pytest.hookspec(firstresult=True)
def pytest_claims_device(config: pytest.Config) -> str | None:
    """The device this process measures on (e.g. ``cpu``, ``cuda:0``), asked once at configure time for the run
    plan (:class:`llm_claims_harness.plan.RunPlan`). Default when no plugin answers: ``cpu``."""


@pytest.hookspec(firstresult=True)
def pytest_claims_device_name(config: pytest.Config, device: str) -> str | None:
    """A person's name for ``device`` in the report header (e.g. the GPU model). Default: ``device``."""


@pytest.hookspec(firstresult=True)
def pytest_claims_item_device(item: pytest.Item, device: str) -> str | None:
    """Where ``item`` measured: ``device`` (the run plan's) for an item that trains or loads models on it, ``cpu``
    for one that computes on the CPU whatever the plan says. Default when no plugin answers: ``cpu``."""


def pytest_claims_environment(config: pytest.Config) -> dict[str, str] | None:
    """Facts of the suite's environment for the report header (e.g. library versions, the GPU and its driver),
    as short strings by name. Every implementation's answer is kept (later answers win on a repeated name)."""


@pytest.hookspec(firstresult=True)
def pytest_claims_readings(config: pytest.Config) -> Mapping[str, Mapping[str, Any]] | None:
    """The earlier readings of the suite's rows, by row id: ``{"version": <the claim's version the record was made
    at>, "readings": [<Reading fields>, ...] (oldest first), "note": <what no committed report shows>}`` (see
    :class:`llm_claims_harness.row.Reading`). Each row carries its record into the report, which marks re-read rows
    and counts the changes by direction. Default when no plugin answers: none recorded."""
