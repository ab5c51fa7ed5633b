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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing, closing
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config
from langchain_core.tools import BaseTool
from pydantic import BaseModel

from sluicegate import StreamFilter
from sluicegate.lifecycle import (
    ChunkReader,
    Draft,
    Generation,
    OperationStore,
    Policy,
    Reconcile,
    Rule,
    ToolCall,
    aexecute_calls,
    execute_calls,
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

    def _generation(self, config: RunnableConfig) -> Generation:
        configurable = config.get("configurable") or {}
        missing = [k for k in IDENTITY if not configurable.get(k)]
        if missing:
            raise ValueError(f"ToolCallGate needs config['configurable'][{missing}] to bind the generation")
        return Generation(
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
        gen = self._generation(config)
        with closing(iter(self.bound.stream(input, config, **kwargs))) as upstream:  # type: ignore[type-var]
            for item in upstream:
                yield from gen.feed(chunk_payload(item))
                if gen.state.terminal:
                    break  # failed mid-stream (a bad event, the text gate): stop and close the model stream
        yield from self._finish(gen)

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        config = ensure_config(config)
        gen = self._generation(config)
        async with aclosing(self.bound.astream(input, config, **kwargs)) as upstream:  # type: ignore[type-var]
            async for item in upstream:
                for draft in gen.feed(chunk_payload(item)):
                    yield draft
                if gen.state.terminal:
                    break
        for out in self._finish(gen):
            yield out

    @staticmethod
    def _finish(gen: Generation) -> Iterator[Draft | Any]:
        gen.close()
        yield from gen.tool_calls  # empty unless validated
        yield gen


class IdempotentToolExecutor:
    """Runs a confirmed generation's calls with LangChain tools, at most once per intent.

    Returns one `ToolMessage` per call (content: the recorded result; a str as is, anything else as JSON), in
    the generation's order, ready for the next model turn. `OutcomeUnknown` propagates: reconcile first.
    """

    def __init__(
        self,
        tools: Sequence[BaseTool],
        *,
        store: OperationStore,
        policy: Policy,
        reconcile: Reconcile | None = None,
    ) -> None:
        self.tools = {t.name: t for t in tools}
        self.store = store
        self.policy = policy
        self.reconcile = reconcile

    def _tool(self, name: str, call_id: str) -> BaseTool:
        tool = self.tools.get(name)
        if tool is None:
            raise KeyError(f"no LangChain tool named {name!r} for call {call_id}")
        return tool

    @staticmethod
    def _message(result: Any, call_id: str, name: str) -> ToolMessage:
        content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        return ToolMessage(content=content, tool_call_id=call_id, name=name)

    def _apply(self, call: ToolCall) -> Callable[[BaseModel], object]:
        tool = self._tool(call.name, call.call_id)
        return lambda args: tool.invoke(args.model_dump(mode="json"))

    def _aapply(self, call: ToolCall) -> Callable[[BaseModel], Awaitable[object]]:
        tool = self._tool(call.name, call.call_id)
        return lambda args: tool.ainvoke(args.model_dump(mode="json"))

    def run(self, generation: Generation) -> list[ToolMessage]:
        done = execute_calls(generation, self._apply, store=self.store, policy=self.policy, reconcile=self.reconcile)
        return [self._message(result, call.call_id, call.name) for call, result in done]

    async def arun(self, generation: Generation) -> list[ToolMessage]:
        """`run` with `tool.ainvoke`, one call after the other (their order is the model's)."""
        done = await aexecute_calls(
            generation, self._aapply, store=self.store, policy=self.policy, reconcile=self.reconcile
        )
        return [self._message(result, call.call_id, call.name) for call, result in done]
