"""A suite's record of earlier readings (the ``pytest_claims_readings`` hook): checked on the way in, carried by every
row written, measured or carried over, and read back from ``results.json``."""

from __future__ import annotations

import pytest

from llm_claims_harness.row import Reading, Row, readings_of
from llm_claims_harness.tolerance import Tolerance

EARLIER = {"version": 1, "since": "2026-11-29", "commit": "abc1234", "kind": "post", "statement": "s",
           "tolerance": "≥ 2000", "expected": "refuted", "verdict": "refuted", "measured": "1111.1", "why": "v2: why"}


def test_a_record_is_checked_naming_its_row() -> None:
    got = readings_of({"a.b": {"version": 2, "readings": [EARLIER], "note": ""}})
    assert got == {"a.b": ([Reading(**EARLIER)], "")}
    for bad, said in (({"readings": [{**EARLIER, "since": ""}]}, "a reading needs since"),
                      ({"readings": [{**EARLIER, "version": 0}]}, "positive integer"),
                      ({"readings": [{**EARLIER, "typo": 1}]}, "unexpected keyword"),
                      ({"readings": [], "note": 3}, "note must be text"),
                      ("not a mapping", "the record of 'a.b'")):
        with pytest.raises(ValueError, match=said):
            readings_of({"a.b": bad})


def test_a_row_carries_its_readings_through_json() -> None:
    row = Row(id="a.b", claim_id="a.b", case=None, post=None, section=None, kind="beyond", source="s", statement="s",
              post_value=None, unit="", tolerance=Tolerance("at_least", "r", bound=1.0), expected_verdict="holds",
              expect_source="e", preregistered_expect="holds", preregistered_source="e", revision=None, quote=None,
              version=2, version_note="v2", deviation="")
    back = Row.from_dict(row.with_history([Reading(**EARLIER)], "v0 is nowhere").to_dict())
    assert back.readings == [EARLIER] and back.readings_note == "v0 is nowhere"
    assert Row.from_dict(row.to_dict()).readings == []
