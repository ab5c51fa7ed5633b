"""The state machine: legal moves only; alternatives are final and never promote the provisional buffer."""

from __future__ import annotations

import itertools

import pytest

from sluicegate.lifecycle import IllegalTransition, State
from sluicegate.lifecycle._state import ALTERNATIVE_TERMINALS, check_transition

from .helpers import events, run

HAPPY = [State.RECEIVED, State.PROVISIONAL, State.ASSEMBLED, State.VALIDATED, State.CONFIRMED, State.EXECUTED]


def test_ten_states() -> None:
    assert len(State) == 10
    assert State("validated") is State.VALIDATED and str(State.FAILED) == "failed"


def test_happy_path_is_legal_and_skipping_is_not() -> None:
    for a, b in itertools.pairwise(HAPPY):
        check_transition(a, b)
    for i, a in enumerate(HAPPY):
        for b in HAPPY[i + 2 :]:
            if (a, b) == (State.RECEIVED, State.ASSEMBLED):  # a terminal with no fragment at all
                continue
            with pytest.raises(IllegalTransition):
                check_transition(a, b)


@pytest.mark.parametrize("terminal", sorted(ALTERNATIVE_TERMINALS | {State.EXECUTED}))
def test_terminals_lead_nowhere(terminal: State) -> None:
    assert terminal.terminal
    for target in State:
        with pytest.raises(IllegalTransition):
            check_transition(terminal, target)


def test_confirm_before_validated_raises(tmp_path: object) -> None:
    from sluicegate.lifecycle import SQLiteOperationStore

    gen = run("anthropic", events("anthropic")[:-1], close=False)
    with pytest.raises(IllegalTransition, match="provisional -> confirmed"):
        gen.confirm(SQLiteOperationStore(f"{tmp_path}/s.sqlite3"))


@pytest.mark.parametrize("end", ["cancel", "close", "expire"])
def test_alternatives_never_promote(end: str) -> None:
    gen = run("responses", events("responses")[:-1], close=False)
    getattr(gen, end)()
    assert gen.state in ALTERNATIVE_TERMINALS
    gen.feed(events("responses")[-1])  # the terminal signal arrives late: ignored, counted
    assert gen.state in ALTERNATIVE_TERMINALS
    assert gen.tool_calls == () and gen.text is None
    assert gen.telemetry.late_events == 1
    assert gen.telemetry.provisional_differences == 2  # the text and the call were shown, never confirmed


def test_cancel_after_terminal_state_raises() -> None:
    gen = run("chat", events("chat")[:3])
    assert gen.state == State.INCOMPLETE
    with pytest.raises(IllegalTransition):
        gen.cancel()
