"""The core imports no database client: redis only when a RedisStore talks to its server."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_budget_package_does_not_import_redis_or_limits():
    code = (
        "import sys, sluicegate, sluicegate.budget; print(sorted(m for m in ('redis', 'limits') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
