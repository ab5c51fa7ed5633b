"""The tool-call lifecycle inside the guarded call: a recorded provider stream (the lifecycle fixtures) fed
as events; a call is handed out only once validated after the terminal event, and the call still settles."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sluicegate import CallModel, GuardedCall, Settle, ToolCallValidated
from sluicegate.call import astream_tool_calls, stream_tool_calls
from sluicegate.lifecycle import Draft, Generation, OpenAIChatReader, ToolCall

from ..lifecycle.helpers import TOOLS, TRANSFER_ARGS, events
from .helpers import SOURCES, CountingStore, Upstream, budget


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


def _settles(tmp_path: Path) -> tuple[GuardedCall, CountingStore]:
    call = _call(tmp_path)
    assert call.budget is not None
    store = call.budget.cap.store
    assert isinstance(store, CountingStore)
    return call, store


def test_the_tool_call_driver_yields_drafts_then_validated_calls_then_the_generation(tmp_path: Path) -> None:
    call, store = _settles(tmp_path)
    stream = Upstream(list(events("chat")))
    out = list(stream_tool_calls(call, stream))
    assert isinstance(out[-1], Generation) and out[-1].state.value == "validated"
    calls = [o for o in out if isinstance(o, ToolCall)]
    assert [c.name for c in calls] == ["transfer", "get_weather"]
    assert all(isinstance(o, Draft) for o in out[: -1 - len(calls)])
    assert stream.closed and list(store.asked.values()) == [1]


def test_the_tool_call_driver_closes_the_stream_and_settles_when_the_reader_leaves(tmp_path: Path) -> None:
    call, store = _settles(tmp_path)
    stream = Upstream(list(events("chat")))
    items = stream_tool_calls(call, stream)
    next(items)
    items.close()
    assert stream.closed and stream.read < len(stream.pieces)
    assert list(store.asked.values()) == [1]
    assert call.generation is not None and call.generation.state.value == "cancelled"


async def test_the_async_tool_call_driver_stops_reading_at_a_failed_generation(tmp_path: Path) -> None:
    call, store = _settles(tmp_path)
    recorded = events("chat")
    broken = [*recorded[:3], replace(recorded[3], data='{"choices": [{"index": 0, "delta": '), *recorded[3:]]
    stream = Upstream(broken)
    out = [item async for item in astream_tool_calls(call, stream)]
    assert isinstance(out[-1], Generation) and out[-1].state.value == "failed"
    assert not [o for o in out if isinstance(o, ToolCall)]
    assert stream.closed and stream.read == 4, "the driver read on after the generation failed"
    assert list(store.asked.values()) == [1]
