"""Stopping a child process the same way everywhere: SIGTERM, then SIGKILL if it has not gone within `timeout`."""

from __future__ import annotations

import subprocess
from typing import Any


def stop_process(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """Terminate `proc` and reap it; kill it (and reap it) if it outlives `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
