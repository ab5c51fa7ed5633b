"""The LangChain example runs offline and the reader never sees the unsupported sentence."""

from __future__ import annotations

import re

from tests.support import run_example


def test_langchain_example() -> None:
    out = run_example("langchain_gate.py")
    reader = out.split("reader sees:")[1].split("model pieces produced")[0]
    assert "opens at nine" in reader and "2 euros" not in reader and "bicycles" not in reader
    produced, total = map(int, re.search(r"model pieces produced: (\d+) of (\d+)", out).groups())
    assert produced < total  # the gate cancelled the model
    assert re.search(r"usage: \d+ output tokens \(estimate\), run ended by error", out)
