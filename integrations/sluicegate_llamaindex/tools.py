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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ChatResponse, MessageRole
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.tools import BaseTool
from pydantic import BaseModel, ConfigDict

from sluicegate import StreamFilter
from sluicegate.lifecycle import (
    Draft,
    Generation,
    OperationStore,
    Policy,
    Reader,
    Reconcile,
    Rule,
    ToolCall,
    aexecute_calls,
    execute_calls,
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


def _generation(
    tools: Sequence[BaseTool],
    reader: Reader,
    identity: Mapping[str, str],
    models: Mapping[str, type[BaseModel]] | None,
    rules: Mapping[str, Rule] | None,
    output: type[BaseModel] | None,
    text_filter: StreamFilter | None,
) -> Generation:
    return Generation(
        models if models is not None else strict_models(tools),
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
    gen = _generation(tools, reader, identity, models, rules, output, text_filter)
    stream = llm.stream_chat_with_tools(tools, **chat_kwargs)
    try:
        for response in stream:
            drafts: tuple[Draft, ...] = gen.feed(raw_event(response))
            yield from drafts
            if gen.state.terminal:
                break  # failed mid-stream: stop reading, and close the LLM stream below
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            close()
    gen.close()
    yield from gen.tool_calls
    yield gen


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
    gen = _generation(tools, reader, identity, models, rules, output, text_filter)
    stream = await llm.astream_chat_with_tools(tools, **chat_kwargs)
    try:
        async for response in stream:
            for draft in gen.feed(raw_event(response)):
                yield draft
            if gen.state.terminal:
                break
    finally:
        aclose = getattr(stream, "aclose", None)
        if callable(aclose):
            await aclose()
    gen.close()
    for call in gen.tool_calls:
        yield call
    yield gen


class IdempotentToolExecutor:
    """Runs a confirmed generation's calls with LlamaIndex tools, at most once per intent.

    Records each tool's `ToolOutput.content` (and `is_error`); returns `ChatMessage(role=tool)` with the
    `tool_call_id`, in the generation's order. `OutcomeUnknown` propagates: reconcile first.
    """

    def __init__(
        self, tools: Sequence[BaseTool], *, store: OperationStore, policy: Policy, reconcile: Reconcile | None = None
    ) -> None:
        self.tools = {t.metadata.get_name(): t for t in tools}
        self.store = store
        self.policy = policy
        self.reconcile = reconcile

    def _tool(self, name: str, call_id: str) -> BaseTool:
        tool = self.tools.get(name)
        if tool is None:
            raise KeyError(f"no LlamaIndex tool named {name!r} for call {call_id}")
        return tool

    @staticmethod
    def _message(recorded: Any, call_id: str, name: str) -> ChatMessage:
        content = recorded["content"] if isinstance(recorded, dict) else json.dumps(recorded)
        return ChatMessage(
            role=MessageRole.TOOL, content=content, additional_kwargs={"tool_call_id": call_id, "name": name}
        )

    def _apply(self, call: ToolCall) -> Callable[[BaseModel], object]:
        tool = self._tool(call.name, call.call_id)

        def apply(args: BaseModel) -> object:
            result = tool(**args.model_dump(mode="json"))
            return {"content": result.content, "is_error": bool(result.is_error)}

        return apply

    def _aapply(self, call: ToolCall) -> Callable[[BaseModel], Awaitable[object]]:
        tool = self._tool(call.name, call.call_id)
        acall = getattr(tool, "acall", None)
        if acall is None:
            raise TypeError(f"LlamaIndex tool {call.name!r} has no acall: use run()")

        async def apply(args: BaseModel) -> object:
            result = await acall(**args.model_dump(mode="json"))
            return {"content": result.content, "is_error": bool(result.is_error)}

        return apply

    def run(self, generation: Generation) -> list[ChatMessage]:
        done = execute_calls(generation, self._apply, store=self.store, policy=self.policy, reconcile=self.reconcile)
        return [self._message(recorded, call.call_id, call.name) for call, recorded in done]

    async def arun(self, generation: Generation) -> list[ChatMessage]:
        """`run` with `tool.acall` (async tools), one call after the other."""
        done = await aexecute_calls(
            generation, self._aapply, store=self.store, policy=self.policy, reconcile=self.reconcile
        )
        return [self._message(recorded, call.call_id, call.name) for call, recorded in done]
