"""The LlamaIndex example runs offline and the reader never sees the unsupported sentence."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path


import sluicegate
import sluicegate_llamaindex

ROOT = Path(__file__).resolve().parents[2]


def test_llamaindex_example() -> None:
    path = [str(Path(m.__file__).parent.parent) for m in (sluicegate, sluicegate_llamaindex)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "llamaindex_gate.py")],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    ).stdout
    reader = out.split("reader sees:")[1].split("LLM pieces produced")[0]
    assert "opens at nine" in reader and "2 euros" not in reader
    produced, total = map(int, re.search(r"LLM pieces produced: (\d+) of (\d+)", out).groups())
    assert produced < total
    assert "outcome: stopped" in out
    assert re.search(r"usage: \d+ output tokens \(estimate\), call ended by error", out)
