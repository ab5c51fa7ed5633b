"""Thin sync and asyncio drivers beside `GuardedCall`, as `drive` is beside a filter.

They do the I/O the call asks for and nothing else: retrieve, reserve (the store), open the model, settle.
The model stream itself runs through `drive_text`/`adrive_text`, which close it on a stop, a reader gone or a
failure; nothing here closes a stream itself. The step helpers (`reserve_call`, `settle_call` and their async
twins) are for adapters whose framework owns the stream: they run one action each.

Blocking store calls (a busy SQLite file, a Redis timeout) run in a worker thread in the async twins, and the
settle is shielded: a reader who cancels must not cancel the settle.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Sequence,
)
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

from .._driver import adrive_text, drive_text
from ._actions import CallModel, Finished, Refuse, Reserve, Retrieve, Settle
from ._call import CallState, CallStateError, GuardedCall

if TYPE_CHECKING:
    from .._usage import Usage
    from ..evidence import Passage

RetrieveFn = Callable[[str], "Sequence[Passage]"]
PromptOf = Callable[[Reserve], Any]
ModelFn = Callable[[CallModel], Iterable[Any]]
AsyncRetrieveFn = Callable[[str], Any]  # returns passages, or an awaitable of them
AsyncModelFn = Callable[[CallModel], Any]  # returns an async iterable, or an awaitable of one


def _pending(call: GuardedCall) -> Reserve:
    action = call.start() if call.state is CallState.NEW else call.next_action
    if not isinstance(action, Reserve):
        raise CallStateError(f"no reservation to make: the call's next action is {type(action).__name__}")
    return action


def reserve_call(call: GuardedCall, prompt: Any) -> Refuse | CallModel:
    """Make the reservation the call asks for (starting it if new) with `prompt`, everything the model will be
    sent, and tell the call what came of it: `Refuse` or `CallModel`."""
    action = _pending(call)
    return call.reserved(action.budget.reserve(prompt, language=action.language))


async def areserve_call(call: GuardedCall, prompt: Any) -> Refuse | CallModel:
    """`reserve_call` with the store's blocking I/O off the event loop.

    Cancelled while the store works, it still waits for the hold and gives it to the call before the
    cancellation goes on: a thread cannot be cancelled, so the hold is made either way, and a hold the call
    never saw would never be settled (it would count against the cap until its TTL).
    """
    action = _pending(call)
    task = asyncio.ensure_future(asyncio.to_thread(action.budget.reserve, prompt, language=action.language))
    try:
        reservation = await asyncio.shield(task)
    except asyncio.CancelledError:
        call.reserved(await task)
        raise
    return call.reserved(reservation)


def screen_call(call: GuardedCall, retrieve: RetrieveFn) -> Refuse | Reserve | CallModel:
    """Run the layers before the reservation (starting the call if new): each `Retrieve` with `retrieve(query)`;
    returns `Refuse`, `Reserve` or `CallModel`."""
    action = call.start() if call.state is CallState.NEW else call.next_action
    while isinstance(action, Retrieve):
        action = call.retrieved(retrieve(action.query))
    if action is None:
        raise CallStateError("the call has no next action")
    return action


async def ascreen_call(call: GuardedCall, retrieve: AsyncRetrieveFn) -> Refuse | Reserve | CallModel:
    """`screen_call` with a `retrieve` that may be a coroutine function."""
    action = call.start() if call.state is CallState.NEW else call.next_action
    while isinstance(action, Retrieve):
        action = call.retrieved(await _maybe(retrieve(action.query)))
    if action is None:
        raise CallStateError("the call has no next action")
    return action


def settle_call(
    call: GuardedCall, *, reason: str | None = None, usage: Usage | None = None, error: BaseException | None = None
) -> Finished:
    """End the call (`GuardedCall.end`) and run its `Settle`, if it hands one out. Safe in every `finally`."""
    action = call.end(reason=reason, usage=usage, error=error)
    if isinstance(action, Settle):
        return call.settled(action.budget.settle(action.reservation, action.usage))
    return action


async def asettle_call(
    call: GuardedCall, *, reason: str | None = None, usage: Usage | None = None, error: BaseException | None = None
) -> Finished:
    """`settle_call` off the event loop, shielded from the caller's cancellation (the settle still completes
    when the reader's task is cancelled; the cancellation is re-raised after it)."""
    action = call.end(reason=reason, usage=usage, error=error)
    if not isinstance(action, Settle):
        return action
    task = asyncio.ensure_future(asyncio.to_thread(action.budget.settle, action.reservation, action.usage))
    try:
        recorded = await asyncio.shield(task)
    except asyncio.CancelledError:
        task.add_done_callback(lambda t: call.settled(not t.cancelled() and t.exception() is None and t.result()))
        raise
    return call.settled(recorded)


UsageLater = Callable[[], "Usage | None"]


@contextmanager
def settling(call: GuardedCall, usage: UsageLater | None = None) -> Iterator[GuardedCall]:
    """Settle `call` when the block ends, however it ends (the exception, if any, is the end's `error`).

    `usage()` is read at the end (a framework's callback record is complete only then). Wrap the `yield from`
    of a generator in it: closing the generator (a reader gone) ends the block with `GeneratorExit`.
    """
    error: BaseException | None = None
    try:
        yield call
    except BaseException as exc:
        error = exc
        raise
    finally:
        settle_call(call, usage=usage() if usage is not None else None, error=error)


@asynccontextmanager
async def asettling(call: GuardedCall, usage: UsageLater | None = None) -> AsyncIterator[GuardedCall]:
    """The async twin of `settling` (the settle off the loop, shielded: see `asettle_call`)."""
    error: BaseException | None = None
    try:
        yield call
    except BaseException as exc:
        error = exc
        raise
    finally:
        await asettle_call(call, usage=usage() if usage is not None else None, error=error)


def _prompt(prompt_of: PromptOf | None, action: Reserve) -> Any:
    """What the reservation bounds: the caller's prompt, else the one the call rendered (sluicegate's)."""
    if prompt_of is not None:
        return prompt_of(action)
    if action.prompt is not None:
        return action.prompt.messages()
    raise ValueError("a GuardedCall with a budget and no prompt needs prompt_of=(Reserve) -> the prompt sent")


def _retriever(retrieve: Any) -> Any:
    if retrieve is not None:
        return retrieve

    def missing(query: str) -> Any:
        raise ValueError("a GuardedCall with preflight= needs retrieve=(query) -> passages")

    return missing


def run_call(
    call: GuardedCall,
    *,
    model: ModelFn,
    retrieve: RetrieveFn | None = None,
    prompt_of: PromptOf | None = None,
    **drive_options: Any,
) -> Generator[str, None, None]:
    """What the reader sees of one guarded call: a refusal's fixed text, or the released text and, on a stop,
    the notice. Nothing runs before the first `next()`; `call.outcome` is complete when it ends.

    `retrieve(query)` returns passages; `prompt_of(reserve)` the prompt for the reservation (default: the one
    the call rendered, `reserve.prompt`); `model(call_model)`
    opens the model stream. `drive_options` go to `drive_text` (`text_of`, `usage_of`, `notice`, `on_guard`).
    Settles exactly once on every end, including an exception raised by any of these callables.
    """
    with settling(call):
        screened = screen_call(call, _retriever(retrieve))
        action = reserve_call(call, _prompt(prompt_of, screened)) if isinstance(screened, Reserve) else screened
        if isinstance(action, Refuse):
            yield action.text
            return
        upstream = model(action)
        call.open()
        yield from drive_text(upstream, call, outcome=call.outcome, meter=call.meter, **drive_options)


async def arun_call(
    call: GuardedCall,
    *,
    model: AsyncModelFn,
    retrieve: AsyncRetrieveFn | None = None,
    prompt_of: PromptOf | None = None,
    **drive_options: Any,
) -> AsyncGenerator[str, None]:
    """The asyncio twin of `run_call`; `retrieve` and `model` may be coroutine functions. Close it with
    `aclose()` (or `contextlib.aclosing`) when you stop reading early: that closes the model and settles."""
    async with asettling(call):
        screened = await ascreen_call(call, _retriever(retrieve))
        action = await areserve_call(call, _prompt(prompt_of, screened)) if isinstance(screened, Reserve) else screened
        if isinstance(action, Refuse):
            yield action.text
            return
        upstream: AsyncIterable[Any] = await _maybe(model(action))
        call.open()
        chunks = adrive_text(upstream, call, outcome=call.outcome, meter=call.meter, **drive_options)
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            await chunks.aclose()


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
