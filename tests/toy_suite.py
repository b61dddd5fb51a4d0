"""The harness's toy suite (``llm_claims_harness/tests/harness_toy.py``) run with this suite's own fixtures
(``fixtures.options``, ``fixtures.runtime``): for the tests here that check what the suite adds to the harness (its
options, device and header facts). The ``suite`` fixture of ``tests/conftest.py`` writes it into a pytester
directory."""

from harness_toy import CLAIMS, TOY_POSTS

__all__ = ["CLAIMS", "CONFTEST", "TOY_POSTS"]

# the harness itself comes by its entry point
CONFTEST = 'pytest_plugins = ["fixtures.options", "fixtures.runtime"]\n' + TOY_POSTS
