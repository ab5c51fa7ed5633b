"""examples/guardrails_gate.py runs offline and shows what it promises, with the real filters."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GROUNDED_SEEN = (
    "reader sees: 'The library opens at nine on weekdays. Late fees were abolished in 2019. "
    "Write to <EMAIL_ADDRESS> with questions.'"
)
STOPPED_SEEN = "reader sees: 'The library opens at nine on weekdays. Late fees were abolished in 2019.'"


def test_guardrails_example_runs_offline() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT / 'integrations'}"}
    env.pop("GUARDRAILS_RUN_SYNC", None)  # guardrails' default validator service, as a user runs it
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "guardrails_gate.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count(GROUNDED_SEEN) == 2  # streamed and whole-string: markers stripped, e-mail redacted
    assert out.count(STOPPED_SEEN) == 2  # the two grounded sentences, then the stop: nothing after it
    assert out.count("violation: sluicegate stopped the stream: unsupported_value") == 2
    assert out.count("violation: None") == 2
    assert "help.desk@citylib.example" not in out  # the e-mail arrived split across pieces
    assert "2 euros" not in out and "bicycles" not in out  # the planted sentence
    assert "[S" not in out
