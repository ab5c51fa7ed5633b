"""stream_tool_calls / astream_tool_calls and IdempotentToolExecutor with real LlamaIndex tools and messages.

No `from __future__ import annotations` here: LlamaIndex builds `fn_schema` from the function's annotations and
cannot resolve string annotations such as `Literal[...]` (its own schema is then unusable, before us).
"""

from pathlib import Path
from typing import Any, Literal

import pytest
from li_tool_fakes import ToolStreamingLLM, fixture_chunks
from llama_index.core.base.llms.types import MessageRole
from llama_index.core.tools import FunctionTool

from sluicegate import SentenceGate
from sluicegate.lifecycle import Draft, Generation, OpenAIChatReader, Policy, SQLiteOperationStore, State, ToolCall
from sluicegate_llamaindex import IdempotentToolExecutor, astream_tool_calls, stream_tool_calls
from tests.lifecycle.helpers import TRANSFER_ARGS

IDENTITY: Any = {"principal": "user-7", "config_version": "cfg-3", "operation": "pay-rent"}
APPLIED: list[dict[str, Any]] = []


def transfer(to: str, amount_cents: int, currency: Literal["EUR", "CHF"], memo: str) -> str:
    """Send money."""
    APPLIED.append({"to": to, "amount_cents": amount_cents})
    return "TX-1"


def get_weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


TOOLS = [FunctionTool.from_defaults(fn=transfer), FunctionTool.from_defaults(fn=get_weather)]


def run(chunks: list[dict[str, Any]], **kwargs: Any) -> tuple[ToolStreamingLLM, list[Any]]:
    llm = ToolStreamingLLM(chunks=chunks)
    items = list(
        stream_tool_calls(llm, TOOLS, reader=OpenAIChatReader(), user_msg="pay the rent", **IDENTITY, **kwargs)
    )
    return llm, items


def test_drafts_then_validated_calls_then_the_generation() -> None:
    llm, items = run(fixture_chunks())
    kinds = [type(i).__name__ for i in items]
    first = kinds.index("ToolCall")
    assert set(kinds[:first]) == {"Draft"} and kinds[first:] == ["ToolCall", "ToolCall", "Generation"]
    assert items[first].arguments.model_dump() == TRANSFER_ARGS
    assert items[-1].state == State.VALIDATED
    assert llm.tool_names == ["transfer", "get_weather"]  # the real stream_chat_with_tools path ran


async def test_astream_tool_calls() -> None:
    llm = ToolStreamingLLM(chunks=fixture_chunks())
    items = [i async for i in astream_tool_calls(llm, TOOLS, reader=OpenAIChatReader(), user_msg="x", **IDENTITY)]
    assert sum(isinstance(i, ToolCall) for i in items) == 2 and items[-1].state == State.VALIDATED


def test_end_of_generator_without_finish_reason_is_incomplete() -> None:
    chunks = [c for c in fixture_chunks() if not (c.get("choices") and c["choices"][0].get("finish_reason"))]
    _, items = run(chunks[:-1])  # also without [DONE]-equivalent usage chunk
    assert not any(isinstance(i, ToolCall) for i in items) and items[-1].state == State.INCOMPLETE


def test_fn_schema_is_closed_against_unknown_fields() -> None:
    chunks = fixture_chunks()
    for c in chunks:
        for tc in (c.get("choices") or [{}])[0].get("delta", {}).get("tool_calls") or []:
            if tc["index"] == 1 and tc["function"].get("arguments") == '{"cit':
                tc["function"]["arguments"] = '{"units":"C","cit'
    _, items = run(chunks)
    gen = items[-1]
    assert gen.state == State.FAILED and [r.code for r in gen.rejections] == ["schema"]


def test_text_passes_the_sentence_gate() -> None:
    llm, items = run(
        fixture_chunks("The rent of 1 250,00 CHF goes to the landlord [S1]. "),
        text_filter=SentenceGate(["Pay 1 250,00 CHF to the landlord."]),
    )
    assert items[-1].state == State.VALIDATED
    shown = "".join(d.text for d in items if isinstance(d, Draft) and d.kind == "text")
    assert shown == items[-1].text == "The rent of 1 250,00 CHF goes to the landlord."
    llm, items = run(fixture_chunks("The rent is 1 250,00 CHF [S1]. "), text_filter=SentenceGate(["Rent: 900 CHF."]))
    assert items[-1].state == State.FAILED and llm.closed and llm.produced < len(llm.chunks)


def test_raw_is_required() -> None:
    class NoRaw(ToolStreamingLLM):
        def _responses(self):  # type: ignore[no-untyped-def]
            for r in super()._responses():
                r.raw = None
                yield r

    with pytest.raises(TypeError, match="raw"):
        list(stream_tool_calls(NoRaw(chunks=fixture_chunks()), TOOLS, reader=OpenAIChatReader(), **IDENTITY))


def test_executor_runs_each_tool_once(tmp_path: Path) -> None:
    APPLIED.clear()
    _, items = run(fixture_chunks())
    gen: Generation = items[-1]
    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    gen.confirm(store)
    executor = IdempotentToolExecutor(TOOLS, store=store, policy=Policy(version="p1"))
    first, second = executor.run(gen), executor.run(gen)
    assert [m.content for m in first] == [m.content for m in second] == ["TX-1", "sunny in 東京"]
    assert all(m.role == MessageRole.TOOL for m in first)
    assert [m.additional_kwargs["tool_call_id"] for m in first] == ["call_transfer_1", "call_weather_2"]
    assert len(APPLIED) == 1 and gen.state == State.EXECUTED


async def test_executor_arun(tmp_path: Path) -> None:
    APPLIED.clear()
    _, items = run(fixture_chunks())
    gen: Generation = items[-1]
    store = SQLiteOperationStore(tmp_path / "ops.sqlite3")
    gen.confirm(store)
    executor = IdempotentToolExecutor(TOOLS, store=store, policy=Policy(version="p1"))
    first, second = await executor.arun(gen), await executor.arun(gen)
    assert [m.content for m in first] == [m.content for m in second] == ["TX-1", "sunny in 東京"]
    assert len(APPLIED) == 1
