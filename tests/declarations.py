"""Every row the real suite declares, as collected (``Declared`` fields as JSON), without running a claim.

The suite is collected in a subprocess (as in :mod:`test_row_ids`): an in-process run would drop the C extensions
its claims import from ``sys.modules`` afterwards.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import child_pytest
ROOT = Path(__file__).resolve().parents[1]

PROBE = '''
import dataclasses, json, os
from llm_claims_harness.measure import case_id, spec_of

def pytest_collection_finish(session):
    rows = [dataclasses.asdict(spec_of(item).resolve(case_id(item)))
            for item in session.items if spec_of(item) is not None]
    with open(os.environ["CLAIMS_DECLARED_OUT"], "w", encoding="utf-8") as fh:
        json.dump(rows, fh, default=repr)
'''


def collect(tmp: Path) -> list[dict[str, Any]]:
    """The resolved declaration of every claim row under ``claims/``, in collection order.

    Raises:
        AssertionError: the collection failed (its output is the message).
    """
    (tmp / "declared_probe.py").write_text(PROBE, encoding="utf-8")
    out = tmp / "declared.json"
    env = {**os.environ, "CLAIMS_DECLARED_OUT": str(out), "PYTHONPATH": str(tmp)}
    run = child_pytest.run([str(ROOT / "claims"), "--collect-only", "-q", "-p", "declared_probe", "-p",
                            "no:cacheprovider", "--no-claims-report"], cwd=ROOT, env=env)
    assert run.ret == 0, str(run.stdout)[-3000:] + str(run.stderr)[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))
