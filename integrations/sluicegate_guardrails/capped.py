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

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from sluicegate import (
    GuardedCall,
    Outcome,
    Refuse,
    areserve_call,
    asettle_call,
    reserve_call,
    settle_call,
)
from sluicegate import UnreservedCall as UnreservedCall  # the core's: one class for every adapter
from sluicegate.budget import CallBudget, Reservation, refused
from sluicegate.call import NO_USAGE

from .state import StreamState
from .stream import GuardedStream, with_default_messages
from .stream import astream as _astream
from .stream import stream as _stream

NOTHING = NO_USAGE  # the usage settled when the model was never called


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
    """The model callable, let through by the guarded call once within the reservation; settles through it."""

    def __init__(
        self, budget: CallBudget, reservation: Reservation, llm_api: Callable[..., Any], call: GuardedCall | None = None
    ) -> None:
        if call is None:  # a reservation made elsewhere: the call takes it over
            call = _call(budget)
            call.start()
            call.reserved(reservation)
        self.call = call
        self.llm_api = llm_api

    @property
    def reservation(self) -> Reservation:
        assert self.call.reservation is not None
        return self.call.reservation

    def __call__(self, *args: Any, messages: Any = None, **kwargs: Any) -> Any:
        self.call.model_call(messages if messages is not None else "")  # one call, within the bound
        return self.llm_api(*args, messages=messages, **kwargs)

    def _usage(self, outcome: Outcome) -> Any:
        return outcome.usage if self.call.model_calls else NO_USAGE  # never called: nothing was spent

    def settle(self, outcome: Outcome) -> None:
        settle_call(self.call, usage=self._usage(outcome), reason=outcome.reason)  # once: the call sees to it

    async def asettle(self, outcome: Outcome) -> None:
        """`settle` off the event loop (blocking store I/O), shielded: a cancelled reader must not cancel it."""
        await asettle_call(self.call, usage=self._usage(outcome), reason=outcome.reason)


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


def _call(cap: Any) -> GuardedCall:
    """The guarded call that owns this stream's reservation, its one model call and its settle."""
    if not isinstance(cap, CallBudget):
        raise TypeError(f"cap must be a sluicegate.budget.CallBudget, got {type(cap).__name__}")
    return GuardedCall(budget=cap)


def _held(call: GuardedCall) -> Reservation:
    assert call.reservation is not None
    return call.reservation


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
    call = _call(cap)
    kwargs = with_default_messages(guard, metadata, kwargs)  # the cap reserves the prompt actually sent
    action = reserve_call(call, _prompt(kwargs))
    if isinstance(action, Refuse):
        return RefusedStream(_held(call))
    reserved = _Reserved(cap, _held(call), llm_api, call)
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
    call = _call(cap)
    kwargs = with_default_messages(guard, metadata, kwargs)  # the cap reserves the prompt actually sent
    action = await areserve_call(call, _prompt(kwargs))  # blocking store I/O: off the loop
    if isinstance(action, Refuse):
        return RefusedStream(_held(call))
    reserved = _Reserved(cap, _held(call), llm_api, call)
    try:
        inner = await _astream(guard, reserved, metadata=metadata, **kwargs)
    except BaseException:
        await reserved.asettle(Outcome())
        raise
    return CappedStream(inner.state, inner._outcomes, reserved)
