"""ToolCallGate and IdempotentToolExecutor with real langchain_core objects and a fake streaming chat model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, ToolMessage
from langchain_core.tools import tool
from lc_tool_fakes import ToolStreamingChatModel, chunks_from_chat_fixture

from sluicegate import SentenceGate
from sluicegate.lifecycle import Draft, Generation, Policy, SQLiteOperationStore, State, ToolCall
from sluicegate_langchain import IdempotentToolExecutor, ToolCallGate
from tests.lifecycle.helpers import TOOLS, TRANSFER_ARGS

CONFIG: Any = {"configurable": {"principal": "user-7", "config_version": "cfg-3", "operation": "pay-rent"}}


def test_drafts_first_then_validated_calls_then_the_generation() -> None:
    model = ToolStreamingChatModel(chunks=chunks_from_chat_fixture())
    items = list(ToolCallGate(model, TOOLS).stream("pay the rent", CONFIG))
    kinds = [type(i).__name__ for i in items]
    first_call = kinds.index("ToolCall")
    assert set(kinds[:first_call]) == {"Draft"} and all(d.draft for d in items[:first_call])
    assert kinds[first_call:] == ["ToolCall", "ToolCall", "Generation"]
    gen = items[-1]
    assert isinstance(gen, Generation) and gen.state == State.VALIDATED
    assert items[first_call].arguments.model_dump() == TRANSFER_ARGS


def test_invoke_and_ainvoke_return_the_generation() -> None:
    gate = ToolCallGate(ToolStreamingChatModel(chunks=chunks_from_chat_fixture()), TOOLS)
    assert gate.invoke("x", CONFIG).state == State.VALIDATED


async def test_astream() -> None:
    model = ToolStreamingChatModel(chunks=chunks_from_chat_fixture())
    items = [i async for i in ToolCallGate(model, TOOLS).astream("x", CONFIG)]
    assert isinstance(items[-1], Generation) and items[-1].state == State.VALIDATED
    assert sum(isinstance(i, ToolCall) for i in items) == 2


def test_stream_cut_before_the_finish_reason_yields_no_call() -> None:
    chunks = chunks_from_chat_fixture()
    finish = next(i for i, c in enumerate(chunks) if c.response_metadata.get("finish_reason"))
    model = ToolStreamingChatModel(chunks=chunks[:finish])  # the arguments are complete JSON by then
    items = list(ToolCallGate(model, TOOLS).stream("x", CONFIG))
    assert not any(isinstance(i, ToolCall) for i in items)
    assert items[-1].state == State.INCOMPLETE
    assert any(isinstance(i, Draft) for i in items)  # the user saw a draft, marked as such


def test_schema_failure_yields_no_call() -> None:
    chunks = chunks_from_chat_fixture()
    last = [tc for c in chunks for tc in c.tool_call_chunks if tc["index"] == 0 and tc["args"]][-1]
    last["args"] = last["args"][:-1] + ',"approved_by":"model"}'  # a field the schema does not have
    chunks = [
        AIMessageChunk(
            content=c.content, tool_call_chunks=c.tool_call_chunks, response_metadata=c.response_metadata, id=c.id
        )
        for c in chunks
    ]
    items = list(ToolCallGate(ToolStreamingChatModel(chunks=chunks), TOOLS).stream("x", CONFIG))
    assert not any(isinstance(i, ToolCall) for i in items)
    assert items[-1].state == State.FAILED and items[-1].rejections[0].code == "schema"


def test_text_parts_pass_the_sentence_gate_and_a_stop_closes_the_model() -> None:
    sources = ["The rent is 1 250,00 CHF."]
    text = "The rent is 1 250,00 CHF [S1]. It doubled in 2019 [S1]. More text follows here. "
    model = ToolStreamingChatModel(chunks=chunks_from_chat_fixture(text_before=text))
    gate = ToolCallGate(model, TOOLS, text_filter=lambda: SentenceGate(sources))
    items = list(gate.stream("x", CONFIG))
    shown = "".join(i.text for i in items if isinstance(i, Draft) and i.kind == "text")
    assert shown.startswith("The rent is 1 250,00 CHF.") and "2019" not in shown
    assert items[-1].state == State.FAILED
    assert not any(isinstance(i, ToolCall) for i in items)
    assert model.closed and model.produced < len(model.chunks)


def test_identity_is_required() -> None:
    gate = ToolCallGate(ToolStreamingChatModel(chunks=chunks_from_chat_fixture()), TOOLS)
    with pytest.raises(ValueError, match="principal"):
        gate.invoke("x", {"configurable": {"operation": "x"}})


def test_executor_runs_each_tool_once(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    @tool
    def transfer(to: str, amount_cents: int, currency: str, memo: str) -> dict[str, str]:
        """Send money."""
        calls.append({"to": to, "amount_cents": amount_cents})
        return {"bank_ref": "TX-1"}

    @tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"sunny in {city}"

    gen = ToolCallGate(ToolStreamingChatModel(chunks=chunks_from_chat_fixture()), TOOLS).invoke("x", CONFIG)
    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    gen.confirm(store)
    executor = IdempotentToolExecutor([transfer, get_weather], store=store, policy=Policy(version="p1"))
    first = executor.run(gen)
    second = executor.run(gen)  # a retry after a timeout, a re-rendered page...
    assert [m.content for m in first] == [m.content for m in second] == ['{"bank_ref": "TX-1"}', "sunny in 東京"]
    assert all(isinstance(m, ToolMessage) for m in first)
    assert [m.tool_call_id for m in first] == ["call_transfer_1", "call_weather_2"]
    assert len(calls) == 1 and gen.state == State.EXECUTED


async def test_executor_arun(tmp_path: Path) -> None:
    calls: list[str] = []

    @tool
    async def transfer(to: str, amount_cents: int, currency: str, memo: str) -> str:
        """Send money."""
        calls.append(to)
        return "TX-async"

    @tool
    async def get_weather(city: str) -> str:
        """Weather for a city."""
        return city

    gen = await ToolCallGate(ToolStreamingChatModel(chunks=chunks_from_chat_fixture()), TOOLS).ainvoke("x", CONFIG)
    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    gen.confirm(store)
    executor = IdempotentToolExecutor([transfer, get_weather], store=store, policy=Policy(version="p1"))
    first, second = await executor.arun(gen), await executor.arun(gen)
    assert [m.content for m in first] == [m.content for m in second] == ["TX-async", "東京"]
    assert len(calls) == 1
