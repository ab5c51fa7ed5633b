"""The LangChain example runs offline and the reader never sees the unsupported sentence."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


import sluicegate
import sluicegate_langchain

ROOT = Path(__file__).resolve().parents[2]


def run_example(name: str) -> str:
    path = [str(Path(m.__file__).parent.parent) for m in (sluicegate, sluicegate_langchain)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "LANGSMITH_TRACING": "false"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return done.stdout


def test_langchain_example() -> None:
    out = run_example("langchain_gate.py")
    reader = out.split("reader sees:")[1].split("model pieces produced")[0]
    assert "opens at nine" in reader and "2 euros" not in reader
    produced, total = map(int, re.search(r"model pieces produced: (\d+) of (\d+)", out).groups())
    assert produced < total  # the gate cancelled the model
    assert re.search(r"usage: \d+ output tokens \(estimate\), run ended by error", out)
