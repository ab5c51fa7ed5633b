"""`guarded_stream(result, filter)`: the text of a `Runner.run_streamed(...)` run, gated before anyone sees it.

The Agents SDK runs output guardrails on the final output only, so a streamed answer reaches the reader before
any check. Here the run's raw response events (`RawResponsesStreamEvent`: `response.output_text.delta` from a
Responses model, and the same events from `OpenAIChatCompletionsModel`, which converts Chat Completions chunks)
go through the core's `adrive_text`; the caller is handed only strings: released text and, on a stop, the
guard's notice. The SDK's other events are never handed on: `message_output_created`, `response.output_item.done`
and `response.completed` carry the whole unvalidated text, and `tool_called` items carry model-written arguments.

A stop (or the reader leaving, or an error) cancels the run (`result.cancel()`): the SDK cancels its run-loop
task, which closes the model's HTTP stream (the OpenAI client closes its response when its stream generator is
torn down), and the stream's `aclose()` waits for the run loop to end. Usage (`GuardedStream.usage`) adds each
model response's figure: the provider's for a response that ended, the byte estimate of what was received for
one stopped before its end (the SDK's own `context_wrapper.usage` never counts that one).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from sluicegate import Outcome, RunMeter, StreamFilter, Usage, adrive_text

_RAW = "raw_response_event"


class _RunEvents:
    """The raw model events of a streamed run, as an async iterator the driver can close.

    Closing it cancels the run and waits until the SDK's stream consumer has finished (which awaits the
    cancelled run loop, and with it the model stream's close)."""

    def __init__(self, result: Any, meter: RunMeter) -> None:
        self._result = result
        self._meter = meter
        self._events: Any = result.stream_events()
        self.closed = False

    def __aiter__(self) -> _RunEvents:
        return self

    async def __anext__(self) -> Any:
        while True:
            event = await self._events.__anext__()
            if getattr(event, "type", None) != _RAW:
                continue  # run items and agent updates: never handed on (they repeat text, or carry tool args)
            data = event.data
            if getattr(data, "type", None) == "response.created":
                self._meter.next_response()
            return data

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        if not self._result.is_complete:
            self._result.cancel()
        # RuntimeError: the SDK's generator is being read right now by another task; the run is cancelled all
        # the same, and that reader is woken by the SDK's end-of-queue marker
        with contextlib.suppress(RuntimeError):
            await self._events.aclose()


class GuardedStream(AsyncIterator[str]):
    """What the reader of one streamed run sees, plus how it ended (`outcome`) and what it cost (`usage`).

    Iterate it (`async for chunk in stream`); `aclose()` it (or leave an `async with`) to stop early. After a
    stop, show only what it yielded: the run's `final_output`, `new_items`, `raw_responses`, `to_input_list()`,
    `to_state()` and a `session=`'s items may hold the whole unvalidated turn (the run loop reads the model ahead
    of this reader).
    """

    def __init__(self, result: Any, filt: StreamFilter, *, notice: str | None = None) -> None:
        self.result = result
        self.outcome = Outcome()
        self._meter = RunMeter()
        self._events = _RunEvents(result, self._meter)
        self._chunks = adrive_text(self._events, filt, outcome=self.outcome, notice=notice, meter=self._meter)

    def __aiter__(self) -> GuardedStream:
        return self

    async def __anext__(self) -> str:
        return await self._chunks.__anext__()

    async def aclose(self) -> None:
        try:
            await self._chunks.aclose()
        finally:
            await self._events.aclose()

    async def __aenter__(self) -> GuardedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def text(self) -> str:
        """The released text so far (without the notice)."""
        return self.outcome.released

    @property
    def stopped(self) -> bool:
        return self.outcome.stopped

    @property
    def usage(self) -> Usage:
        """Every model response of the run so far: provider figures where a response ended, else the estimate."""
        return self._meter.usage

    @property
    def usage_by_response(self) -> tuple[Usage, ...]:
        """Each model response's usage, in order (one per turn of the run)."""
        return self._meter.responses


def guarded_stream(result: Any, filter: StreamFilter, *, notice: str | None = None) -> GuardedStream:  # noqa: A002
    """Gate the text of `result` (what `Runner.run_streamed(...)` returned) with `filter` (any `StreamFilter`,
    e.g. `Pipeline(SentenceGate(sources), Redactor())`, used for this run only).

    Yields released text, then on a stop the guard's notice (a paragraph apart); the run is cancelled and its
    model stream closed before the notice is yielded. `notice` is shown when the filter stops without a
    `Guard` event of its own.
    """
    return GuardedStream(result, filter, notice=notice)
