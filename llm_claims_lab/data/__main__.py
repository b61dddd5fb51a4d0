"""``python -m llm_claims_lab.data fetch|list``: :func:`llm_claims_lab.data.main`."""

import sys

from llm_claims_lab.data import main

sys.exit(main())
