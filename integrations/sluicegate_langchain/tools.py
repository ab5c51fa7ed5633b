"""Streamed tool calls in LangChain: drafts while the model streams, tool calls only once validated.

`ToolCallGate(bound=prompt | model.bind_tools(...), tools={...})` owns the model call, turns each
`AIMessageChunk` (text, `tool_call_chunks`, the finish/stop reason in `response_metadata`) into input for a core
`Generation`, and yields `Draft` previews, then the validated `ToolCall`s, then the `Generation` (last). A stream
that ends without the provider's finish reason is incomplete, however complete its arguments look; LangChain's
own `chunk_position="last"` marker is not taken as proof. On a failure mid-stream the model stream is closed.

`IdempotentToolExecutor` runs a confirmed generation's calls through LangChain tools with the idempotency store:
a retry returns the recorded result as a `ToolMessage` and never calls the tool twice.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config
from langchain_core.tools import BaseTool
from pydantic import BaseModel

from sluicegate import StreamFilter
from sluicegate.call import GuardedCall, astream_tool_calls, stream_tool_calls, tool_call
from sluicegate.lifecycle import (
    ChunkReader,
    Generation,
    Rule,
    ToolCall,
    ToolExecutor,
)

IDENTITY = ("principal", "config_version", "operation")


def chunk_payload(item: Any) -> dict[str, Any]:
    """The core reader's view of a LangChain stream item: text, tool-call fragments, provider finish reason."""
    message = item.message if isinstance(item, ChatGenerationChunk) else item
    if not isinstance(message, (AIMessageChunk, BaseMessage)):
        raise TypeError(f"ToolCallGate reads chat model chunks, got {type(item).__name__}: bind it to the model")
    meta = message.response_metadata or {}
    chunks = getattr(message, "tool_call_chunks", None) or []
    return {
        "id": message.id,
        "text": str(message.text),
        "tool_call_chunks": [dict(c) for c in chunks],
        "finish_reason": meta.get("finish_reason") or meta.get("stop_reason"),
    }


class ToolCallGate(Runnable[Any, Any]):
    """Streams `Draft | ToolCall | Generation`; `invoke` returns the `Generation`.

    Per request, `config["configurable"]` must carry `principal`, `config_version` and `operation` (the
    generation is bound to them). `text_filter` is a factory (e.g. `lambda: SentenceGate(sources)`): text drafts
    and the final text pass through it, and a stop fails the generation.
    """

    def __init__(
        self,
        bound: Runnable[Any, Any],
        tools: Mapping[str, type[BaseModel]],
        *,
        rules: Mapping[str, Rule] | None = None,
        output: type[BaseModel] | None = None,
        text_filter: Callable[[], StreamFilter] | None = None,
    ) -> None:
        self.bound = bound
        self.tools = dict(tools)
        self.rules = rules
        self.output = output
        self.text_filter = text_filter

    def _call(self, config: RunnableConfig) -> GuardedCall:
        """The guarded call for one request: its tool-call generation bound to the request's identity."""
        configurable = config.get("configurable") or {}
        missing = [k for k in IDENTITY if not configurable.get(k)]
        if missing:
            raise ValueError(f"ToolCallGate needs config['configurable'][{missing}] to bind the generation")
        return tool_call(
            self.tools,
            reader=ChunkReader("langchain"),
            principal=str(configurable["principal"]),
            config_version=str(configurable["config_version"]),
            operation=str(configurable["operation"]),
            rules=self.rules,
            output=self.output,
            text_filter=self.text_filter() if self.text_filter else None,
        )

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Generation:
        (last,) = deque(self.stream(input, config, **kwargs), maxlen=1)
        assert isinstance(last, Generation)
        return last

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Generation:
        items = [item async for item in self.astream(input, config, **kwargs)]
        assert isinstance(items[-1], Generation)
        return items[-1]

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:
        config = ensure_config(config)
        call = self._call(config)
        yield from stream_tool_calls(call, self.bound.stream(input, config, **kwargs), payload_of=chunk_payload)

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        config = ensure_config(config)
        call = self._call(config)
        chunks = astream_tool_calls(call, self.bound.astream(input, config, **kwargs), payload_of=chunk_payload)
        async with aclosing(chunks):
            async for item in chunks:
                yield item


class IdempotentToolExecutor(ToolExecutor):
    """Runs a confirmed generation's calls with LangChain tools, at most once per intent.

    Returns one `ToolMessage` per call (content: the recorded result; a str as is, anything else as JSON), in
    the generation's order, ready for the next model turn; `arun` uses `tool.ainvoke`. `OutcomeUnknown`
    propagates: reconcile first.
    """

    framework = "LangChain"

    def tool_name(self, tool: BaseTool) -> str:
        return tool.name

    def invoke(self, tool: BaseTool, arguments: dict[str, Any]) -> object:
        return tool.invoke(arguments)

    def ainvoke(self, tool: BaseTool, arguments: dict[str, Any]) -> Awaitable[object]:
        return tool.ainvoke(arguments)

    def message(self, recorded: Any, call: ToolCall) -> ToolMessage:
        content = recorded if isinstance(recorded, str) else json.dumps(recorded, ensure_ascii=False)
        return ToolMessage(content=content, tool_call_id=call.call_id, name=call.name)

    if TYPE_CHECKING:  # the framework's message type, for the caller's type checker

        def run(self, generation: Generation) -> list[ToolMessage]: ...

        async def arun(self, generation: Generation) -> list[ToolMessage]: ...
