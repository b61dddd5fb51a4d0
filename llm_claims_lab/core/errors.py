"""The base class of the library's errors about its inputs."""

from __future__ import annotations


class InputFault(Exception):
    """The base of every error that reports a fault of an external input (:data:`llm_claims_lab.inputs.INVENTORY`:
    a damaged download, a named file of the wrong kind, a cache that cannot be written). Its message is one line:
    the file, what is wrong, the fix. The suite shows it as that line in each row it stops, never as a traceback
    (``fixtures/faults.py``)."""
