"""The gate inside a LangChain 1.x agent: `create_agent(model, tools, middleware=[GateMiddleware(...)])`.

Agent middleware hooks never see streamed tokens: LangGraph's `stream_mode="messages"`, `astream_events` (v2)
and the v3 stream protocol all read the model's *callbacks* while it streams. So `wrap_model_call` hands the
agent's own model call a stand-in chat model (`GatedChatModel`) instead of gating after the fact. The stand-in
streams the real model with no callbacks at all (its raw tokens reach no handler, tracer or stream mode), runs
every piece through the core's `GuardedCall` (the gate and redactor, and the tool-call `Generation`), and
yields only what the call released; those gated chunks are what the framework's callbacks, its stream modes
and the final AI message are made of. Tool-call chunks are held to the provider's terminal event and
validated against the tools the agent bound for this call; an invalid call, or a stop, yields none. On a stop
the real model's stream is closed at once and the notice is the last text.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import aclosing, closing
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import agenerate_from_stream, generate_from_stream
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field

from sluicegate import GuardedCall, Outcome, Show, Stop, StreamFilter, ToolCallValidated
from sluicegate.lifecycle import ChunkReader, Generation, schema_tools
from sluicegate.sources import FilterFactory, gate_factory, source_texts

from .runnables import DEFAULT_UNVERIFIED_TAG
from .tools import chunk_payload

NOTICE_SEPARATOR = "\n\n"  # the notice is a paragraph of its own after released text, as the core shows it
SourcesOf = Callable[[ModelRequest], Sequence[Any]]


def tool_schemas(tools: Sequence[Any]) -> dict[str, Any]:
    """Tool name -> JSON Schema, from what the agent binds (BaseTools, functions, dict specs): the calls the
    model may make in this turn, nothing else."""
    return schema_tools([convert_to_openai_tool(t) for t in tools])


class _Turn:
    """One model call's gating: a `GuardedCall` whose tool-call `Generation` reads LangChain chunks."""

    def __init__(self, model: GatedChatModel) -> None:
        self.model = model
        tools = model.tool_defs

        def generation(text_filter: StreamFilter) -> Generation:
            return Generation(tools, reader=ChunkReader("langchain"), text_filter=text_filter)

        self.call = GuardedCall(
            sources=list(model.sources), filter_factory=model.filter_factory, generation=generation, prompt=False
        )
        self.call.start()
        self.call.open()
        self.usage: UsageMetadata | None = None
        self.meta: dict[str, Any] = {}
        self.released = False
        self.calls = 0  # tool calls emitted (their index in the gated message)

    def read(self, item: Any) -> list[ChatGenerationChunk]:
        """One chunk of the real model in, the gated chunks out (text drafts; tool calls after the terminal)."""
        message = item.message if isinstance(item, ChatGenerationChunk) else item
        payload = chunk_payload(item)
        meter = self.call.meter  # what was generated, stopped streams included (a byte estimate without usage)
        meter.observe(payload["text"] + "".join(str(c.get("args") or "") for c in payload["tool_call_chunks"]))
        usage = getattr(message, "usage_metadata", None)
        if usage:
            self.usage = usage if self.usage is None else add_usage(self.usage, usage)
            meter.report(output_tokens=usage.get("output_tokens"), input_tokens=usage.get("input_tokens"))
        if isinstance(message, BaseMessage) and message.response_metadata:
            self.meta.update(message.response_metadata)
        return self._chunks(self.call.event(payload))

    def _chunks(self, actions: Sequence[Show | Stop | ToolCallValidated]) -> list[ChatGenerationChunk]:
        out: list[ChatGenerationChunk] = []
        for action in actions:
            if isinstance(action, Show):
                self.released = True
                out.append(ChatGenerationChunk(message=AIMessageChunk(content=action.text)))
            elif isinstance(action, Stop):
                text = (NOTICE_SEPARATOR if self.released else "") + action.notice
                out.append(ChatGenerationChunk(message=AIMessageChunk(content=text)))
            else:
                call = action.call
                chunk = tool_call_chunk(name=call.name, args=call.canonical, id=call.call_id, index=self.calls)
                self.calls += 1
                out.append(ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[chunk])))
        return out

    @property
    def stopped(self) -> bool:
        return self.call.stopped

    def finish(self, error: BaseException | None = None) -> list[ChatGenerationChunk]:
        """The stream ended (or failed): end the call (a stream without the provider's terminal event is
        incomplete: its held text and tool calls are dropped), report the outcome; the last chunk carries the
        usage and the finish reason (`content_filter` when the gate stopped or a tool call was refused)."""
        gen = self.call.generation
        self.call.end(error=error)
        outcome = self.call.outcome
        if self.model.on_outcome is not None:
            self.model.on_outcome(outcome)
        meta = {k: v for k, v in self.meta.items() if k in ("model_name", "model_provider")}
        state = gen.state.value if gen is not None else "failed"
        if state == "validated":
            meta["finish_reason"] = self.meta.get("finish_reason", "stop")
        else:
            meta["finish_reason"] = "content_filter" if state == "failed" else state
        last = AIMessageChunk(content="", usage_metadata=self.usage, response_metadata=meta)
        return [ChatGenerationChunk(message=last)]


class GatedChatModel(BaseChatModel):
    """Stands in for the agent's model for one call: streams `inner` unobserved and yields only gated chunks.

    `bind_tools` binds the real model and remembers the tools, which are the only calls it lets through.
    Built by `GateMiddleware`; not meant to be made by hand.
    """

    inner: Runnable[Any, Any]
    sources: tuple[str, ...] = ()
    filter_factory: Any = None
    tool_defs: dict[str, Any] = Field(default_factory=dict)
    on_outcome: Any = None
    unverified_tag: str = DEFAULT_UNVERIFIED_TAG

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def _llm_type(self) -> str:
        return "sluicegate-gated"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Runnable[Any, Any]:
        inner = self.inner
        if not hasattr(inner, "bind_tools"):
            raise TypeError(f"the agent's model {type(inner).__name__} cannot bind tools")
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        bound = inner.bind_tools(tools, **kwargs)
        return self.model_copy(update={"inner": bound, "tool_defs": tool_schemas(tools)})

    def _quiet(self) -> RunnableConfig:
        """The real model's config: no callbacks (an explicit empty list, so the parent's in the context
        variable are not inherited), tagged so any tracer the environment adds can drop it."""
        return {"callbacks": [], "tags": [self.unverified_tag], "run_name": "unverified_model"}

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        turn = _Turn(self)
        error: BaseException | None = None
        try:
            stream: Any = self.inner.stream(messages, self._quiet(), stop=stop, **kwargs)  # a generator: close()
            with closing(stream) as upstream:
                for item in upstream:
                    yield from turn.read(item)
                    if turn.stopped:
                        break  # closes the real model's stream now: the provider stops generating
        except BaseException as exc:
            error = exc
            turn.finish(error)
            raise
        yield from turn.finish(error)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        turn = _Turn(self)
        try:
            upstream = self.inner.astream(messages, self._quiet(), stop=stop, **kwargs)
            async with aclosing(upstream) as chunks:  # type: ignore[type-var]
                async for item in chunks:
                    for chunk in turn.read(item):
                        yield chunk
                    if turn.stopped:
                        break
        except BaseException as exc:
            turn.finish(exc)
            raise
        for chunk in turn.finish():
            yield chunk

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Even a non-streamed agent call streams the real model, so a stop still closes it."""
        return generate_from_stream(self._stream(messages, stop, **kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await agenerate_from_stream(self._astream(messages, stop, **kwargs))


class GateMiddleware(AgentMiddleware):
    """Gates every model call of a `create_agent` agent, on every surface its users read.

    `sources`: the passages the answer must keep to (numbered [S1].. for the default `SentenceGate`), or a
    callable `(request) -> passages` (e.g. from `request.state` or `request.runtime.context`).
    `filter_factory(texts)` builds the filter (default `gate_factory()`; `gate_factory(redact=True)` adds the
    `Redactor`; any `StreamFilter` factory works, e.g. `lambda texts: Redactor()` for redaction alone).
    `on_outcome(outcome)` gets each model call's `sluicegate.Outcome`.
    """

    def __init__(
        self,
        sources: Sequence[Any] | SourcesOf = (),
        *,
        filter_factory: FilterFactory | None = None,
        on_outcome: Callable[[Outcome], None] | None = None,
        unverified_tag: str = DEFAULT_UNVERIFIED_TAG,
    ) -> None:
        super().__init__()
        self.sources = sources
        self.filter_factory = filter_factory or gate_factory()
        self.on_outcome = on_outcome
        self.unverified_tag = unverified_tag

    def _gated(self, request: ModelRequest) -> ModelRequest:
        if isinstance(request.model, GatedChatModel):
            return request  # a second GateMiddleware: one gate is enough
        sources = self.sources(request) if callable(self.sources) else self.sources
        model = GatedChatModel(
            inner=request.model,
            sources=tuple(source_texts(list(sources))),
            filter_factory=self.filter_factory,
            on_outcome=self.on_outcome,
            unverified_tag=self.unverified_tag,
        )
        return request.override(model=model)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        return handler(self._gated(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self._gated(request))
