"""`sg.stream(guard, llm_api, cap=CallBudget(...), messages=...)`: the spend cap around a Guardrails AI call.

Why before the guard: the reservation must exist before the model is called, and a refusal must reach the
reader as the cap's fixed notice, not as model text that the validator would then judge. So the messages are
reserved first; refused, the returned stream yields the notice alone and neither the guard nor the model runs.
Admitted, the model callable is wrapped: it may be called once (a reask would be a call nobody reserved: it
fails closed), with messages whose bound does not exceed the reserved one (guardrails adding text would be an
unreserved prompt: fails closed too). The reservation is settled from the stream's outcome when iteration ends,
however it ends: complete, stopped, closed by the reader, failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from sluicegate import Outcome, Usage
from sluicegate.budget import CallBudget, Reservation, refused
from sluicegate.budget.bound import prompt_tokens_bound

from .state import StreamState
from .stream import GuardedStream, with_default_messages
from .stream import astream as _astream
from .stream import stream as _stream

NOTHING = Usage(output_tokens=0, input_tokens=0, source="provider", received_chars=0, received_bytes=0, pieces=0)


class UnreservedCall(RuntimeError):
    """Guardrails asked for a model call the cap did not reserve (a reask, or a longer prompt)."""


class RefusedStream:
    """What `stream(..., cap=...)` returns when the cap refuses: the notice, once; no guard or model ran."""

    def __init__(self, reservation: Reservation) -> None:
        self.reservation = reservation
        self.outcome: Outcome = refused(reservation)
        self.violation: str | None = None
        self.raw_outcomes: list[Any] = []

    def __iter__(self) -> Iterator[str]:
        yield self.outcome.released

    async def __aiter__(self) -> AsyncIterator[str]:
        yield self.outcome.released


class _Reserved:
    """The model callable, allowed one call within the reservation; settles once the stream is over."""

    def __init__(self, budget: CallBudget, reservation: Reservation, llm_api: Callable[..., Any]) -> None:
        self.budget = budget
        self.reservation = reservation
        self.llm_api = llm_api
        self.calls = 0
        self.settled = False

    def __call__(self, *args: Any, messages: Any = None, **kwargs: Any) -> Any:
        if self.calls:
            raise UnreservedCall("guardrails asked for a second model call (a reask?); the cap reserved one")
        bound, _ = prompt_tokens_bound(messages if messages is not None else "", overhead=self.budget.cap.overhead)
        if bound > self.reservation.input_bound:
            raise UnreservedCall(f"the prompt sent ({bound} tokens bound) exceeds the one reserved")
        self.calls += 1
        return self.llm_api(*args, messages=messages, **kwargs)

    def settle(self, outcome: Outcome) -> None:
        if not self.settled:
            self.settled = True
            usage = outcome.usage if self.calls else NOTHING  # never called: nothing was spent
            self.budget.settle(self.reservation, usage)

    async def asettle(self, outcome: Outcome) -> None:
        """`settle` off the event loop (blocking store I/O), shielded: a cancelled reader must not cancel it."""
        if not self.settled:
            await asyncio.shield(asyncio.to_thread(self.settle, outcome))


class CappedStream(GuardedStream):
    """A `GuardedStream` that settles its reservation when iteration ends."""

    def __init__(self, state: StreamState, outcomes: Any, reserved: _Reserved) -> None:
        super().__init__(state, outcomes)
        self.reserved = reserved

    @property
    def reservation(self) -> Reservation:
        return self.reserved.reservation

    def __iter__(self) -> Iterator[str]:
        try:
            yield from super().__iter__()
        finally:
            self.reserved.settle(self.outcome)

    async def __aiter__(self) -> AsyncIterator[str]:
        inner = super().__aiter__()
        try:
            async for text in inner:
                yield text
        finally:
            await inner.aclose()  # type: ignore[attr-defined]
            await self.reserved.asettle(self.outcome)


def _prompt(kwargs: Mapping[str, Any]) -> Any:
    messages = kwargs.get("messages")
    if messages is None:
        raise ValueError("stream(..., cap=...) needs messages=[...]: the cap reserves the prompt before the call")
    return messages


def _budget(cap: Any) -> CallBudget:
    if not isinstance(cap, CallBudget):
        raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
    return cap


def stream(
    guard: Any,
    llm_api: Callable[..., Any],
    *,
    metadata: Mapping[str, Any] | None = None,
    cap: CallBudget | None = None,
    **kwargs: Any,
) -> GuardedStream | RefusedStream:
    """`stream.stream` plus `cap=`: reserve `messages` first; refused, the notice and no call at all."""
    if cap is None:
        plain: GuardedStream = _stream(guard, llm_api, metadata=metadata, **kwargs)
        return plain
    budget = _budget(cap)
    kwargs = with_default_messages(guard, metadata, kwargs)  # the cap reserves the prompt actually sent
    reservation = budget.reserve(_prompt(kwargs))
    if not reservation.admitted:
        return RefusedStream(reservation)
    reserved = _Reserved(budget, reservation, llm_api)
    try:
        inner = _stream(guard, reserved, metadata=metadata, **kwargs)
    except BaseException:
        reserved.settle(Outcome())
        raise
    return CappedStream(inner.state, inner._outcomes, reserved)


async def astream(
    guard: Any,
    llm_api: Callable[..., Any],
    *,
    metadata: Mapping[str, Any] | None = None,
    cap: CallBudget | None = None,
    **kwargs: Any,
) -> GuardedStream | RefusedStream:
    """The `AsyncGuard` twin of `stream`."""
    if cap is None:
        plain: GuardedStream = await _astream(guard, llm_api, metadata=metadata, **kwargs)
        return plain
    budget = _budget(cap)
    kwargs = with_default_messages(guard, metadata, kwargs)  # the cap reserves the prompt actually sent
    reservation = await asyncio.to_thread(budget.reserve, _prompt(kwargs))  # blocking store I/O: off the loop
    if not reservation.admitted:
        return RefusedStream(reservation)
    reserved = _Reserved(budget, reservation, llm_api)
    try:
        inner = await _astream(guard, reserved, metadata=metadata, **kwargs)
    except BaseException:
        await reserved.asettle(Outcome())
        raise
    return CappedStream(inner.state, inner._outcomes, reserved)
