"""The fault-injection suite: every fault of every external input of the inventory
(:data:`llm_claims_lab.inputs.INVENTORY`), each tried as its scenario (``tests/faults_*.py``) says; the
inventory and the scenarios must match one to one."""

from __future__ import annotations

from pathlib import Path

import faults_data  # noqa: F401  (each module registers its scenarios)
import faults_eval  # noqa: F401
import faults_glove  # noqa: F401
import faults_gpt2  # noqa: F401
import faults_gpt2_source  # noqa: F401
import faults_report  # noqa: F401
import faults_state  # noqa: F401
import pytest
from faults_common import SCENARIOS

from llm_claims_lab.inputs import FAULTS, INVENTORY

CASES = [(i.name, fault, variant) for i in INVENTORY for fault in i.faults
         for variant in SCENARIOS.get((i.name, fault), (None, ("",)))[1]]

pytestmark = pytest.mark.usefixtures("no_named_data", "offline")


@pytest.mark.parametrize(("input_name", "fault", "variant"), CASES,
                         ids=[f"{i}:{f}{':' + v if v else ''}".replace(" ", "-") for i, f, v in CASES])
def test_fault(tmp_path: Path, input_name: str, fault: str, variant: str) -> None:
    if (input_name, fault) not in SCENARIOS:
        pytest.fail(f"the inventory lists {fault!r} for {input_name!r}, and no scenario tries it")
    SCENARIOS[input_name, fault][0](tmp_path, variant)


def test_every_scenario_is_in_the_inventory() -> None:
    listed = {(i.name, fault) for i in INVENTORY for fault in i.faults}
    assert set(SCENARIOS) <= listed, f"scenarios of faults the inventory does not list: {set(SCENARIOS) - listed}"
    assert {fault for i in INVENTORY for fault in i.faults} <= FAULTS.keys()
