"""The evidence benchmark still runs at its smallest size and prints its table (no figure is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "evidence.py"


def test_evidence_benchmark_tiny() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tiny"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    names = [row.split("|")[1].strip() for row in rows[1:]]
    assert names[:3] == [
        "RefusalRules.check",
        "EvidenceGate.decide (top 8)",
        "InMemoryRetriever.retrieve (20 passages, hashing embedding)",
    ]
