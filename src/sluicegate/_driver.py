"""Run an upstream iterator of pieces through a filter, and close the upstream the moment it is not needed.

Every adapter uses this; none re-implements it. Closing is what cancels the provider request (and the bill):
the upstream is closed as soon as the filter stops (before the stopping step is handed on, so nothing more is
generated while the reader is shown the notice), when the consumer stops reading, and when the upstream fails.
A failing upstream is a truncation, not a violation: validated text is released, `Done("truncated")` is
reported, and the error is re-raised so the caller still sees it. An error raised by the filter itself (a bug,
or a bad piece) ends the stream fail-closed: nothing more is released and the error propagates.

What "close the upstream" means for each kind of object (an SDK stream, a stream manager, litellm's wrapper, a
generator) is in `sluicegate._closing`; the HTTP responses a framework opened while we read it, and never
closes itself, are closed too (`sluicegate._responses`).

`drive`/`adrive` yield `Step`s; `drive_text`/`adrive_text` yield what a reader sees: released text and, on a
stop, the guard's fixed notice as the last chunk.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Awaitable,
    Callable,
    Generator,
    Iterable,
)
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ._closing import AsyncUpstream, Upstream
from ._provider_chunks import sdk_text, sdk_usage
from ._stream import Done, Event, Guard, Step, StreamFilter, check_piece
from ._usage import Usage, UsageMeter

T = TypeVar("T")
TextOf = Callable[[Any], str]
UsageOf = Callable[[Any, UsageMeter], None]
OnGuard = Callable[["Outcome"], None]
AsyncOnGuard = Callable[["Outcome"], None | Awaitable[None]]
IsCancelled = Callable[[], Awaitable[bool]]

# Shown when a filter stops without a `Guard` event of its own: a stop must never end silently mid-sentence.
FALLBACK_NOTICE = "[answer withheld]"


@dataclass
class Outcome:
    """How one guarded generation ended, for the server side (logs, spend cap, UI state).

    Complete by the time the step that ends the stream is handed on, so a consumer that stops reading right
    after the last chunk still finds it filled in.
    """

    reason: str | None = None  # a Done reason once over; None while running
    events: list[Event] = field(default_factory=list)
    violations: tuple[Any, ...] = ()
    usage: Usage | None = None
    error: BaseException | None = None
    released: str = ""

    @property
    def guard(self) -> Guard | None:
        return next((e for e in self.events if isinstance(e, Guard)), None)

    @property
    def stopped(self) -> bool:
        return self.reason == "stopped"


def _text(item: Any) -> str:
    """A str piece, an item of an official SDK's stream (`sluicegate._provider_chunks`), or an object's `.text`
    str. Anything else is a clear TypeError: turning bytes or None into their repr would put text the model
    never wrote in front of the reader."""
    if isinstance(item, str):
        return item
    text = sdk_text(item)
    if text is not None:
        return text
    text = getattr(item, "text", None)
    return text if isinstance(text, str) else check_piece(item)


def _nonempty(step: Step) -> bool:
    return bool(step.text or step.events)


class _Run:
    """The shared bookkeeping of the sync and async drivers."""

    def __init__(
        self,
        filt: StreamFilter,
        meter: UsageMeter | None,
        text_of: TextOf,
        usage_of: UsageOf | None,
        outcome: Outcome | None,
    ) -> None:
        self.filter = filt
        self.meter = meter if meter is not None else UsageMeter()
        self.text_of = text_of
        self.usage_of = usage_of if usage_of is not None else sdk_usage
        self.outcome = outcome if outcome is not None else Outcome()
        self._parts: list[str] = []

    def account(self, item: Any) -> str:
        """Bill one raw upstream item (before gating): it was generated whether or not anyone sees it."""
        text = self.text_of(item)
        if isinstance(text, str):
            self.meter.observe(text)
        self.usage_of(item, self.meter)
        return text

    def unread(self, pieces: list[str]) -> None:
        """Bill the text a provider delivered that nobody read before the close (counted by `closing`): it was
        generated. A figure already taken is refreshed (a leave closes the books before the close)."""
        for piece in pieces:
            self.meter.observe(piece)
        if self.outcome.usage is not None:
            self.outcome.usage = self.meter.usage

    def take(self, item: Any) -> Step:
        """Account for one raw upstream item, then feed its text to the filter."""
        return self.record(self.filter.feed(self.account(item)))

    def record(self, step: Step) -> Step:
        self._parts.append(step.text)
        self.outcome.events.extend(step.events)
        for event in step.events:
            if isinstance(event, Done):
                self.outcome.reason = event.reason
        return step

    def finish(self, reason: str | None = None, error: BaseException | None = None) -> None:
        out = self.outcome
        if out.reason is None:
            out.reason = reason or ("stopped" if self.filter.stopped else "complete")
        out.error = out.error or error
        out.violations = tuple(getattr(self.filter, "violations", ()))
        out.usage = self.meter.usage
        out.released = "".join(self._parts)

    def failed(self, error: Exception) -> Step:
        """The upstream died mid-stream: a truncation, not a violation. Release what was validated."""
        step = self.record(self.filter.flush(truncated=True))
        self.finish("truncated", error)
        return step

    def ended(self) -> Step:
        """The upstream ran out: judge what is held (the last sentence) and close the books."""
        step = self.record(self.filter.flush())
        self.finish()
        return step


class _Closing(Generator[T, None, None]):
    """A generator that also closes the upstream when it is closed *before its first item*.

    Why: a generator's body (and its `finally`) does not run until the first `next()`, so a reader who leaves
    before the first token would otherwise leave the provider generating. It is a `collections.abc.Generator`
    (frameworks such as LlamaIndex check for one) and a context manager.
    """

    def __init__(self, gen: Generator[T, None, None], close_unstarted: Callable[[], None]) -> None:
        self._gen = gen
        self._close_unstarted: Callable[[], None] | None = close_unstarted

    def __iter__(self) -> _Closing[T]:
        return self

    def __next__(self) -> T:
        self._close_unstarted = None
        return next(self._gen)

    def send(self, value: None) -> T:
        self._close_unstarted = None
        return self._gen.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> T:
        if self._close_unstarted is not None:
            self.close()
        return self._gen.throw(typ, val, tb)

    def close(self) -> None:
        pending, self._close_unstarted = self._close_unstarted, None
        self._gen.close()
        if pending is not None:
            pending()

    def __enter__(self) -> _Closing[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # Dropped without being read or closed: close the upstream as a started generator's finaliser would.
        if getattr(self, "_close_unstarted", None) is not None:
            with contextlib.suppress(Exception):
                self.close()


class _AClosing(AsyncGenerator[T, None]):
    """The async twin of `_Closing`: `aclose()` before the first item closes the upstream too."""

    def __init__(self, gen: AsyncGenerator[T, None], close_unstarted: Callable[[], Awaitable[None]]) -> None:
        self._gen = gen
        self._close_unstarted: Callable[[], Awaitable[None]] | None = close_unstarted

    def __aiter__(self) -> _AClosing[T]:
        return self

    async def __anext__(self) -> T:
        self._close_unstarted = None
        return await self._gen.__anext__()

    async def asend(self, value: None) -> T:
        self._close_unstarted = None
        return await self._gen.asend(value)

    async def athrow(self, typ: Any, val: Any = None, tb: Any = None) -> T:
        if self._close_unstarted is not None:
            await self.aclose()
        return await self._gen.athrow(typ, val, tb)

    async def aclose(self) -> None:
        pending, self._close_unstarted = self._close_unstarted, None
        await self._gen.aclose()
        if pending is not None:
            await pending()

    async def __aenter__(self) -> _AClosing[T]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __del__(self) -> None:
        # Dropped without being read or closed: `__del__` cannot await, so the close runs as a task on the
        # running loop (kept referenced until done); with no loop running there is nothing to run it on.
        if getattr(self, "_close_unstarted", None) is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.aclose())
        _PENDING_CLOSES.add(task)
        task.add_done_callback(_PENDING_CLOSES.discard)


_PENDING_CLOSES: set[asyncio.Task[None]] = set()  # closes started by `_AClosing.__del__`, kept alive until done


def drive(
    upstream: Iterable[Any],
    filt: StreamFilter,
    *,
    text_of: TextOf = _text,
    usage_of: UsageOf | None = None,
    meter: UsageMeter | None = None,
    outcome: Outcome | None = None,
    is_cancelled: Callable[[], bool] | None = None,
) -> _Closing[Step]:
    """Yield the filter's non-empty steps for `upstream`; fill `outcome` (pass your own to read it after).

    `upstream` may be the provider SDK's stream object itself (OpenAI's `Stream`, Anthropic's `Stream`,
    `MessageStream` or `MessageStreamManager`, litellm's `CustomStreamWrapper`): the object is closed, not only
    the iterator read from it (`sluicegate._closing`), and so are the HTTP responses opened while it was read
    (`sluicegate._responses`). `text_of(item)` extracts the text of one upstream item (default: a `str`, an SDK
    item's text delta, else the item's `.text`); `usage_of(item, meter)` reports provider usage carried by an
    item (default: the SDKs' usage fields, `sluicegate._provider_chunks`). `is_cancelled()` is asked at every
    upstream item; True closes the upstream at once and ends the run `cancelled` (the item is billed, not shown).
    """
    run = _Run(filt, meter, text_of, usage_of, outcome)
    source = Upstream(upstream, run.unread)

    def cancelled() -> None:
        try:
            source.close()
        finally:
            run.finish("cancelled")

    return _Closing(_drive(run, source, is_cancelled), cancelled)


def _drive(run: _Run, source: Upstream, is_cancelled: Callable[[], bool] | None) -> Generator[Step, None, None]:
    try:
        while True:
            try:
                item = source.next()
            except StopIteration:
                break
            except Exception as exc:  # the provider died mid-stream: release what was validated, re-raise
                source.close()
                step = run.failed(exc)
                if _nonempty(step):
                    yield step
                raise
            if is_cancelled is not None and is_cancelled():
                run.account(item)
                source.close()
                run.finish("cancelled")
                return
            step = run.take(item)
            if step.stopped:
                source.close()  # cancel the generation before anyone is shown the stop
                run.finish()
                if _nonempty(step):
                    yield step
                return
            if _nonempty(step):
                yield step
        step = run.ended()
        if _nonempty(step):
            yield step
    except GeneratorExit:
        run.finish("cancelled")
        raise
    except BaseException as exc:
        run.finish("cancelled", exc)
        raise
    finally:
        source.close()


def adrive(
    upstream: AsyncIterable[Any],
    filt: StreamFilter,
    *,
    text_of: TextOf = _text,
    usage_of: UsageOf | None = None,
    meter: UsageMeter | None = None,
    outcome: Outcome | None = None,
    is_cancelled: IsCancelled | None = None,
) -> _AClosing[Step]:
    """The async twin of `drive`: closes the upstream object (`aclose()`, or an awaitable `close()` as the
    OpenAI and Anthropic async streams have; an async stream manager is entered and exited) when the filter
    stops, when the upstream fails, or when we are closed.

    `is_cancelled()` (an async callable, such as Starlette's `request.is_disconnected`) is awaited as each
    upstream item arrives; when it says True the item is billed but not shown, the upstream is closed at once
    and the run ends `cancelled` (no more steps). That is the check that stops the provider, and the bill,
    when the reader has gone.
    """
    run = _Run(filt, meter, text_of, usage_of, outcome)
    source = AsyncUpstream(upstream, run.unread)

    async def cancelled() -> None:
        try:
            await source.aclose()
        finally:
            run.finish("cancelled")

    return _AClosing(_adrive(run, source, is_cancelled), cancelled)


async def _adrive(run: _Run, source: AsyncUpstream, is_cancelled: IsCancelled | None) -> AsyncGenerator[Step, None]:
    try:
        while True:
            try:
                item = await source.next()
            except StopAsyncIteration:
                break
            except Exception as exc:  # the provider died mid-stream: release what was validated, re-raise
                await source.aclose()
                step = run.failed(exc)
                if _nonempty(step):
                    yield step
                raise
            if is_cancelled is not None and await is_cancelled():
                run.account(item)
                await source.aclose()
                run.finish("cancelled")
                return
            if cancellation_swallowed():  # our task was cancelled and something below returned an item anyway
                run.account(item)
                await _close_shielded(source)
                raise asyncio.CancelledError("a cancellation of this task was swallowed below the driver")
            step = run.take(item)
            if step.stopped:
                await source.aclose()
                run.finish()
                if _nonempty(step):
                    yield step
                return
            if _nonempty(step):
                yield step
        step = run.ended()
        if _nonempty(step):
            yield step
    except (GeneratorExit, asyncio.CancelledError):
        run.finish("cancelled")
        raise
    except BaseException as exc:
        run.finish("cancelled", exc)
        raise
    finally:
        await source.aclose()


async def _close_shielded(source: AsyncUpstream) -> None:
    """Close the upstream even though this task is being cancelled: anyio re-delivers a cancelled scope's
    cancellation at every await (sse-starlette's task group on a disconnect), which would cut an awaited close
    short and leave the provider generating. The close runs in a task of its own; a cancellation arriving while
    we wait for it is re-raised, and the close still completes."""
    await asyncio.shield(asyncio.ensure_future(source.aclose()))


def cancellation_swallowed() -> bool:
    """True if the running task has a cancellation request pending (`Task.cancelling()`) although the pull
    returned normally: code below us caught the `CancelledError` and went on without `uncancel()`.

    Why: Python 3.11's `asyncio.wait_for` returns the inner result when it completes in the same loop turn as
    the cancellation of the task waiting on it (CPython gh-86296, fixed in 3.12). `langchain-openai` wraps every
    async chunk in `wait_for` (`stream_chunk_timeout`), so a reader's `task.cancel()` while the gate held a
    sentence was lost in about half the runs: the reader went on reading and the provider generated the whole
    answer. Honouring the pending request at the next item closes the upstream there instead.
    """
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


NOTICE_SEPARATOR = "\n\n"  # the notice is set off from released text as a paragraph of its own


def notice_chunk(outcome: Outcome, *, released: bool, notice: str | None = None) -> str:
    """What a reader is shown after a stream that `outcome` describes: the notice (set off as a paragraph when
    text was `released` before it) if the filter stopped, else "" (a refusal already showed its own text).

    For adapters whose framework owns the stream, so every adapter shows a stop the way `drive_text` does.
    """
    return _notice(outcome, notice, released) if outcome.reason == "stopped" else ""


def _notice(outcome: Outcome, notice: str | None, released: bool) -> str:
    """The notice chunk: the guard's fixed text (else `notice`, else the fallback), after a paragraph break
    when text was released before it, so `"".join(chunks)` never glues it to the last sentence."""
    guard = outcome.guard
    text = guard.notice if guard is not None and guard.notice else (notice or FALLBACK_NOTICE)
    return NOTICE_SEPARATOR + text if released else text


def drive_text(
    upstream: Iterable[Any],
    filt: StreamFilter,
    *,
    outcome: Outcome | None = None,
    notice: str | None = None,
    on_guard: OnGuard | None = None,
    **kwargs: Any,
) -> _Closing[str]:
    """What the reader sees: released text, then on a stop the guard's notice as the last chunk.

    The upstream is already closed when the notice is yielded. `on_guard(outcome)` runs just before the
    notice (adapters emit their framework's guard event there); `notice` is used only when the filter stopped
    without a `Guard` event.
    """
    out = outcome if outcome is not None else Outcome()
    steps = drive(upstream, filt, outcome=out, **kwargs)
    return _Closing(_drive_text(steps, out, notice, on_guard), steps.close)


def _drive_text(
    steps: _Closing[Step], out: Outcome, notice: str | None, on_guard: OnGuard | None
) -> Generator[str, None, None]:
    released = False
    try:
        for step in steps:
            if step.text:
                released = True
                yield step.text
            if step.stopped and out.reason != "refused":
                if on_guard is not None:
                    on_guard(out)
                yield _notice(out, notice, released)
    finally:
        steps.close()


def adrive_text(
    upstream: AsyncIterable[Any],
    filt: StreamFilter,
    *,
    outcome: Outcome | None = None,
    notice: str | None = None,
    on_guard: AsyncOnGuard | None = None,
    **kwargs: Any,
) -> _AClosing[str]:
    """The async twin of `drive_text`; `on_guard` may be a coroutine function."""
    out = outcome if outcome is not None else Outcome()
    steps = adrive(upstream, filt, outcome=out, **kwargs)
    return _AClosing(_adrive_text(steps, out, notice, on_guard), steps.aclose)


async def _adrive_text(
    steps: _AClosing[Step], out: Outcome, notice: str | None, on_guard: AsyncOnGuard | None
) -> AsyncGenerator[str, None]:
    released = False
    try:
        async for step in steps:
            if step.text:
                released = True
                yield step.text
            if step.stopped and out.reason != "refused":
                if on_guard is not None:
                    result = on_guard(out)
                    if inspect.isawaitable(result):
                        await result
                yield _notice(out, notice, released)
    finally:
        await steps.aclose()
