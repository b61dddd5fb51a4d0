"""``python -m llm_claims_lab.data fetch|list``: :func:`llm_claims_lab.data.command.main`."""

import sys

from llm_claims_lab.data.command import main

sys.exit(main())
