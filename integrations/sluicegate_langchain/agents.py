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

Before the model, in the call's own order: the refusal rules, retrieval and the evidence threshold
(`preflight=`, for the question in the last human message), then the spend cap (`cap=`: reserved for the exact
messages and tools the real model is sent, settled exactly once on every end). A refusal is the stand-in's one
chunk; the real model is never called.

A sync reader who leaves `agent.stream(...)` early does not stop the model (LangGraph waits for the running
node before its closed stream returns, and tells it nothing); `stream_agent(agent, ...)` is `agent.stream`
whose close tells the stand-in first, so the real model's stream is closed within one piece.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing, closing, suppress
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import agenerate_from_stream, generate_from_stream
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.ai import UsageMetadata, add_usage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.config import get_config
from pydantic import ConfigDict, Field

from sluicegate import (
    GuardedCall,
    Outcome,
    Refuse,
    Reserve,
    Show,
    Stop,
    StreamFilter,
    ToolCallValidated,
    areserve_call,
    ascreen_call,
    asettle_call,
    cancellation_swallowed,
    reserve_call,
    screen_call,
    settle_call,
)
from sluicegate.budget import CallBudget
from sluicegate.evidence import Preflight
from sluicegate.lifecycle import ChunkReader, Generation, schema_tools
from sluicegate.sources import FilterFactory, format_sources, gate_factory, source_texts

from .capped import check_output_cap
from .runnables import DEFAULT_UNVERIFIED_TAG
from .tools import chunk_payload

NOTICE_SEPARATOR = "\n\n"  # the notice is a paragraph of its own after released text, as the core shows it
SourcesOf = Callable[[ModelRequest], Sequence[Any]]
LEFT_KEY = "sluicegate_reader_left"  # configurable key: the Event `stream_agent` sets when its reader leaves
SOURCES_PREAMBLE = "Answer only from these numbered sources and cite them as [S1]:"


class ReaderLeft(BaseException):
    """Ends the stand-in's run when the sync reader left (`stream_agent`): like `GeneratorExit`, not an error
    (no retry policy or error handler takes it; the call's outcome is "cancelled")."""


def tool_schemas(tools: Sequence[Any]) -> dict[str, Any]:
    """Tool name -> JSON Schema, from what the agent binds (BaseTools, functions, dict specs): the calls the
    model may make in this turn, nothing else."""
    return schema_tools([convert_to_openai_tool(t) for t in tools])


def bounded(messages: Sequence[BaseMessage], tools: Sequence[Any]) -> list[Any]:
    """What the reservation bounds: the messages, plus what travels beside their text (earlier tool calls'
    arguments, the bound tools' definitions), each counted as a message of its own: an upper bound."""
    extra = [json.dumps(c, default=str) for m in messages for c in getattr(m, "tool_calls", None) or ()]
    if tools:
        extra.append(json.dumps([convert_to_openai_tool(t) for t in tools], default=str))
    return [*messages, *extra]


def conversation(messages: Sequence[Any]) -> tuple[str, str | None, str | None]:
    """What the layers before the model judge: the question (the last human message), the question before it
    (a follow-up is judged joined to it) and the answer the reader saw to that one (the last AI text between
    them, read for an ordinal follow-up such as "the second one")."""
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if not humans:
        return "", None, None
    question = messages[humans[-1]].text
    if len(humans) < 2:
        return question, None, None
    between = [m.text for m in messages[humans[-2] + 1 : humans[-1]] if isinstance(m, AIMessage) and m.text]
    return question, messages[humans[-2]].text or None, (between[-1] if between else None)


class _Turn:
    """One model call's gating: a `GuardedCall` whose tool-call `Generation` reads LangChain chunks."""

    def __init__(self, model: GatedChatModel) -> None:
        self.model = model
        tools = model.tool_defs

        def generation(text_filter: StreamFilter) -> Generation:
            return Generation(tools, reader=ChunkReader("langchain"), text_filter=text_filter)

        preflight = model.preflight
        self.call = GuardedCall(
            model.question if preflight is not None else None,
            language=model.language,
            previous=model.previous,
            previous_answer=model.previous_answer,
            sources=None if preflight is not None else list(model.sources),
            preflight=preflight,
            budget=model.budget,
            filter_factory=model.filter_factory,
            generation=generation,
            prompt=False,
        )
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

    def before(self, messages: list[BaseMessage], tools: Sequence[Any]) -> tuple[list[BaseMessage], Refuse | None]:
        """The layers before the model: rules, retrieval, the threshold, the cap. Returns the messages the real
        model is sent (the retrieved passages, numbered, in a system message) and the refusal, if any."""
        sent, action = self._sources_in(messages, screen_call(self.call, self._retrieve))
        if isinstance(action, Reserve):
            action = reserve_call(self.call, bounded(sent, tools))
        return self._opened(sent, action)

    async def abefore(
        self, messages: list[BaseMessage], tools: Sequence[Any]
    ) -> tuple[list[BaseMessage], Refuse | None]:
        """`before` with retrieval and the store's reserve off the event loop (a cancelled reader still hands
        the hold to the call, which settles it)."""
        retrieved = await ascreen_call(self.call, lambda query: asyncio.to_thread(self._retrieve, query))
        sent, action = self._sources_in(messages, retrieved)
        if isinstance(action, Reserve):
            action = await areserve_call(self.call, bounded(sent, tools))
        return self._opened(sent, action)

    def _retrieve(self, query: str) -> Any:
        preflight = self.model.preflight
        assert preflight is not None  # the call asks for retrieval only with a preflight
        return preflight.retrieve(query, language=self.model.language)

    def _sources_in(self, messages: list[BaseMessage], action: Any) -> tuple[list[BaseMessage], Any]:
        if self.model.preflight is None or isinstance(action, Refuse):
            return messages, action
        # Reserve or CallModel: the passages the preflight found, numbered as the gate numbers them
        return [SystemMessage(f"{SOURCES_PREAMBLE}\n\n{format_sources(list(action.sources))}"), *messages], action

    def _opened(self, sent: list[BaseMessage], action: Any) -> tuple[list[BaseMessage], Refuse | None]:
        if isinstance(action, Refuse):
            return sent, action
        self.call.open()
        return sent, None

    def refused(self, action: Refuse) -> list[ChatGenerationChunk]:
        return [ChatGenerationChunk(message=AIMessageChunk(content=action.text))]

    @property
    def stopped(self) -> bool:
        return self.call.stopped

    def finish(self, error: BaseException | None = None) -> list[ChatGenerationChunk]:
        """The stream ended (or failed): end the call and settle its reservation (a stream without the
        provider's terminal event is incomplete: its held text and tool calls are dropped), report the outcome;
        the last chunk carries the usage and the finish reason (`content_filter` when the gate stopped, a tool
        call was refused or the layers before the model refused)."""
        settle_call(self.call, error=error)
        return self._last()

    async def afinish(self, error: BaseException | None = None) -> list[ChatGenerationChunk]:
        """`finish` with the store's settle off the loop, shielded from a cancelled reader."""
        await asettle_call(self.call, error=error)
        return self._last()

    def _last(self) -> list[ChatGenerationChunk]:
        gen = self.call.generation
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
    tools: tuple[Any, ...] = ()
    on_outcome: Any = None
    unverified_tag: str = DEFAULT_UNVERIFIED_TAG
    budget: CallBudget | None = None
    preflight: Preflight | None = None
    question: str = ""
    previous: str | None = None
    previous_answer: str | None = None
    language: str = "en"
    left: threading.Event | None = None  # set by `stream_agent` when its (sync) reader left

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
        return self.model_copy(update={"inner": bound, "tool_defs": tool_schemas(tools), "tools": tuple(tools)})

    def _quiet(self) -> RunnableConfig:
        """The real model's config: no callbacks (an explicit empty list, so the parent's in the context
        variable are not inherited), tagged so any tracer the environment adds can drop it."""
        return {"callbacks": [], "tags": [self.unverified_tag], "run_name": "unverified_model"}

    def _gone(self) -> bool:
        return self.left is not None and self.left.is_set()

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        turn = _Turn(self)
        try:
            sent, refusal = turn.before(messages, self.tools)
            if refusal is not None:
                yield from turn.refused(refusal)
            else:
                stream: Any = self.inner.stream(sent, self._quiet(), stop=stop, **kwargs)  # a generator: close()
                with closing(stream) as upstream:
                    for item in upstream:
                        if self._gone():
                            raise ReaderLeft  # closes the real model's stream (with) and ends the node
                        yield from turn.read(item)
                        if turn.stopped:
                            break  # closes the real model's stream now: the provider stops generating
        except BaseException as exc:
            turn.finish(exc)
            raise
        yield from turn.finish()

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        turn = _Turn(self)
        try:
            sent, refusal = await turn.abefore(messages, self.tools)
            if refusal is not None:
                for chunk in turn.refused(refusal):
                    yield chunk
            else:
                upstream = self.inner.astream(sent, self._quiet(), stop=stop, **kwargs)
                async with aclosing(upstream) as chunks:  # type: ignore[type-var]
                    async for item in chunks:
                        if self._gone():
                            raise ReaderLeft
                        if cancellation_swallowed():  # Python 3.11's wait_for in ChatOpenAI lost our cancel
                            raise asyncio.CancelledError("a cancellation of this task was swallowed below the model")
                        for chunk in turn.read(item):
                            yield chunk
                        if turn.stopped:
                            break
        except BaseException as exc:
            await turn.afinish(exc)
            raise
        for chunk in await turn.afinish():
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
    `preflight`: a `sluicegate.evidence.Preflight` (refusal rules, its retriever, the evidence threshold) run
    for the last human message before each model call (a follow-up is judged with the question before it);
    the passages it finds replace `sources` and are sent to the model numbered, in a system message.
    `cap`: a `sluicegate.budget.CallBudget` reserved for each model call (the agent's model must be
    configured with at most its `max_output_tokens`) and settled once on every end.
    A refusal (a rule, too little evidence, the cap) is the model call's whole text; the model is not called.
    `filter_factory(texts)` builds the filter (default `gate_factory()`; `gate_factory(redact=True)` adds the
    `Redactor`; any `StreamFilter` factory works, e.g. `lambda texts: Redactor()` for redaction alone).
    `on_outcome(outcome)` gets each model call's `sluicegate.Outcome`.
    """

    def __init__(
        self,
        sources: Sequence[Any] | SourcesOf = (),
        *,
        preflight: Preflight | None = None,
        cap: CallBudget | None = None,
        language: str = "en",
        filter_factory: FilterFactory | None = None,
        on_outcome: Callable[[Outcome], None] | None = None,
        unverified_tag: str = DEFAULT_UNVERIFIED_TAG,
    ) -> None:
        super().__init__()
        if cap is not None and not isinstance(cap, CallBudget):
            raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
        if preflight is not None and not isinstance(preflight, Preflight):
            raise TypeError(f"preflight must be a sluicegate.evidence.Preflight, got {type(preflight).__name__}")
        if preflight is not None and sources:
            raise ValueError("give either sources= or preflight= (which retrieves them), not both")
        self.sources = sources
        self.preflight = preflight
        self.cap = cap
        self.language = language
        self.filter_factory = filter_factory or gate_factory()
        self.on_outcome = on_outcome
        self.unverified_tag = unverified_tag

    def _gated(self, request: ModelRequest) -> ModelRequest:
        if isinstance(request.model, GatedChatModel):
            return request  # a second GateMiddleware: one gate is enough
        if self.cap is not None:
            check_output_cap(request.model, self.cap)  # a model allowed more than the cap reserves: fail closed
        sources = self.sources(request) if callable(self.sources) else self.sources
        question, previous, previous_answer = conversation(request.messages)
        model = GatedChatModel(
            inner=request.model,
            sources=tuple(source_texts(list(sources))),
            filter_factory=self.filter_factory,
            on_outcome=self.on_outcome,
            unverified_tag=self.unverified_tag,
            budget=self.cap,
            preflight=self.preflight,
            question=question,
            previous=previous,
            previous_answer=previous_answer,
            language=self.language,
            left=_left_event(),
        )
        return request.override(model=model)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        return handler(self._gated(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self._gated(request))


def _left_event() -> threading.Event | None:
    """The Event `stream_agent` put in this run's config, if the run was started by it."""
    with suppress(RuntimeError):  # not inside a LangGraph run
        event = get_config().get("configurable", {}).get(LEFT_KEY)
        return event if isinstance(event, threading.Event) else None
    return None


def stream_agent(agent: Any, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:
    """`agent.stream(input, config, **kwargs)`, whose close (or `break` and the generator's collection) stops
    the model within one piece.

    Why it is needed: LangGraph runs the model node in an executor thread, and closing its sync stream waits
    for that node to finish without telling it anything (no cancel, no flag, no callback until afterwards), so
    the model would generate to the end. This generator sets an Event in the run's config *before* it closes
    the graph's stream; the stand-in model checks it at every piece and closes the real model's stream.
    """
    left = threading.Event()
    given: Mapping[str, Any] = config or {}
    run_config: RunnableConfig = {**given, "configurable": {**given.get("configurable", {}), LEFT_KEY: left}}  # type: ignore[typeddict-item]
    stream = agent.stream(input, run_config, **kwargs)
    try:
        # not `yield from`: on close it would close the graph's stream before the flag is set
        for item in stream:  # noqa: UP028
            yield item
    finally:
        left.set()
        close = getattr(stream, "close", None)
        if callable(close):
            close()
