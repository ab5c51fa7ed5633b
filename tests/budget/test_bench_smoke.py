"""The budget benchmark still runs, at the smallest size (no figures asserted: targets live in tests/benchmarks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "budget.py"


def test_budget_benchmark_prints_both_tables():
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--ops", "16", "--repeats", "1"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "reserve+settle pairs per second" in proc.stdout and "time to the first released token" in proc.stdout
    assert proc.stdout.count("| Redis") == 1 and proc.stdout.count("| cap on ") == 3
