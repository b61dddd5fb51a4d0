"""The suite's pytest fixtures live in ``fixtures/`` (loaded here); the claims harness, which turns
measurements into verdicts and the report, is the plugin ``llm_claims_harness`` (registered by its entry
point when the project is installed)."""

pytest_plugins = ["fixtures.options", "fixtures.reporting", "fixtures.runtime", "fixtures.datasets", "fixtures.pretrained",
                  "fixtures.trained", "fixtures.calibrations", "fixtures.extrapolation", "fixtures.faults"]
