"""Import the user's `module:attr` (`--filter`, `--retriever`) from where the command runs.

A console script's `sys.path` starts with its own bin directory, not the working directory (only `python -m`
and `python script.py` add one), so `sluicegate replay --filter myguard:make` run next to `myguard.py` would
not find it. We put the working directory first, as `uvicorn main:app` does.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType


def import_user_module(name: str) -> ModuleType:
    """`importlib.import_module(name)` with the working directory on `sys.path` (once, at the front)."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    return importlib.import_module(name)
