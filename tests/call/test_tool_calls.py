"""The tool-call lifecycle inside the guarded call: a recorded provider stream (the lifecycle fixtures) fed
as events; a call is handed out only once validated after the terminal event, and the call still settles."""

from __future__ import annotations

from pathlib import Path

from sluicegate import CallModel, GuardedCall, Settle, ToolCallValidated
from sluicegate.lifecycle import Generation, OpenAIChatReader

from ..lifecycle.helpers import TOOLS, TRANSFER_ARGS, events
from .helpers import SOURCES, budget


def _call(tmp_path: Path) -> GuardedCall:
    cap, _ = budget(tmp_path)

    def generation(text_filter):
        return Generation(
            TOOLS,
            reader=OpenAIChatReader(),
            principal="user-7",
            config_version="cfg-3",
            operation="pay-rent",
            text_filter=text_filter,
        )

    call = GuardedCall(sources=SOURCES, budget=cap, generation=generation)
    reserve = call.start()
    assert isinstance(call.reserved(reserve.budget.reserve("p")), CallModel)  # type: ignore[union-attr]
    return call


def test_a_tool_call_is_handed_out_only_after_the_terminal_event(tmp_path: Path) -> None:
    call = _call(tmp_path)
    stream = events("chat")
    terminal = next(i for i, e in enumerate(stream) if '"finish_reason":"' in e.data.replace(" ", ""))
    handed: list[ToolCallValidated] = []
    for i, event in enumerate(stream):
        found = [a for a in call.event(event) if isinstance(a, ToolCallValidated)]
        assert not found or i >= terminal
        handed += found
    assert [a.call.name for a in handed] == ["transfer", "get_weather"]
    assert handed[0].call.arguments.model_dump() == TRANSFER_ARGS
    assert isinstance(call.end(), Settle)


def test_a_stream_cut_before_its_terminal_event_validates_nothing_and_settles(tmp_path: Path) -> None:
    call = _call(tmp_path)
    stream = events("chat")
    actions = [a for event in stream[: len(stream) // 2] for a in call.event(event)]
    assert not [a for a in actions if isinstance(a, ToolCallValidated)]
    settle = call.end()
    assert isinstance(settle, Settle)
    assert call.generation is not None and call.generation.state.value == "incomplete"
    assert call.generation.tool_calls == ()
