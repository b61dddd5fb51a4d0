"""The fault-injection suite: every fault of every external input of the inventory
(:data:`llm_claims_lab.inputs.INVENTORY`), each tried as its scenario (``tests/faults_*.py``) says, or by the tests it is held by
(:func:`faults_common.held_by`: whole pytester runs, in ``tests/faults_held.py``); the inventory and the scenarios must
match one to one.""" 

from __future__ import annotations

from pathlib import Path

import faults_data  # noqa: F401  (each module registers its scenarios)
import faults_eval  # noqa: F401
import faults_glove  # noqa: F401
import faults_gpt2  # noqa: F401
import faults_gpt2_source  # noqa: F401
import faults_held  # noqa: F401
import faults_report  # noqa: F401
import faults_state  # noqa: F401
import pytest
import ast

from faults_common import HELD_BY, SCENARIOS

from llm_claims_lab.inputs import FAULTS, INVENTORY

CASES = [(i.name, fault, variant) for i in INVENTORY for fault in i.faults if (i.name, fault) not in HELD_BY
         for variant in SCENARIOS.get((i.name, fault), (None, ("",)))[1]]
TESTS = Path(__file__).resolve().parent

pytestmark = pytest.mark.usefixtures("no_named_data", "offline")


@pytest.mark.parametrize(("input_name", "fault", "variant"), CASES,
                         ids=[f"{i}:{f}{':' + v if v else ''}".replace(" ", "-") for i, f, v in CASES])
def test_fault(tmp_path: Path, input_name: str, fault: str, variant: str) -> None:
    if (input_name, fault) not in SCENARIOS:
        pytest.fail(f"the inventory lists {fault!r} for {input_name!r}, and no scenario tries it")
    SCENARIOS[input_name, fault][0](tmp_path, variant)


@pytest.mark.parametrize(("input_name", "fault"), list(HELD_BY), ids=[f"{i}:{f}".replace(" ", "-") for i, f in HELD_BY])
def test_held_fault_is_tried_by_a_declared_test(input_name: str, fault: str) -> None:
    for nodeid in HELD_BY[input_name, fault]:
        path, _, name = nodeid.partition("::")
        module = ast.parse((TESTS.parent / path).read_text(encoding="utf-8"))
        declared = {node.name for node in module.body if isinstance(node, ast.FunctionDef)}
        assert name in declared, f"{input_name}: {fault}: {nodeid} is not a test of {path}"


def test_every_scenario_is_in_the_inventory() -> None:
    listed = {(i.name, fault) for i in INVENTORY for fault in i.faults}
    tried = set(SCENARIOS) | set(HELD_BY)
    assert tried <= listed, f"scenarios of faults the inventory does not list: {tried - listed}"
    assert {fault for i in INVENTORY for fault in i.faults} <= FAULTS.keys()
