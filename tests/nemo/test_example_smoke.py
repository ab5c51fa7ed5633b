"""examples/nemo_gate.py runs offline and shows what it promises."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_nemo_example_runs_offline() -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT / 'integrations'}"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "nemo_gate.py")], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("reader sees: 'The report is ready. It covers the year 2018 only. Bye now.'") == 2
    assert out.count("reader sees: 'The report is ready. '") == 2
    assert out.count('"type": "guardrails_violation"') == 2
    assert "2019" not in out.replace("planted 2019", "")
