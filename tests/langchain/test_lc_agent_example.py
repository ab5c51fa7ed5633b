"""The agent example runs offline: the tool call shown whole, the unsupported sentence never, the model cut short."""

from __future__ import annotations

import re

from tests.support import run_example


def test_langchain_agent_example() -> None:
    out = run_example("langchain_agent.py")
    reader = out.split("reader sees:")[1].split("model chunks produced")[0]
    assert 'tool call: opening_hours {"day":"Monday"}' in reader
    assert "opens at nine" in reader and "2 euros" not in reader and "bicycles" not in reader
    assert "held back" in reader
    produced, total = map(int, re.search(r"produced in the answer turn: (\d+) of (\d+)", out).groups())
    assert produced < total  # the gate closed the model stream
