"""What a new user trips over when wiring real tools (issue 23, point 5), and the reader cases that the real
recordings do not contain (a computer_call, a mixed or resumed unnumbered stream, OpenRouter's error shape)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from sluicegate.lifecycle import (
    AnthropicReader,
    Generation,
    JsonSchemaTool,
    OpenAIChatReader,
    OpenAIResponsesReader,
    SQLiteOperationStore,
    State,
    schema_tools,
    validate_stream,
)

from .helpers import TOOLS, raw, run
from .test_validation import _anthropic_text, args, chat_with_args

TRANSFER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "to": {"type": "string"},
        "amount_cents": {"type": "integer", "minimum": 1},
        "currency": {"enum": ["EUR", "CHF"]},
        "memo": {"type": "string"},
        "tags": {"type": "object", "additionalProperties": {"type": "number"}},
    },
    "required": ["to", "amount_cents", "currency", "memo"],
}


def _schema_run(arguments: str, schema: dict[str, Any] = TRANSFER_SCHEMA) -> Generation:
    return validate_stream(chat_with_args(arguments), {"transfer": schema}, reader=OpenAIChatReader())


# -- JSON Schema tools ---------------------------------------------------------------------------------------


def test_a_json_schema_defines_a_tool_and_the_call_is_the_json_value() -> None:
    gen = _schema_run(args())
    assert gen.state == State.VALIDATED, gen.rejections
    call = gen.tool_calls[0]
    assert call.arguments == json.loads(args()) and json.loads(call.canonical) == json.loads(args())


@pytest.mark.parametrize(
    ("changes", "detail"),
    [
        ({"amount_cents": "125000"}, "amount_cents: type"),  # no coercion of a string
        ({"amount_cents": 125000.0}, "amount_cents: type"),  # 1.0 is not an integer for a strict schema
        ({"amount_cents": True}, "amount_cents: type"),
        ({"amount_cents": 0}, "amount_cents: minimum"),
        ({"currency": "USD"}, "currency: enum"),
        ({"iban_override": "x"}, "<root>: additionalProperties"),  # the schema said nothing: closed
        ({"tags": {"a": "1"}}, "tags.a: type"),
    ],
)
def test_a_json_schema_tool_is_validated_strictly(changes: dict[str, Any], detail: str) -> None:
    data = {**json.loads(args()), **changes}
    gen = _schema_run(json.dumps(data))
    assert gen.state == State.FAILED
    (rejection,) = gen.rejections
    assert rejection.code == "schema" and detail in rejection.detail
    assert "USD" not in rejection.detail and "125000" not in rejection.detail  # paths and keywords, no values


def test_a_json_schema_that_allows_unknown_properties_gets_them() -> None:
    gen = _schema_run(json.dumps({**json.loads(args()), "extra": 1}), {**TRANSFER_SCHEMA, "additionalProperties": True})
    assert gen.state == State.VALIDATED
    assert _schema_run(json.dumps({**json.loads(args()), "tags": {"x": 1.5, "y": 2}})).state == State.VALIDATED


def test_duplicate_keys_and_nan_are_refused_before_the_schema() -> None:
    assert [r.code for r in _schema_run('{"to": "a", "to": "b"}').rejections] == ["duplicate_key"]
    assert [r.code for r in _schema_run('{"amount_cents": NaN}').rejections] == ["non_finite_number"]


def test_a_schema_parsed_afresh_is_judged_by_its_content() -> None:
    """Each request parses its tools into new dicts (compiled once per content): equal content validates the
    same, a change of content (1 vs 1.0 vs true, a key renamed) or of the tool's name is a schema of its own."""
    fresh = [json.loads(json.dumps(TRANSFER_SCHEMA)) for _ in range(2)]
    assert [_schema_run(args(), s).state for s in fresh] == [State.VALIDATED] * 2
    for minimum, allowed in ((1, True), (1.0, True), (125001, False), (125000.5, False)):
        schema = json.loads(json.dumps(TRANSFER_SCHEMA))
        schema["properties"]["amount_cents"]["minimum"] = minimum
        assert (_schema_run(args(), schema).state == State.VALIDATED) is allowed, minimum
    loose = json.loads(json.dumps(TRANSFER_SCHEMA))
    loose["properties"]["amount_cents"] = {"type": "string"}
    assert _schema_run(args(), loose).state == State.FAILED
    assert _schema_run(json.dumps({**json.loads(args()), "amount_cents": "1"}), loose).state == State.VALIDATED
    renamed = validate_stream(chat_with_args(args()), {"other": fresh[0]}, reader=OpenAIChatReader())
    assert renamed.state == State.FAILED  # the call names "transfer", which this request does not offer


def test_the_callers_schema_is_not_changed_and_bad_schemas_are_refused() -> None:
    schema = json.loads(json.dumps(TRANSFER_SCHEMA))
    JsonSchemaTool(schema)
    assert schema == TRANSFER_SCHEMA  # closed on a copy
    with pytest.raises(TypeError, match="not a valid JSON Schema"):
        Generation({"t": {"type": "object", "properties": {"a": {"type": "nope"}}}}, reader=OpenAIChatReader())
    composed = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    with pytest.raises(TypeError, match="additionalProperties"):
        Generation({"t": composed}, reader=OpenAIChatReader())


def test_schema_tools_reads_the_tool_lists_sent_to_each_provider() -> None:
    params = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    chat = [{"type": "function", "function": {"name": "get_weather", "parameters": params, "strict": True}}]
    responses = [{"type": "function", "name": "get_weather", "parameters": params}, {"type": "web_search"}]
    anthropic = [{"name": "get_weather", "input_schema": params}]
    for tools in (chat, responses, anthropic):
        assert schema_tools(tools) == {"get_weather": params}
    with pytest.raises(ValueError, match="twice"):
        schema_tools(anthropic * 2)


# -- pydantic models with mapping fields ------------------------------------------------------------------------


class Scores(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weights: dict[str, float]


def test_a_mapping_field_is_accepted_and_still_strict() -> None:
    gen = run("chat", chat_with_args('{"weights": {"a": 0.5, "b": 1.5}}', name="score"), tools={"score": Scores})
    assert gen.state == State.VALIDATED, gen.rejections
    assert gen.tool_calls[0].arguments.weights == {"a": 0.5, "b": 1.5}
    bad = run("chat", chat_with_args('{"weights": {"a": "0.5"}}', name="score"), tools={"score": Scores})
    assert bad.state == State.FAILED and bad.rejections[0].code == "schema"
    extra = run("chat", chat_with_args('{"weights": {}, "x": 1}', name="score"), tools={"score": Scores})
    assert extra.state == State.FAILED


def test_a_model_inside_a_mapping_must_still_be_closed() -> None:
    class Inner(BaseModel):
        x: int

    class Outer(BaseModel):
        model_config = ConfigDict(extra="forbid")
        by_name: dict[str, Inner]

    with pytest.raises(TypeError, match='extra="forbid"'):
        Generation({"t": Outer}, reader=OpenAIChatReader())


# -- structured output and tool calls ------------------------------------------------------------------------------


class Invoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: str
    total_cents: int


def test_an_output_generation_accepts_a_reply_that_is_a_tool_call() -> None:
    gen = run("chat", chat_with_args(args()), output=Invoice)
    assert gen.state == State.VALIDATED, gen.rejections
    assert gen.output is None and [c.name for c in gen.tool_calls] == ["transfer"]
    # The fixture stream has text before its calls: a tool-call turn; the text is text, not the output.
    gen = run("anthropic", output=Invoice)
    assert gen.state == State.VALIDATED and gen.output is None and gen.text
    # No call: the text must be the structured output.
    assert run("anthropic", _anthropic_text("plain words"), output=Invoice).state == State.FAILED
    good = run("anthropic", _anthropic_text('{"number": "F-1", "total_cents": 5}'), output=Invoice)
    assert good.output == Invoice(number="F-1", total_cents=5)


def test_output_can_be_a_json_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    gen = validate_stream(_anthropic_text('{"n": 3}'), {}, reader=AnthropicReader(), output=schema)
    assert gen.state == State.VALIDATED and gen.output == {"n": 3}
    gen = validate_stream(_anthropic_text('{"n": 3, "m": 1}'), {}, reader=AnthropicReader(), output=schema)
    assert gen.state == State.FAILED


# -- validation without principal / config / operation ------------------------------------------------------------


def test_validation_needs_no_identity_but_confirmation_does(tmp_path: Any) -> None:
    gen = validate_stream([raw("chat")], TOOLS, reader=OpenAIChatReader())
    assert gen.state == State.VALIDATED and len(gen.tool_calls) == 2
    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    with pytest.raises(ValueError, match="principal, config_version, operation"):
        gen.confirm(store)
    assert gen.state == State.VALIDATED
    store.close()


def test_validate_stream_takes_bytes_cut_anywhere_or_events() -> None:
    data = raw("responses")
    pieces = [data[i : i + 7] for i in range(0, len(data), 7)]
    by_bytes = validate_stream(pieces, TOOLS, reader=OpenAIResponsesReader())
    by_text = validate_stream([data.decode()], TOOLS, reader=OpenAIResponsesReader())
    from sluicegate.sse import SSEParser

    by_events = validate_stream(SSEParser().feed(data), TOOLS, reader=OpenAIResponsesReader())
    assert by_bytes.state == by_text.state == by_events.state == State.VALIDATED
    assert [c.canonical for c in by_bytes.tool_calls] == [c.canonical for c in by_events.tool_calls]


def test_bad_bytes_fail_the_generation_with_a_code() -> None:
    # The SSE parser reads invalid UTF-8 as U+FFFD (the spec's rule): the event's data is then not JSON.
    gen = Generation(TOOLS, reader=OpenAIChatReader())
    gen.feed_bytes(b"data: \xff\xfe\n\n")
    assert gen.state == State.FAILED and gen.rejections[0].code == "event_not_json"


def test_an_unterminated_event_is_logged_without_its_content(caplog: pytest.LogCaptureFixture) -> None:
    data = raw("anthropic").rstrip(b"\n")
    with caplog.at_level(logging.WARNING, logger="sluicegate.lifecycle"):
        gen = validate_stream([data], TOOLS, reader=AnthropicReader())
    assert gen.state == State.INCOMPLETE and gen.telemetry.unterminated_events == 1
    (record,) = caplog.records
    assert "message_stop" in record.getMessage() and "type" not in record.getMessage()


# -- readers: cases the recordings lack --------------------------------------------------------------------------------


def _responses(*items_done: dict[str, Any], numbered: bool = True) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": "resp_1", "output": []}}]
    for item in items_done:
        events.append({"type": "response.output_item.added", "item": {**item, "status": "in_progress"}})
        events.append({"type": "response.output_item.done", "item": item})
    events.append({"type": "response.completed", "response": {"id": "resp_1", "output": list(items_done)}})
    if numbered:
        events = [{**e, "sequence_number": n} for n, e in enumerate(events)]
    return events


ANY_OBJECT = {"type": "object", "additionalProperties": True}  # `{"type": "object"}` alone would be closed
COMPUTER = {
    "id": "cu_1",
    "type": "computer_call",
    "call_id": "call_cu",
    "status": "completed",
    "action": {"type": "click", "button": "left", "x": 10, "y": 20},
    "pending_safety_checks": [],
}


def test_a_computer_call_is_a_tool_call_named_by_its_type() -> None:
    gen = validate_stream(_responses(COMPUTER), {"computer_call": ANY_OBJECT}, reader=OpenAIResponsesReader())
    assert gen.state == State.VALIDATED, gen.rejections
    (call,) = gen.tool_calls
    assert (call.call_id, call.name) == ("call_cu", "computer_call")
    assert json.loads(call.canonical) == {"action": COMPUTER["action"], "pending_safety_checks": []}
    refused = validate_stream(_responses(COMPUTER), {}, reader=OpenAIResponsesReader())
    assert [(r.code, r.tool) for r in refused.rejections] == [("unknown_tool", "computer_call")]


def test_a_client_call_that_differs_in_the_final_response_fails() -> None:
    events = _responses(COMPUTER)
    events[-1]["response"]["output"] = [{**COMPUTER, "action": {"type": "click", "x": 99, "y": 20}}]
    gen = validate_stream(events, {"computer_call": ANY_OBJECT}, reader=OpenAIResponsesReader())
    assert gen.state == State.FAILED and gen.rejections[0].code == "integrity_mismatch"


@pytest.mark.parametrize("numbered", [True, False])
def test_an_item_type_nobody_models_fails_closed_by_name(numbered: bool) -> None:
    item = {"id": "x_1", "type": "brand_new_call", "call_id": "c"}
    gen = validate_stream(_responses(item, numbered=numbered), TOOLS, reader=OpenAIResponsesReader())
    assert gen.state == State.FAILED
    assert [(r.code, r.detail) for r in gen.rejections] == [("unsupported_output_item", "brand_new_call")]


def test_a_stream_that_mixes_numbered_and_unnumbered_events_fails() -> None:
    events = _responses(COMPUTER)
    del events[2]["sequence_number"]
    assert validate_stream(events, TOOLS, reader=OpenAIResponsesReader()).rejections[0].code == (
        "missing_sequence_number"
    )
    events = _responses(COMPUTER, numbered=False)
    events[2]["sequence_number"] = 2
    assert validate_stream(events, TOOLS, reader=OpenAIResponsesReader()).rejections[0].code == (
        "sequence_numbers_mixed"
    )


def test_an_unnumbered_stream_cannot_be_resumed_or_start_mid_way() -> None:
    events = _responses(COMPUTER, numbered=False)
    gen = validate_stream(events, TOOLS, reader=OpenAIResponsesReader(starting_after=1))
    assert gen.rejections[0].code == "missing_sequence_number"
    gen = validate_stream(events[1:], TOOLS, reader=OpenAIResponsesReader())
    assert gen.rejections[0].code == "event_before_response_created"
    live = Generation(TOOLS, reader=OpenAIResponsesReader())
    live.feed(events[0])
    with pytest.raises(ValueError, match="new generation"):
        live.checkpoint()
    assert not live.resumable


@pytest.mark.parametrize(
    ("event", "code"),
    [
        # OpenRouter: an error object beside `choices`, finish_reason "error".
        (
            {
                "id": "gen-1",
                "object": "chat.completion.chunk",
                "error": {"code": 502, "message": "Provider returned error: the user said <secret>"},
                "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
            },
            "502",
        ),
        ({"error": {"type": "rate_limit_error", "message": "slow down"}}, "rate_limit_error"),
        ({"error": {"message": "no code at all"}}, None),
        ({"error": {"code": "has spaces: free text", "message": "x"}}, None),
    ],
)
def test_chat_error_objects_carry_the_providers_code(event: dict[str, Any], code: str | None) -> None:
    gen = Generation(TOOLS, reader=OpenAIChatReader())
    for chunk in chat_with_args(args())[:1]:
        gen.feed(chunk)
    gen.feed(event)
    assert gen.state == State.FAILED
    (failure,) = gen.rejections
    assert (failure.code, failure.provider_code, failure.detail) == ("provider_failed", code, code or "error")
    assert "secret" not in repr(gen.telemetry.as_dict())


def test_anthropic_error_type_reaches_the_rejection() -> None:
    events = _anthropic_text("Hallo")[:3] + [{"type": "error", "error": {"type": "overloaded_error", "message": "x"}}]
    gen = validate_stream(events, {}, reader=AnthropicReader())
    assert gen.rejections[0].provider_code == "overloaded_error"


def test_responses_error_code_documented_top_level_or_nested() -> None:
    for error in ({"code": "server_error", "message": "m"}, {"error": {"code": "rate_limit_exceeded"}}):
        events = [{"type": "response.created", "sequence_number": 0, "response": {"id": "r"}}]
        events.append({"type": "error", "sequence_number": 1, **error})
        gen = validate_stream(events, {}, reader=OpenAIResponsesReader())
        assert gen.rejections[0].provider_code in ("server_error", "rate_limit_exceeded")


def test_a_server_tool_block_is_buffered_and_its_deltas_must_still_be_strings() -> None:
    start = {"type": "message_start", "message": {"id": "msg_1", "content": []}}
    block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    events: list[dict[str, Any]] = [
        start,
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"q'}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '":1}'}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]
    gen = validate_stream(events, {}, reader=AnthropicReader())
    assert gen.state == State.VALIDATED and gen.tool_calls == () and gen.preview() == ()
    events[2] = {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": 5}}
    assert validate_stream(events, {}, reader=AnthropicReader()).rejections[0].code == "delta_not_a_string"


def test_resume_refuses_a_reader_at_another_cursor() -> None:
    events = _responses(COMPUTER)
    gen = Generation(TOOLS, reader=OpenAIResponsesReader())
    gen.feed(events[0])
    gen.feed(events[1])
    stored = gen.checkpoint()
    with pytest.raises(ValueError, match="starting_after=1"):
        Generation.resume(stored, TOOLS, reader=OpenAIResponsesReader(starting_after=0))
    with pytest.raises(ValueError, match="not a generation checkpoint"):
        Generation.resume(json.dumps({"v": 1}), TOOLS)
    resumed = Generation.resume(stored, {"computer_call": ANY_OBJECT})
    for event in events:  # the whole stream again: everything up to the cursor is dropped
        resumed.feed(event)
    assert resumed.state == State.VALIDATED and resumed.id == gen.id
    assert resumed.telemetry.duplicates_dropped == 2


def test_resume_rebuilds_the_text_gate_from_the_buffered_text() -> None:
    from sluicegate import SentenceGate

    sources = ["The rent is 1 250,00 CHF."]
    text = "The rent is 1 250,00 CHF [S1]. "
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "r"}},
        {"type": "response.output_item.added", "item": {"id": "m", "type": "message", "content": []}},
        {"type": "response.content_part.added", "item_id": "m", "content_index": 0, "part": {"type": "output_text"}},
        *[
            {"type": "response.output_text.delta", "item_id": "m", "content_index": 0, "delta": text[i : i + 5]}
            for i in range(0, len(text), 5)
        ],
        {"type": "response.output_text.done", "item_id": "m", "content_index": 0, "text": text},
        {"type": "response.completed", "response": {"id": "r", "output": []}},
    ]
    events = [{**e, "sequence_number": n} for n, e in enumerate(events)]
    whole = validate_stream(events, {}, reader=OpenAIResponsesReader(), text_filter=SentenceGate(sources))
    first = Generation({}, reader=OpenAIResponsesReader(), text_filter=SentenceGate(sources))
    for event in events[:6]:
        first.feed(event)
    second = Generation.resume(first.checkpoint(), {}, text_filter=SentenceGate(sources))
    for event in events[6:]:
        second.feed(event)
    assert second.state == whole.state == State.VALIDATED
    assert second.text == whole.text == "The rent is 1 250,00 CHF."


def test_a_legacy_function_call_is_refused_by_name_not_dropped() -> None:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk"}
    events = [
        {**base, "choices": [{"index": 0, "delta": {"function_call": {"name": "transfer", "arguments": ""}}}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "function_call"}]},
    ]
    gen = validate_stream(events, TOOLS, reader=OpenAIChatReader())
    assert gen.state == State.FAILED and gen.rejections[0].code == "legacy_function_call"
