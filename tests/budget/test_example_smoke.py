"""examples/budget.py runs offline and shows exactly three of ten racing requests admitted."""

from __future__ import annotations

from tests.support import run_example


def test_budget_example() -> None:
    out = run_example("budget.py")
    assert out.count("admitted\n") == 3 and out.count("refused  -> ") == 7
    assert "admitted 3 of 10" in out and "still held 0" in out and "1887" not in out.split("the reader saw")[1]
