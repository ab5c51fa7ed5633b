"""The LlamaIndex example runs offline and the reader never sees the unsupported sentence."""

from __future__ import annotations

import re

from tests.support import run_example


def test_llamaindex_example() -> None:
    out = run_example("llamaindex_gate.py")
    reader = out.split("reader sees:")[1].split("LLM pieces produced")[0]
    assert "opens at nine" in reader and "2 euros" not in reader and "bicycles" not in reader
    produced, total = map(int, re.search(r"LLM pieces produced: (\d+) of (\d+)", out).groups())
    assert produced < total
    assert "outcome: stopped" in out
    assert re.search(r"usage: \d+ output tokens \(estimate\), call ended by error", out)
