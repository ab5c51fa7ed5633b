"""CI smoke of the lifecycle benchmark: it still runs at the smallest size and prints its three tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "lifecycle.py"


def test_lifecycle_benchmark_runs() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--repeats", "1", "--generations", "2", "--args-kb", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    for heading in ("| stream | events | input |", "| arguments | deltas |", "| stream | median µs | p99 µs |"):
        assert heading in out
    assert sum(line.startswith(("| chat", "| responses", "| anthropic")) for line in out.splitlines()) == 9 + 4
