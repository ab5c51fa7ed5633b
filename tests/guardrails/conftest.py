"""Guardrails AI offline before it is imported: rc file with metrics off, nltk punkt present, local cost map.

HOME points at a fresh temporary folder made here, before guardrails is imported, and removed when the run
ends: Guard() re-reads `~/.guardrailsrc` on every construction (so guard.configure() would not stick), and
whatever else runs in the session under that HOME (Chromium, dconf) writes into it rather than into the tree.
Its .guardrailsrc says enable_metrics=false; NLTK_DATA points at an empty punkt folder, which is all
guardrails' import-time check looks for. litellm (imported on the first call) uses its bundled cost map.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

HOME = Path(tempfile.mkdtemp(prefix="sluicegate-guardrails-home-"))
atexit.register(shutil.rmtree, HOME, ignore_errors=True)
(HOME / ".guardrailsrc").write_text("enable_metrics=false\nuse_remote_inferencing=false\n", encoding="utf-8")
# guardrails/__init__ calls nltk.download("punkt") when nltk is installed and tokenizers/punkt is missing; nothing
# here uses punkt, an empty folder keeps the import offline.
(HOME / "nltk_data" / "tokenizers" / "punkt").mkdir(parents=True)
os.environ["HOME"] = str(HOME)
os.environ["NLTK_DATA"] = str(HOME / "nltk_data")
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
