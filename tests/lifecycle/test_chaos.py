"""Chaos at every boundary (seed 003): cuts through the real SSE parser, replays, reorders, error terminals,
late cancellations, lost tool responses. No scenario may confirm incomplete content or execute twice.
"""

from __future__ import annotations

import random

import pytest

from sluicegate.lifecycle import Generation, IllegalTransition, OutcomeUnknown, Policy, SQLiteOperationStore, State
from sluicegate.sse import SSEEvent, SSEParser

from .helpers import STREAMS, dict_events, events, generation, raw, run

POLICY = Policy(version="pol-1")


def reference(name: str) -> tuple[State, list[str], str | None]:
    gen = run(name)
    return gen.state, [c.canonical for c in gen.tool_calls], gen.text


def outcome(gen: Generation) -> tuple[State, list[str], str | None]:
    return gen.state, [c.canonical for c in gen.tool_calls], gen.text


def terminal_end(name: str) -> int:
    """Byte offset just after the blank line that completes the provider's terminal event."""
    data = raw(name)
    marker = {
        "chat": b'"finish_reason":"tool_calls"',
        "responses": b"event: response.completed",
        "anthropic": b"event: message_stop",
    }[name]
    return data.index(b"\n\n", data.index(marker)) + 2


@pytest.mark.parametrize("name", list(STREAMS))
def test_two_reads_cut_at_every_byte_give_the_whole_result(name: str) -> None:
    data, whole = raw(name), reference(name)
    assert whole[0] == State.VALIDATED
    for cut in range(len(data) + 1):
        parser, gen = SSEParser(), generation(name)
        for piece in (data[:cut], data[cut:]):
            for event in parser.feed(piece):
                gen.feed(event)
        parser.close()
        gen.close()
        assert outcome(gen) == whole, cut


@pytest.mark.parametrize("name", list(STREAMS))
def test_connection_lost_at_every_byte(name: str) -> None:
    """Truncated at byte p: validated (and then identical) only if the terminal event arrived whole."""
    data, whole, end = raw(name), reference(name), terminal_end(name)
    parser = SSEParser()
    seen: list[SSEEvent] = []
    dispatched_at: list[int] = []  # events dispatched by the first p bytes
    for p in range(len(data) + 1):
        dispatched_at.append(len(seen))
        if p < len(data):
            seen.extend(parser.feed(data[p : p + 1]))
    by_count: dict[int, tuple[State, list[str], str | None]] = {}
    for p, count in enumerate(dispatched_at):
        if count not in by_count:
            by_count[count] = outcome(run(name, seen[:count]))
        state = by_count[count][0]
        if p >= end:
            assert by_count[count] == whole, p
        else:
            assert state == State.INCOMPLETE, p
            assert by_count[count][1:] == ([], None)


def _named_cuts(name: str) -> dict[str, int]:
    data = raw(name)
    multibyte = data.index("ü".encode()) + 1  # between the two bytes of ü
    first_data = data.index(b"\ndata: ", data.index(b"event:" if name != "chat" else b"data:")) + 1
    json_inside = data.index(b'\\"to\\"') + 3  # inside the arguments JSON string
    args_marker = {
        "chat": b'"finish_reason":"tool_calls"',
        "responses": b"event: response.function_call_arguments.done",
        "anthropic": b"event: content_block_stop",
    }[name]
    args_complete = data.rindex(args_marker)
    before_terminal = terminal_end(name) - 3
    return {
        "inside a multi-byte character": multibyte,
        "between event lines": first_data,
        "inside JSON": json_inside,
        "after arguments that look complete": data.rindex(b"\n\n", 0, args_complete) + 2,
        "just before the terminal signal": before_terminal,
    }


@pytest.mark.parametrize("name", list(STREAMS))
def test_the_seed_boundaries(name: str) -> None:
    data = raw(name)
    for label, cut in _named_cuts(name).items():
        parser, gen = SSEParser(), generation(name)
        for event in parser.feed(data[:cut]):
            gen.feed(event)
        if label == "inside a multi-byte character":
            assert parser.close() == []  # the cut character's line is unterminated: discarded, never dispatched
        assert gen.close() == State.INCOMPLETE, label
        assert gen.tool_calls == () and gen.text is None, label
        with pytest.raises(IllegalTransition):
            gen.confirm(SQLiteOperationStore(":memory:"))


def test_responses_every_event_twice_is_the_same_answer() -> None:
    evs = events("responses")
    gen = run("responses", [e for e in evs for _ in (0, 1)])
    assert outcome(gen) == reference("responses")
    assert gen.telemetry.duplicates_dropped == len(evs) - 1
    assert gen.telemetry.late_events == 1  # the copy of response.completed arrives after the terminal


@pytest.mark.parametrize("resume_at", [0, 5, 13, 20])
def test_responses_resume_overlap_is_deduplicated(resume_at: int) -> None:
    evs = events("responses")
    gen = run("responses", evs[: resume_at + 8] + evs[resume_at:])
    assert outcome(gen) == reference("responses")


def test_responses_resume_with_starting_after() -> None:
    from sluicegate.lifecycle import OpenAIResponsesReader

    evs = events("responses")
    first = generation("responses")
    for e in evs[:10]:
        first.feed(e)
    cursor = first.reader.cursor  # type: ignore[attr-defined]
    assert cursor == 9
    # A resumed reader applies only what comes after the cursor; here the assembly is the one of `first`.
    reader = OpenAIResponsesReader(starting_after=cursor)
    ops = [op for e in evs for op in reader.read(e)]
    assert reader.cursor == len(evs) - 1
    assert sum(type(op).__name__ == "Duplicate" for op in ops) == 10


@pytest.mark.parametrize("seed", range(5))
def test_responses_any_order_is_the_same_answer(seed: int) -> None:
    evs = events("responses")
    random.Random(seed).shuffle(evs)
    assert outcome(run("responses", evs)) == reference("responses")


def test_chat_parallel_calls_interleaved_by_index() -> None:
    evs = dict_events("chat")
    first = [e for e in evs if e["choices"] and "tool_calls" in e["choices"][0]["delta"]]  # type: ignore[index]
    zero = [e for e in first if e["choices"][0]["delta"]["tool_calls"][0]["index"] == 0]  # type: ignore[index]
    one = [e for e in first if e["choices"][0]["delta"]["tool_calls"][0]["index"] == 1]  # type: ignore[index]
    mixed = [e for pair in zip(zero, one, strict=False) for e in pair] + zero[len(one) :] + one[len(zero) :]
    rest = [e for e in evs if e not in first]
    gen = run("chat", rest[:1] + mixed + rest[1:])
    assert outcome(gen) == reference("chat")


def test_anthropic_structural_replays_are_dropped() -> None:
    evs = events("anthropic")
    replayed = []
    for e in evs:
        replayed.append(e)
        if e.event in ("message_start", "content_block_start", "content_block_stop", "message_stop"):
            replayed.append(e)
    gen = run("anthropic", replayed)
    assert outcome(gen) == reference("anthropic")
    assert gen.telemetry.duplicates_dropped == 5  # message_start, two starts, two stops
    assert gen.telemetry.late_events == 1  # the second message_stop


def test_anthropic_delta_before_its_block_fails() -> None:
    evs = events("anthropic")
    i = next(i for i, e in enumerate(evs) if '"input_json_delta"' in e.data and '"partial_json":""' not in e.data)
    start = next(j for j, e in enumerate(evs) if '"tool_use"' in e.data)
    evs.insert(start, evs.pop(i))  # not allowed by the contract: blocks are sequential
    assert run("anthropic", evs).state == State.FAILED


@pytest.mark.parametrize("name", list(STREAMS))
def test_error_terminal_mid_stream(name: str) -> None:
    error = {
        "chat": SSEEvent(data='{"error":{"type":"server_error","code":"overloaded","message":"x"}}'),
        "responses": SSEEvent(
            event="error", data='{"type":"error","code":"server_error","message":"x","sequence_number":9}'
        ),
        "anthropic": SSEEvent(event="error", data='{"type":"error","error":{"type":"overloaded_error","message":"x"}}'),
    }[name]
    evs = events(name)
    gen = run(name, [*evs[:9], error, *evs[9:]])
    assert gen.state == State.FAILED and gen.tool_calls == ()
    assert gen.telemetry.late_events == len(evs) - 9


def test_late_cancellations(tmp_path: object) -> None:
    store = SQLiteOperationStore(f"{tmp_path}/late.sqlite3")
    gen = run("anthropic")
    gen.cancel()  # after validation, before confirmation
    assert gen.state == State.CANCELLED and gen.tool_calls == ()
    done = run("anthropic")
    done.confirm(store)
    call = done.tool_calls[0].call_id
    done.execute(call, lambda a: {"ok": 1}, store=store, policy=POLICY)
    with pytest.raises(IllegalTransition):  # an executed action is answered by compensation, not by cancel
        done.cancel()
    assert done.execute(call, lambda a: {"ok": 2}, store=store, policy=POLICY) == {"ok": 1}


def test_lost_tool_response_then_retries(tmp_path: object) -> None:
    store = SQLiteOperationStore(f"{tmp_path}/lost.sqlite3")
    applied: list[int] = []

    def tool(args: object) -> object:
        applied.append(1)
        raise TimeoutError("response lost")

    gen = run("responses")
    gen.confirm(store)
    call = gen.tool_calls[0].call_id
    for _ in range(5):
        with pytest.raises(OutcomeUnknown):
            gen.execute(call, tool, store=store, policy=POLICY)
    assert applied == [1]


@pytest.mark.parametrize("offset", [1, 7])
def test_responses_numbering_is_anchored_at_response_created(offset: int) -> None:
    """Docs and SDKs show both 0- and 1-based numbering: the anchor is response.created, not a constant."""
    evs = dict_events("responses")
    for e in evs:
        e["sequence_number"] = int(e["sequence_number"]) + offset  # type: ignore[call-overload]
    evs.insert(3, evs.pop(0))  # and response.created arrives late
    assert outcome(run("responses", evs)) == reference("responses")
