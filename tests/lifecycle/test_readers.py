"""The three readers on fixture streams written from the providers' docs, and their terminal signals."""

from __future__ import annotations

import json

import pytest

from sluicegate.lifecycle import Kind, State

from .helpers import STREAMS, TRANSFER_ARGS, dict_events, events, run


@pytest.mark.parametrize("name", list(STREAMS))
def test_fixture_stream_validates(name: str) -> None:
    gen = run(name)
    assert gen.state == State.VALIDATED, gen.rejections
    transfer = next(c for c in gen.tool_calls if c.name == "transfer")
    assert transfer.arguments.model_dump() == TRANSFER_ARGS
    assert json.loads(transfer.canonical) == TRANSFER_ARGS
    assert gen.provider_id
    assert gen.telemetry.duplicates_dropped == 0


def test_chat_two_parallel_calls_by_index() -> None:
    gen = run("chat")
    assert [(c.call_id, c.name) for c in gen.tool_calls] == [
        ("call_transfer_1", "transfer"),
        ("call_weather_2", "get_weather"),
    ]
    assert gen.tool_calls[1].arguments.city == "東京"


def test_text_parts_are_validated_text() -> None:
    assert run("responses").text == "Je prépare le virement de 1 250,00 CHF. "
    assert run("anthropic").text == "Ich überweise 1 250,00 CHF. "


@pytest.mark.parametrize("name", list(STREAMS))
def test_dicts_and_sse_events_give_the_same_result(name: str) -> None:
    from_sse = run(name)
    from_dicts = run(name, dict_events(name))
    assert from_dicts.state == from_sse.state == State.VALIDATED
    assert [c.canonical for c in from_dicts.tool_calls] == [c.canonical for c in from_sse.tool_calls]


@pytest.mark.parametrize("name", list(STREAMS))
def test_nothing_before_the_terminal_signal(name: str) -> None:
    evs = events(name)
    gen = run(name, evs[:-1] if name != "chat" else evs[:-3], close=False)  # chat: finish, usage, [DONE]
    assert gen.state == State.PROVISIONAL
    assert gen.tool_calls == () and gen.text is None
    assert any(d.kind == Kind.TOOL for d in gen.preview())  # drafts exist, they are just not results
    assert all(d.draft for d in gen.preview())
    assert gen.close() == State.INCOMPLETE
    assert gen.tool_calls == ()


def _chat_finish(reason: str) -> list[dict[str, object]]:
    evs = dict_events("chat")
    finish = next(e for e in evs if e["choices"] and e["choices"][0]["finish_reason"])  # type: ignore[index]
    finish["choices"][0]["finish_reason"] = reason  # type: ignore[index]
    return evs


@pytest.mark.parametrize(
    ("reason", "state"),
    [
        ("length", State.INCOMPLETE),
        ("content_filter", State.INCOMPLETE),
        ("stop", State.VALIDATED),
        ("tool_calls", State.VALIDATED),
        ("something_new", State.INCOMPLETE),
    ],
)
def test_chat_finish_reasons(reason: str, state: State) -> None:
    gen = run("chat", _chat_finish(reason))
    assert gen.state == state
    assert gen.telemetry.terminal_reason in (reason, "unknown_finish_reason")


def test_chat_done_without_finish_reason_is_incomplete() -> None:
    evs = [e for e in events("chat") if '"finish_reason":"tool_calls"' not in e.data]
    gen = run("chat", evs, close=False)
    assert gen.state == State.INCOMPLETE
    assert gen.telemetry.terminal_reason == "done_without_finish_reason"


def test_chat_second_choice_fails() -> None:
    evs = dict_events("chat")
    evs[3]["choices"][0]["index"] = 1  # type: ignore[index]
    assert run("chat", evs).state == State.FAILED


def test_chat_error_payload_fails() -> None:
    evs = dict_events("chat")[:5] + [{"error": {"message": "overloaded", "type": "server_error", "code": "overloaded"}}]
    gen = run("chat", evs)
    assert gen.state == State.FAILED
    assert gen.rejections[-1].detail == "overloaded"


def test_chat_refusal_fails() -> None:
    evs = dict_events("chat")
    evs[0]["choices"][0]["delta"]["refusal"] = "I can't help with that."  # type: ignore[index]
    gen = run("chat", evs)
    assert gen.state == State.FAILED
    assert "provider_failed" in [r.code for r in gen.rejections]


def test_chat_mixed_streams_fail() -> None:
    evs = dict_events("chat")
    evs[4]["id"] = "chatcmpl-other"
    assert run("chat", evs).state == State.FAILED


@pytest.mark.parametrize(
    ("last", "state", "reason"),
    [
        (
            {"type": "response.incomplete", "response": {"incomplete_details": {"reason": "max_output_tokens"}}},
            State.INCOMPLETE,
            "max_output_tokens",
        ),
        (
            {"type": "response.failed", "response": {"error": {"code": "server_error", "message": "x"}}},
            State.FAILED,
            "server_error",
        ),
        (
            {"type": "error", "code": "rate_limit_exceeded", "message": "x", "param": None},
            State.FAILED,
            "rate_limit_exceeded",
        ),
    ],
)
def test_responses_terminal_alternatives(last: dict[str, object], state: State, reason: str) -> None:
    evs = dict_events("responses")
    final = evs.pop()
    gen = run("responses", [*evs, {**last, "sequence_number": final["sequence_number"]}])
    assert gen.state == state
    assert gen.telemetry.terminal_reason == reason
    assert gen.tool_calls == ()


@pytest.mark.parametrize(
    ("event_type", "field"),
    [("response.function_call_arguments.done", "arguments"), ("response.output_text.done", "text")],
)
def test_responses_done_payload_must_equal_the_deltas(event_type: str, field: str) -> None:
    evs = dict_events("responses")
    done = next(e for e in evs if e["type"] == event_type)
    done[field] = str(done[field]).replace("125000", "925000").replace("virement", "paiement")
    gen = run("responses", evs)
    assert gen.state == State.FAILED
    assert "integrity_mismatch" in [r.code for r in gen.rejections]


def test_responses_output_item_done_and_completed_copies_are_checked() -> None:
    for where in ("response.output_item.done", "response.completed"):
        evs = dict_events("responses")
        target = [e for e in evs if e["type"] == where][-1]
        item = target["item"] if where != "response.completed" else target["response"]["output"][1]  # type: ignore[index]
        item["arguments"] = item["arguments"].replace("125000", "125001")  # type: ignore[index]
        gen = run("responses", evs)
        assert gen.state == State.FAILED, where
        assert [r.detail for r in gen.rejections if r.code == "integrity_mismatch"] == [where]


def test_responses_function_call_without_done_is_incomplete() -> None:
    evs = [
        e
        for e in dict_events("responses")
        if e["type"] not in ("response.function_call_arguments.done", "response.output_item.done")
        or e.get("output_index") == 0
    ]
    for i, e in enumerate(evs):
        e["sequence_number"] = i
    # response.completed still carries the finished item, but the item's own terminal never came
    evs[-1]["response"]["output"] = []  # type: ignore[index]
    gen = run("responses", evs)
    assert gen.state == State.INCOMPLETE
    assert gen.telemetry.terminal_reason == "completed"


def test_responses_missing_sequence_number_fails() -> None:
    evs = dict_events("responses")
    del evs[3]["sequence_number"]
    assert run("responses", evs).state == State.FAILED


def test_responses_gap_at_close_is_incomplete() -> None:
    evs = dict_events("responses")
    del evs[5]
    gen = run("responses", evs)
    assert gen.state == State.INCOMPLETE
    assert gen.telemetry.terminal_reason == "sequence_gap"


@pytest.mark.parametrize(
    ("stop_reason", "state"),
    [
        ("end_turn", State.VALIDATED),
        ("tool_use", State.VALIDATED),
        ("stop_sequence", State.VALIDATED),
        ("max_tokens", State.INCOMPLETE),
        ("pause_turn", State.INCOMPLETE),
        ("refusal", State.FAILED),
        ("brand_new_reason", State.INCOMPLETE),
    ],
)
def test_anthropic_stop_reasons(stop_reason: str, state: State) -> None:
    evs = dict_events("anthropic")
    next(e for e in evs if e["type"] == "message_delta")["delta"]["stop_reason"] = stop_reason  # type: ignore[index]
    assert run("anthropic", evs).state == state


def test_anthropic_message_stop_without_stop_reason_is_incomplete() -> None:
    evs = [e for e in dict_events("anthropic") if e["type"] != "message_delta"]
    gen = run("anthropic", evs)
    assert gen.state == State.INCOMPLETE


def test_anthropic_error_event_fails() -> None:
    evs = dict_events("anthropic")[:12] + [{"type": "error", "error": {"type": "overloaded_error", "message": "x"}}]
    gen = run("anthropic", evs)
    assert gen.state == State.FAILED
    assert gen.telemetry.terminal_reason == "overloaded_error"


def test_anthropic_block_left_open_is_incomplete() -> None:
    evs = dict_events("anthropic")
    stops = [i for i, e in enumerate(evs) if e["type"] == "content_block_stop"]
    del evs[stops[-1]]
    assert run("anthropic", evs).state == State.INCOMPLETE


def test_anthropic_tool_use_without_deltas_is_the_documented_empty_input() -> None:
    from pydantic import BaseModel, ConfigDict

    class NoArgs(BaseModel):
        model_config = ConfigDict(extra="forbid")

    evs = [
        {"type": "message_start", "message": {"id": "msg_1", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "ping", "input": {}},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    ]
    gen = run("anthropic", evs, tools={"ping": NoArgs})
    assert gen.state == State.VALIDATED
    assert gen.tool_calls[0].canonical == "{}"


def test_anthropic_sse_name_must_match_type() -> None:
    from sluicegate.sse import SSEEvent

    evs = events("anthropic")
    evs[1] = SSEEvent(event="message_stop", data=evs[1].data)
    assert run("anthropic", evs).state == State.FAILED


def test_anthropic_delta_kind_mismatch_fails() -> None:
    evs = dict_events("anthropic")
    delta = next(e for e in evs if e["type"] == "content_block_delta")
    delta["delta"] = {"type": "input_json_delta", "partial_json": "{}"}
    assert run("anthropic", evs).state == State.FAILED


def test_non_json_event_fails() -> None:
    from sluicegate.sse import SSEEvent

    gen = run("anthropic", [SSEEvent(event="message_start", data="{not json")])
    assert gen.state == State.FAILED
    assert gen.rejections[0].code == "event_not_json"


@pytest.mark.parametrize("name", list(STREAMS))
def test_an_event_carrying_its_decoded_payload_reads_the_same(name: str) -> None:
    """`coerce_event` takes an event's `.payload` (decoded once by the proxy's relay) instead of decoding
    `.data` again: the generation is the same, and the `.data` is not decoded (poisoned here to prove it)."""
    from types import SimpleNamespace

    plain = run(name)
    carried = [
        e
        if e.data.strip() == "[DONE]"
        else SimpleNamespace(event=e.event, data="{not json", payload=json.loads(e.data), id=e.id, retry=e.retry)
        for e in events(name)
    ]
    shared = run(name, carried)
    assert shared.state == plain.state == State.VALIDATED
    assert [(c.call_id, c.name, c.canonical) for c in shared.tool_calls] == [
        (c.call_id, c.name, c.canonical) for c in plain.tool_calls
    ]
    assert shared.telemetry.event_types == plain.telemetry.event_types
