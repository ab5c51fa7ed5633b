"""Usage of LLM calls from LlamaIndex instrumentation, including streams a gate stopped.

LlamaIndex's text stream (`response_gen`) carries only deltas: the provider's `raw` usage is dropped, and on a
stop the LLM span ends with an `ExceptionEvent(GeneratorExit)` and no end event, so `TokenCountingHandler`
counts 0. The in-progress events still carry each delta and `raw`: this handler meters them per span and
closes the books on the end event *and* on the exception (the provider's figure where one arrived, else one
token per UTF-8 byte of the received text). While a `GatedSynthesizer` reads its LLM stream, provider figures
are also reported to that stream's own meter (so `response.guard.usage` has them).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatResponse
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]  # re-exported
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.events.exception import ExceptionEvent
from llama_index.core.instrumentation.events.llm import (
    LLMChatEndEvent,
    LLMChatInProgressEvent,
    LLMCompletionEndEvent,
    LLMCompletionInProgressEvent,
)

from sluicegate import Usage, UsageMeter

# The meter of the gated stream being read right now (set only around each pull from the LLM stream).
ACTIVE_METER: ContextVar[UsageMeter | None] = ContextVar("sluicegate_active_meter", default=None)


@dataclass(frozen=True)
class LLMUsage:
    """Usage of one LLM call (one instrumentation span) and how it ended: "end" or "error" (incl. a stop)."""

    span_id: str | None
    usage: Usage
    ended: str


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def provider_usage(raw: Any) -> tuple[int | None, int | None]:
    """(output, input) tokens from a response's `raw` (OpenAI `completion_tokens`, Anthropic `output_tokens`)."""
    usage = _get(raw, "usage") if raw is not None else None
    if usage is None:
        return None, None
    out = _get(usage, "completion_tokens")
    out = _get(usage, "output_tokens") if out is None else out
    inp = _get(usage, "prompt_tokens")
    inp = _get(usage, "input_tokens") if inp is None else inp
    return (out if isinstance(out, int) else None), (inp if isinstance(inp, int) else None)


def _report(meter: UsageMeter, raw: Any) -> None:
    out, inp = provider_usage(raw)
    if out is not None or inp is not None:
        meter.report(output_tokens=out, input_tokens=inp, cumulative=True)  # raw usage is a running total


class UsageEventHandler(BaseEventHandler):
    """Register once: `get_dispatcher().add_event_handler(UsageEventHandler())`; read `.calls` afterwards."""

    calls: list = Field(default_factory=list)  # list[LLMUsage], in the order the calls ended
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _meters: dict = PrivateAttr(default_factory=dict)
    _streamed: set = PrivateAttr(default_factory=set)

    @classmethod
    def class_name(cls) -> str:
        return "SluicegateUsageEventHandler"

    @property
    def output_tokens(self) -> int:
        with self._lock:
            return sum(c.usage.output_tokens for c in self.calls)

    def _meter(self, span_id: str | None) -> UsageMeter:
        with self._lock:
            return self._meters.setdefault(span_id, UsageMeter())

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, (LLMChatInProgressEvent, LLMCompletionInProgressEvent)):
            meter = self._meter(event.span_id)
            with self._lock:
                self._streamed.add(event.span_id)
            response = event.response
            meter.observe(response.delta or "")
            _report(meter, response.raw)
        elif isinstance(event, (LLMChatEndEvent, LLMCompletionEndEvent)):
            meter = self._meter(event.span_id)
            end = event.response
            if end is not None:
                with self._lock:
                    streamed = event.span_id in self._streamed
                if not streamed:
                    text = end.message.content if isinstance(end, ChatResponse) else end.text
                    meter.observe(str(text or ""))
                _report(meter, end.raw)
            self._close(event.span_id, "end")
        elif isinstance(event, ExceptionEvent):
            with self._lock:
                known = event.span_id in self._meters
            if known:
                self._close(event.span_id, "error")

    def _close(self, span_id: str | None, ended: str) -> None:
        with self._lock:
            meter = self._meters.pop(span_id, None) or UsageMeter()
            self._streamed.discard(span_id)
            self.calls.append(LLMUsage(span_id, meter.usage, ended))


class _ProviderFigures(BaseEventHandler):
    """Forwards provider usage of in-progress LLM events to the meter of the gated stream being read."""

    @classmethod
    def class_name(cls) -> str:
        return "SluicegateProviderFigures"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        meter = ACTIVE_METER.get()
        if meter is not None and isinstance(event, (LLMChatInProgressEvent, LLMCompletionInProgressEvent)):
            _report(meter, event.response.raw)


_installed = False
_install_lock = threading.Lock()


def install_provider_figures() -> None:
    """Register the forwarding handler on the root dispatcher, once per process."""
    global _installed
    with _install_lock:
        if not _installed:
            get_dispatcher().add_event_handler(_ProviderFigures())
            _installed = True


class Metered:
    """Wraps an LLM token stream: `meter` is the active meter while each piece is pulled. Closes through."""

    def __init__(self, upstream: Any, meter: UsageMeter) -> None:
        self._upstream = upstream
        self._meter = meter

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        token = ACTIVE_METER.set(self._meter)
        try:
            return next(self._upstream)
        finally:
            ACTIVE_METER.reset(token)

    def close(self) -> None:
        close = getattr(self._upstream, "close", None)
        if callable(close):
            close()

    def __aiter__(self) -> Metered:
        return self

    async def __anext__(self) -> Any:
        token = ACTIVE_METER.set(self._meter)
        try:
            return await self._upstream.__anext__()
        finally:
            ACTIVE_METER.reset(token)

    async def aclose(self) -> None:
        aclose = getattr(self._upstream, "aclose", None)
        if callable(aclose):
            await aclose()
