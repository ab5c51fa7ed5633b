"""Guardrails AI offline before it is imported: HOME is a fresh temporary folder (tests/offline_home.py) made
here, before guardrails is imported, and removed when the run ends, so nothing the run writes lands in the tree.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from tests.offline_home import make_offline_home

HOME = Path(tempfile.mkdtemp(prefix="sluicegate-guardrails-home-"))
atexit.register(shutil.rmtree, HOME, ignore_errors=True)
os.environ.update(make_offline_home(HOME))
