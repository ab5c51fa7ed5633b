"""Without the [server] extra, the adapter fails with an ImportError naming it (as every adapter does)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("missing", ["starlette", "sse_starlette", "pydantic"])
def test_without_the_server_extra_the_import_error_names_it(tmp_path: Path, missing: str) -> None:
    # A package that fails to import stands in for an install without the [server] extra.
    (tmp_path / missing).mkdir()
    (tmp_path / missing / "__init__.py").write_text("raise ImportError('not installed (simulated)')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", "import sluicegate_starlette"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 1
    assert 'install the extra: pip install "sluicegate[server]"' in proc.stderr, proc.stderr
