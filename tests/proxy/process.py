"""`sluicegate proxy` as a real process on a free loopback port (the tests that need the command itself)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.services.ports import free_port, wait_listening

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def proxy_process(upstream: str, config: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "integrations")])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sluicegate.cli",
            "proxy",
            "--upstream",
            upstream,
            "--listen",
            f"127.0.0.1:{port}",
            "--config",
            str(config),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(port, timeout=90)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
