"""Guardrails AI offline before it is imported: rc file with metrics off, nltk punkt present, local cost map.

HOME points at tests/guardrails/home (its .guardrailsrc says enable_metrics=false; Guard() re-reads the rc file
on every construction, so guard.configure() would not stick). NLTK_DATA points at an empty punkt folder, which
is all guardrails' import-time check looks for. litellm (imported on the first call) uses its bundled cost map.
"""

from __future__ import annotations

import os
from pathlib import Path

HOME = Path(__file__).with_name("home")
os.environ["HOME"] = str(HOME)
os.environ["NLTK_DATA"] = str(HOME / "nltk_data")
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
