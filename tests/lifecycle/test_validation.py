"""Validation runs only after the terminal signal: strict parse, strict schema (no coercion), business rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from sluicegate import SentenceGate
from sluicegate.lifecycle import Generation, OpenAIChatReader, State

from .helpers import TOOLS, TRANSFER_ARGS, Transfer, dict_events, run


def chat_with_args(arguments: str, name: str = "transfer") -> list[dict[str, Any]]:
    """A minimal documented Chat Completions stream with one tool call carrying `arguments`."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk"}
    first = {"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": ""}}
    return [
        {**base, "choices": [{"index": 0, "delta": {"tool_calls": [first]}, "finish_reason": None}]},
        {
            **base,
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]},
                    "finish_reason": None,
                }
            ],
        },
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]


def args(**changes: Any) -> str:
    return json.dumps({**TRANSFER_ARGS, **changes})


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        (args(amount_cents="125000"), "schema"),  # no str -> int coercion
        (args(amount_cents=1250.0), "schema"),  # no float -> int
        (args(currency="USD"), "schema"),
        (args(extra_field=1), "schema"),  # extra="forbid"
        (args()[:-1], "invalid_json"),  # a prefix that "looks" complete is not salvaged
        (args() + " {}", "invalid_json"),  # trailing data
        ('{"to":"x","amount_cents":1,"amount_cents":100000,"currency":"EUR","memo":""}', "duplicate_key"),
        ('{"to":"x","amount_cents":NaN,"currency":"EUR","memo":""}', "non_finite_number"),
        ("", "invalid_json"),
    ],
)
def test_rejections_fail_the_generation(arguments: str, code: str) -> None:
    gen = run("chat", chat_with_args(arguments))
    assert gen.state == State.FAILED
    assert [r.code for r in gen.rejections] == [code]
    assert gen.tool_calls == ()
    assert "125000" not in gen.rejections[0].detail and "CH93" not in gen.rejections[0].detail  # no values


def test_unknown_tool_is_rejected() -> None:
    gen = run("chat", chat_with_args("{}", name="delete_everything"))
    assert [r.code for r in gen.rejections] == ["unknown_tool"]


def test_business_rule_raises_to_reject() -> None:
    def limit(t: Transfer) -> None:
        if t.amount_cents > 100_000:
            raise ValueError("over the daily limit")

    gen = run("chat", chat_with_args(args()), rules={"transfer": limit})
    assert gen.state == State.FAILED
    assert gen.rejections[0].code == "business_rule"
    assert "daily limit" in gen.rejections[0].detail
    ok = run("chat", chat_with_args(args(amount_cents=500)), rules={"transfer": limit})
    assert ok.state == State.VALIDATED


def test_rules_run_once_and_only_on_the_final_candidate() -> None:
    seen: list[int] = []
    gen = run("chat", rules={"transfer": lambda t: seen.append(t.amount_cents)})
    assert gen.state == State.VALIDATED
    assert seen == [125000]


def test_rule_for_an_undeclared_tool_is_an_error() -> None:
    with pytest.raises(ValueError, match="undeclared"):
        run("chat", rules={"tranfser": lambda t: None})


def test_a_model_that_accepts_unknown_fields_is_refused_at_construction() -> None:
    class Loose(BaseModel):
        city: str

    class Inner(BaseModel):
        x: int

    class Outer(BaseModel):
        model_config = ConfigDict(extra="forbid")
        inner: Inner

    for model in (Loose, Outer):
        with pytest.raises(TypeError, match='extra="forbid"'):
            Generation({"t": model}, reader=OpenAIChatReader(), principal="p", config_version="c", operation="o")
    with pytest.raises(TypeError, match="BaseModel"):
        Generation({"t": dict}, reader=OpenAIChatReader(), principal="p", config_version="c", operation="o")  # type: ignore[dict-item]


def test_a_reader_serves_one_generation() -> None:
    reader = OpenAIChatReader()
    Generation(TOOLS, reader=reader, principal="p", config_version="c", operation="o")
    with pytest.raises(ValueError, match="one reader per stream"):
        Generation(TOOLS, reader=reader, principal="p", config_version="c", operation="o")


class Invoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    number: str
    total_cents: int


def _anthropic_text(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "message_start", "message": {"id": "msg_1", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *[
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text[i : i + 4]}}
            for i in range(0, len(text), 4)
        ],
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]


def test_structured_output_is_validated_strictly() -> None:
    good = run("anthropic", _anthropic_text('{"number": "F-17", "total_cents": 4200}'), output=Invoice)
    assert good.state == State.VALIDATED
    assert good.output == Invoice(number="F-17", total_cents=4200)
    bad = run("anthropic", _anthropic_text('{"number": "F-17", "total_cents": "4200"}'), output=Invoice)
    assert bad.state == State.FAILED and bad.output is None
    assert bad.rejections[0].code == "schema"


def test_structured_output_is_none_while_provisional() -> None:
    evs = _anthropic_text('{"number": "F-17", "total_cents": 4200}')
    gen = run("anthropic", evs[:-1], output=Invoice, close=False)
    assert gen.state == State.PROVISIONAL and gen.output is None


def test_text_passes_the_sentence_gate() -> None:
    sources = ["The rent is 1 250,00 CHF."]
    grounded = "The rent is 1 250,00 CHF [S1]. "
    gen = run("anthropic", _anthropic_text(grounded), text_filter=SentenceGate(sources))
    assert gen.state == State.VALIDATED
    assert gen.text == "The rent is 1 250,00 CHF."
    invented = "The rent is 1 250,00 CHF [S1]. It rose by 12 percent in 2019 [S1]. "
    gen = run("anthropic", _anthropic_text(invented), text_filter=SentenceGate(sources))
    assert gen.state == State.FAILED
    assert "text_gate_stopped" in [r.code for r in gen.rejections]
    shown = "".join(d.text for d in gen.preview())
    assert "2019" not in shown


def test_structured_dict_events_of_the_fixture_validate() -> None:
    assert run("responses", dict_events("responses")).state == State.VALIDATED


def test_validate_tool_calls_for_framework_assembled_calls() -> None:
    from sluicegate.lifecycle import validate_tool_calls

    ok, rejected = validate_tool_calls(TOOLS, [("c1", "transfer", args()), ("c2", "get_weather", '{"city":"Bern"}')])
    assert [c.call_id for c in ok] == ["c1", "c2"] and rejected == ()
    ok, rejected = validate_tool_calls(
        TOOLS, [("c1", "transfer", args()), ("c1", "get_weather", "{}"), (None, "transfer", args()), ("c3", "x", "{}")]
    )
    assert [r.code for r in rejected] == ["duplicate_call_id", "missing_call_id", "unknown_tool"]


def test_arguments_nested_past_the_stack_are_rejected_not_raised() -> None:
    """A model (or an injected prompt) can emit arguments nested deeper than Python's stack: json.loads raises
    RecursionError, not ValueError. It must fail the generation with a code, not escape from feed()."""
    gen = run("chat", chat_with_args('{"to": ' + "[" * 100_000 + "]" * 100_000 + "}"))
    assert gen.state == State.FAILED and [r.code for r in gen.rejections] == ["invalid_json"]
    assert gen.tool_calls == ()


def test_an_event_nested_past_the_stack_fails_the_generation() -> None:
    from sluicegate.sse import SSEEvent

    gen = Generation(TOOLS, reader=OpenAIChatReader(), principal="u", config_version="v", operation="op")
    gen.feed(SSEEvent(data="[" * 100_000 + "]" * 100_000))
    assert gen.state == State.FAILED and [r.code for r in gen.rejections] == ["event_not_json"]


def test_a_restored_generation_gives_back_its_confirmed_structured_output(tmp_path: Any) -> None:
    """confirm() persists the validated output; after a restart restore() must give it back (strictly
    re-validated), not None, and must not silently drop it when no output model is passed."""
    from sluicegate.lifecycle import SQLiteOperationStore

    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    gen = run("anthropic", _anthropic_text('{"number": "F-17", "total_cents": 4200}'), output=Invoice)
    gen.confirm(store)
    restored = Generation.restore(store, gen.id, TOOLS, output=Invoice)
    assert restored.state == State.CONFIRMED
    assert restored.output == Invoice(number="F-17", total_cents=4200) and restored.text == gen.text
    with pytest.raises(ValueError, match="output="):
        Generation.restore(store, gen.id, TOOLS)
    store.close()


@pytest.mark.parametrize(
    ("reader", "event"),
    [
        ("chat", {"id": "c1", "choices": [{"index": 0, "delta": "not an object"}]}),
        ("chat", {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": "x"}]}}]}),
        ("responses", {"type": "response.output_item.added", "sequence_number": 0, "item": "not an object"}),
        ("anthropic", {"type": "content_block_start", "index": 0, "content_block": "not an object"}),
        ("anthropic", {"type": "message_delta", "delta": "not an object"}),
    ],
)
def test_a_malformed_provider_event_fails_the_generation(reader: str, event: dict[str, Any]) -> None:
    """Right type, wrong shape inside (a string where the format has an object): the generation fails with a
    code, fail closed, instead of an AttributeError escaping from feed() with the generation still live."""
    from sluicegate.lifecycle import AnthropicReader, OpenAIResponsesReader

    readers = {"chat": OpenAIChatReader, "responses": OpenAIResponsesReader, "anthropic": AnthropicReader}
    gen = Generation(TOOLS, reader=readers[reader](), principal="u", config_version="v", operation="op")
    if reader == "responses":
        gen.feed({"type": "response.created", "sequence_number": 0, "response": {"id": "r1"}})
        event = {**event, "sequence_number": 1}
    gen.feed(event)
    assert gen.state == State.FAILED, gen.state
    assert gen.rejections[-1].code in ("malformed_event", "block_without_index")
    assert "not an object" not in repr(gen.telemetry.as_dict())  # codes and types only, no payload
