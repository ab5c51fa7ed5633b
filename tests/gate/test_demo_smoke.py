"""examples/demo.py runs offline, fast, and shows a grounded answer and one that stops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.py"


def test_demo_runs_and_the_invented_sentence_never_appears() -> None:
    done = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True, timeout=60, check=True)
    out = done.stdout
    assert "Done(reason='complete')" in out and "Done(reason='stopped')" in out
    assert "could not be supported by the sources and was held back" in out
    second = out.split("2) ", 1)[1]
    screen = second.split("final screen:", 1)[1].split("server side only", 1)[0]
    assert "2019" not in screen and "The library opens at 9:00 on weekdays." in screen
    assert "sentence blocked (unsupported_value), 39 characters" in out  # the log: codes and length only
