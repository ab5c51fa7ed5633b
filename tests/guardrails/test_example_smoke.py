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
    assert out.count("reader sees: 'The library opens at nine on weekdays.'") == 2  # stopped before the bad one
    assert out.count("violation: sluicegate stopped the stream: unsupported_value") == 2
    assert out.count("violation: None") == 2
    assert "help.desk@citylib.example" not in out  # the e-mail arrived split across pieces
    assert "2017" not in out  # the planted value
    assert "[S" not in out
