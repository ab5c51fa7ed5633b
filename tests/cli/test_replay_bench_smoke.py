"""CI smoke of tests/benchmarks/replay.py: it still runs and prints every row (no figure is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "replay.py"


def test_the_replay_benchmark_prints_its_table() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "## Replay throughput (20 records" in out
    for row in ("| gate once", "| replay, --sizes none", "| replay, --sizes 1,4,whole", "| CLI end to end"):
        assert row in out, row
    assert "CLI start-up alone" in out
    assert "sentence blocked" not in proc.stderr, "the gate's per-stop warnings are silenced as in the CLI"
