"""The tool-call example runs offline: one transfer however often it is executed, none from a cut stream."""

from __future__ import annotations

from tests.support import run_example


def test_tool_calls_example() -> None:
    out = run_example("tool_calls.py")
    assert "draft (tool, transfer)" in out
    assert "state=validated calls=['transfer']" in out
    assert "state=incomplete calls=[] reasons=['closed_without_terminal']" in out
    assert out.count("{'bank_ref': 'TX-1'}") == 2 and "the bank applied 1 transfer(s)" in out
    assert "unknown (the tool raised TimeoutError)" in out and "2 transfer(s) in all" in out
