"""Streamed tool calls in LlamaIndex: `stream_chat_with_tools` / `astream_chat_with_tools`, gated.

LlamaIndex's streaming tool path does not validate anything (`FunctionCallingLLM.stream_chat_with_tools`:
"TODO: no validation for streaming outputs"), and its `ChatResponse` keeps no finish reason — only `raw`, the
provider's own chunk or event. So `stream_tool_calls` feeds `response.raw` to the core reader for the provider
(`OpenAIChatReader()`, `AnthropicReader()`, `OpenAIResponsesReader()`): the provider's documented terminal
signal decides, never the end of the Python generator. An LLM integration that leaves `raw` empty cannot be
gated and raises.

Yields `Draft` previews, then the validated `ToolCall`s, then the `Generation` (last). `IdempotentToolExecutor`
runs a confirmed generation's calls through LlamaIndex tools with the idempotency store and returns the
`ChatMessage(role="tool")` answers for the next turn.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.tools import BaseTool
from pydantic import BaseModel, ConfigDict

from sluicegate import StreamFilter
from sluicegate.call import GuardedCall, tool_call
from sluicegate.call import astream_tool_calls as adrive_tool_calls
from sluicegate.call import stream_tool_calls as drive_tool_calls
from sluicegate.lifecycle import (
    Generation,
    Reader,
    Rule,
    ToolCall,
    ToolExecutor,
)


def strict_models(tools: Sequence[BaseTool]) -> dict[str, type[BaseModel]]:
    """Each tool's `fn_schema`, closed with extra="forbid" (nested models must be closed by their author)."""
    models: dict[str, type[BaseModel]] = {}
    for tool in tools:
        schema = tool.metadata.fn_schema
        name = tool.metadata.get_name()
        if schema is None:
            raise ValueError(f"tool {name!r} has no fn_schema: pass models= explicitly")
        config = ConfigDict(**{**schema.model_config, "extra": "forbid"})
        models[name] = type(schema.__name__, (schema,), {"model_config": config, "__module__": schema.__module__})
    return models


def raw_event(response: ChatResponse) -> Any:
    """The provider chunk or event a LlamaIndex response carries, as a dict (or an SSE event)."""
    raw = response.raw
    if raw is None:
        raise TypeError(
            "this LlamaIndex LLM keeps no provider event in ChatResponse.raw: sluicegate cannot prove the stream "
            "finished, so it will not gate its tool calls"
        )
    if isinstance(raw, Mapping) or hasattr(raw, "data"):
        return raw
    dump = getattr(raw, "model_dump", None)
    if callable(dump):
        return dump()
    raise TypeError(f"ChatResponse.raw is a {type(raw).__name__}, not a provider chunk or event")


def _call(
    tools: Sequence[BaseTool],
    reader: Reader,
    identity: Mapping[str, str],
    models: Mapping[str, type[BaseModel]] | None,
    rules: Mapping[str, Rule] | None,
    output: type[BaseModel] | None,
    text_filter: StreamFilter | None,
) -> GuardedCall:
    models = models if models is not None else strict_models(tools)
    return tool_call(
        models,
        reader=reader,
        principal=identity["principal"],
        config_version=identity["config_version"],
        operation=identity["operation"],
        rules=rules,
        output=output,
        text_filter=text_filter,
    )


def stream_tool_calls(
    llm: FunctionCallingLLM,
    tools: Sequence[BaseTool],
    *,
    reader: Reader,
    principal: str,
    config_version: str,
    operation: str,
    models: Mapping[str, type[BaseModel]] | None = None,
    rules: Mapping[str, Rule] | None = None,
    output: type[BaseModel] | None = None,
    text_filter: StreamFilter | None = None,
    **chat_kwargs: Any,
) -> Iterator[Any]:
    """`llm.stream_chat_with_tools(tools, **chat_kwargs)`, gated: yields `Draft | ToolCall | Generation`."""
    identity = {"principal": principal, "config_version": config_version, "operation": operation}
    call = _call(tools, reader, identity, models, rules, output, text_filter)
    stream = llm.stream_chat_with_tools(tools, **chat_kwargs)
    yield from drive_tool_calls(call, stream, payload_of=raw_event)


async def astream_tool_calls(
    llm: FunctionCallingLLM,
    tools: Sequence[BaseTool],
    *,
    reader: Reader,
    principal: str,
    config_version: str,
    operation: str,
    models: Mapping[str, type[BaseModel]] | None = None,
    rules: Mapping[str, Rule] | None = None,
    output: type[BaseModel] | None = None,
    text_filter: StreamFilter | None = None,
    **chat_kwargs: Any,
) -> AsyncIterator[Any]:
    """`await llm.astream_chat_with_tools(tools, **chat_kwargs)`, gated: yields `Draft | ToolCall | Generation`."""
    identity = {"principal": principal, "config_version": config_version, "operation": operation}
    call = _call(tools, reader, identity, models, rules, output, text_filter)
    stream = await llm.astream_chat_with_tools(tools, **chat_kwargs)
    items = adrive_tool_calls(call, stream, payload_of=raw_event)
    async with aclosing(items):
        async for item in items:
            yield item


class IdempotentToolExecutor(ToolExecutor):
    """Runs a confirmed generation's calls with LlamaIndex tools, at most once per intent.

    Records each tool's `ToolOutput.content` (and `is_error`); returns `ChatMessage(role=tool)` with the
    `tool_call_id`, in the generation's order; `arun` uses `tool.acall`. `OutcomeUnknown` propagates:
    reconcile first.
    """

    framework = "LlamaIndex"

    def tool_name(self, tool: BaseTool) -> str:
        return tool.metadata.get_name()

    def invoke(self, tool: BaseTool, arguments: dict[str, Any]) -> object:
        result = tool(**arguments)
        return {"content": result.content, "is_error": bool(result.is_error)}

    def check_async(self, tool: BaseTool, call: ToolCall) -> None:
        if getattr(tool, "acall", None) is None:
            raise TypeError(f"LlamaIndex tool {call.name!r} has no acall: use run()")

    async def ainvoke(self, tool: BaseTool, arguments: dict[str, Any]) -> object:
        result = await tool.acall(**arguments)  # type: ignore[attr-defined]
        return {"content": result.content, "is_error": bool(result.is_error)}

    def message(self, recorded: Any, call: ToolCall) -> ChatMessage:
        content = recorded["content"] if isinstance(recorded, dict) else json.dumps(recorded)
        return ChatMessage(
            role=MessageRole.TOOL, content=content, additional_kwargs={"tool_call_id": call.call_id, "name": call.name}
        )

    if TYPE_CHECKING:  # the framework's message type, for the caller's type checker

        def run(self, generation: Generation) -> list[ChatMessage]: ...

        async def arun(self, generation: Generation) -> list[ChatMessage]: ...
