"""CI smoke test for the benchmark harness: the scripts still run, at the smallest size, for our filters only.

No figures are asserted (speed targets live in tests/benchmarks, never in timed unit tests); what is asserted is
that every table is printed and that each of our filters that exists on this branch produced real rows.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import sluicegate

RUN_ALL = Path(__file__).resolve().parent / "benchmarks" / "run_all.py"
TITLES = (
    "## 1. Redaction throughput",
    "## 2. Held tail",
    "## 3. Per-piece cost",
    "## 4. Scaling",
    "## 5. Time to first visible text",
    "## 6. Sentence gate",
    "## 7. Agent middleware",
    "## Targets",
)


def _run() -> str:
    proc = subprocess.run(
        [sys.executable, str(RUN_ALL), "--no-peers", "--quick", "--repeats", "1", "--size", "0.004"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _rows(md: str, name: str) -> list[str]:
    return [line for line in md.splitlines() if line.startswith(f"| {name}")]


def test_harness_prints_every_table_and_our_rows() -> None:
    md = _run()
    for title in TITLES:
        assert title in md, f"missing section {title!r}"
    assert re.search(r"Machine: .+ \d+ CPUs, Python 3\.\d+", md)
    # No peer rows without the peers venv: --no-peers keeps the run to our filters.
    assert not _rows(md, "safestream")
    for attr, label in (("Redactor", "sluicegate Redactor"), ("SentenceGate", "sluicegate SentenceGate")):
        rows = _rows(md, label)
        assert rows, f"no row for {label}"
        if hasattr(sluicegate, attr):
            assert not any("not available" in r for r in rows), f"{label} exists but a row says not available: {rows}"
        else:
            assert all("not available" in r for r in rows), rows
    # Section 7 (issue 28): GateMiddleware beside PIIMiddleware in create_agent, on every surface, leaking nothing.
    gate = [r.split(" | ") for r in _rows(md, "GateMiddleware")]
    assert {r[1] for r in gate} == {"v3 events", "messages mode", "final state"}, gate
    assert all(r[4] == "0" and r[5] == "0" for r in gate), gate  # leaks, not chunk-invariant
    assert _rows(md, "PIIMiddleware")


def test_redactor_cost_table_runs_at_a_tiny_size() -> None:
    script = Path(__file__).resolve().parent / "benchmarks" / "redactor_cost.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--kb", "2", "--scale-kb", "1", "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    for start in ("| planted: mean", "| prose: mean", "| prose: most characters held", "| planted: whole text"):
        assert any(r.startswith(start) for r in rows), start
    assert any("Redactor before, pure" in r for r in rows)


def test_sentence_delay_tables_run_at_a_tiny_size() -> None:
    """Issue 24 part 3's benchmark: the three tables print, and the pipeline now shows every sentence at the
    gate's step (delay 0) on both corpora, where before it did not."""
    script = Path(__file__).resolve().parent / "benchmarks" / "sentence_delay.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--answers", "3", "--repeats", "1", "--no-nemo"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    for title in ("### 1. Delay", "### 2. First visible text", "### 3. Cost"):
        assert title in proc.stdout, title
    rows = [line.split(" | ") for line in proc.stdout.splitlines() if line.startswith("| 3 ")]
    now = [r for r in rows if r[1].startswith("now")]
    before = [r for r in rows if r[1].startswith("before")]
    assert len(now) == len(before) == 2
    assert all(r[3] == "0" and r[6] == "0" for r in now), now  # median and max delay
    assert all(r[3] != "0" for r in before), before
