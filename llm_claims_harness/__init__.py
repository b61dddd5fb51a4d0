"""The claims harness: a pytest plugin (entry point ``llm_claims``) that judges each declared claim's
measurement against its tolerance and writes the report. Depends on pytest and filelock only; a suite tells it
about its posts, devices and environment through hooks (:mod:`llm_claims_harness.hooks`).

Declare a claim with :func:`llm_claims_harness.declare.claim` and end its test with ``verify(measured)``.

PYTEST_DONT_REWRITE: pytest marks every package of a plugin's distribution for assertion rewriting; this
package asserts nothing a test would read, and rewriting it would warn in in-process runs (``pytester``).
"""
