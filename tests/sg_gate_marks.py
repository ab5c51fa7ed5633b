"""Marks for tests that need the real SentenceGate / Redactor, which land on main from other branches.

Until they do, these tests run and are expected to fail with the ImportError the default filter factory
raises (strict: the mark turns into a plain pass requirement the moment the gate is in the build).
"""

from __future__ import annotations

import subprocess

import pytest

import sluicegate

HAS_GATE = hasattr(sluicegate, "SentenceGate")
HAS_REDACTOR = hasattr(sluicegate, "Redactor")

needs_gate = pytest.mark.xfail(
    not HAS_GATE, reason="SentenceGate not merged yet", raises=(ImportError, subprocess.CalledProcessError), strict=True
)
needs_redactor = pytest.mark.xfail(
    not (HAS_GATE and HAS_REDACTOR), reason="SentenceGate/Redactor not merged yet", raises=ImportError, strict=True
)
