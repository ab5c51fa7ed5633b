"""Run an upstream iterator of pieces through a filter, and close the upstream the moment it is not needed.

Every adapter uses this; none re-implements it. Closing is what cancels the provider request (and the bill):
the upstream is closed as soon as the filter stops (before the stopping step is handed on, so nothing more is
generated while the reader is shown the notice), when the consumer stops reading, and when the upstream fails.
A failing upstream is a truncation, not a violation: validated text is released, `Done("truncated")` is
reported, and the error is re-raised so the caller still sees it. An error raised by the filter itself (a bug,
or a bad piece) ends the stream fail-closed: nothing more is released and the error propagates.

`drive`/`adrive` yield `Step`s; `drive_text`/`adrive_text` yield what a reader sees: released text and, on a
stop, the guard's fixed notice as the last chunk.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
)
from dataclasses import dataclass, field
from typing import Any

from .stream import Done, Event, Guard, Step, StreamFilter, check_piece
from .usage import Usage, UsageMeter

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
    """A str piece, or an object's `.text` str (a provider chunk). Anything else is a clear TypeError:
    turning bytes or None into their repr would put text the model never wrote in front of the reader."""
    if isinstance(item, str):
        return item
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
        self.usage_of = usage_of
        self.outcome = outcome if outcome is not None else Outcome()
        self._parts: list[str] = []

    def account(self, item: Any) -> str:
        """Bill one raw upstream item (before gating): it was generated whether or not anyone sees it."""
        text = self.text_of(item)
        if isinstance(text, str):
            self.meter.observe(text)
        if self.usage_of is not None:
            self.usage_of(item, self.meter)
        return text

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


def _close(iterator: Any) -> None:
    close = getattr(iterator, "close", None)
    if callable(close):
        close()


async def _aclose(iterator: Any) -> None:
    aclose = getattr(iterator, "aclose", None)
    if callable(aclose):
        result = aclose()
        if inspect.isawaitable(result):
            await result


def drive(
    upstream: Iterable[Any],
    filt: StreamFilter,
    *,
    text_of: TextOf = _text,
    usage_of: UsageOf | None = None,
    meter: UsageMeter | None = None,
    outcome: Outcome | None = None,
) -> Generator[Step, None, None]:
    """Yield the filter's non-empty steps for `upstream`; fill `outcome` (pass your own to read it after).

    `text_of(item)` extracts the text of one upstream item (default: the item if it is a `str`, else its
    `.text`); `usage_of(item, meter)` lets an adapter report provider usage carried by an item.
    """
    run = _Run(filt, meter, text_of, usage_of, outcome)
    iterator = iter(upstream)
    try:
        while True:
            try:
                item = next(iterator)
            except StopIteration:
                break
            except Exception as exc:  # the provider died mid-stream: release what was validated, re-raise
                _close(iterator)
                step = run.failed(exc)
                if _nonempty(step):
                    yield step
                raise
            step = run.take(item)
            if step.stopped:
                _close(iterator)  # cancel the generation before anyone is shown the stop
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
        _close(iterator)


async def adrive(
    upstream: AsyncIterable[Any],
    filt: StreamFilter,
    *,
    text_of: TextOf = _text,
    usage_of: UsageOf | None = None,
    meter: UsageMeter | None = None,
    outcome: Outcome | None = None,
    is_cancelled: IsCancelled | None = None,
) -> AsyncGenerator[Step, None]:
    """The async twin of `drive`: closes the upstream with `aclose()` when the filter stops or we are closed.

    `is_cancelled()` (an async callable, such as Starlette's `request.is_disconnected`) is awaited as each
    upstream item arrives; when it says True the item is billed but not shown, the upstream is closed at once
    and the run ends `cancelled` (no more steps). That is the check that stops the provider, and the bill,
    when the reader has gone.
    """
    run = _Run(filt, meter, text_of, usage_of, outcome)
    iterator = upstream.__aiter__()
    try:
        while True:
            try:
                item = await iterator.__anext__()
            except StopAsyncIteration:
                break
            except Exception as exc:  # the provider died mid-stream: release what was validated, re-raise
                await _aclose(iterator)
                step = run.failed(exc)
                if _nonempty(step):
                    yield step
                raise
            if is_cancelled is not None and await is_cancelled():
                run.account(item)
                await _aclose(iterator)
                run.finish("cancelled")
                return
            step = run.take(item)
            if step.stopped:
                await _aclose(iterator)
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
        await _aclose(iterator)


def _notice(outcome: Outcome, notice: str | None) -> str:
    guard = outcome.guard
    return guard.notice if guard is not None and guard.notice else (notice or FALLBACK_NOTICE)


def drive_text(
    upstream: Iterable[Any],
    filt: StreamFilter,
    *,
    outcome: Outcome | None = None,
    notice: str | None = None,
    on_guard: OnGuard | None = None,
    **kwargs: Any,
) -> Iterator[str]:
    """What the reader sees: released text, then on a stop the guard's notice as the last chunk.

    The upstream is already closed when the notice is yielded. `on_guard(outcome)` runs just before the
    notice (adapters emit their framework's guard event there); `notice` is used only when the filter stopped
    without a `Guard` event.
    """
    out = outcome if outcome is not None else Outcome()
    steps = drive(upstream, filt, outcome=out, **kwargs)
    try:
        for step in steps:
            if step.text:
                yield step.text
            if step.stopped:
                if on_guard is not None:
                    on_guard(out)
                yield _notice(out, notice)
    finally:
        steps.close()


async def adrive_text(
    upstream: AsyncIterable[Any],
    filt: StreamFilter,
    *,
    outcome: Outcome | None = None,
    notice: str | None = None,
    on_guard: AsyncOnGuard | None = None,
    **kwargs: Any,
) -> AsyncIterator[str]:
    """The async twin of `drive_text`; `on_guard` may be a coroutine function."""
    out = outcome if outcome is not None else Outcome()
    steps = adrive(upstream, filt, outcome=out, **kwargs)
    try:
        async for step in steps:
            if step.text:
                yield step.text
            if step.stopped:
                if on_guard is not None:
                    result = on_guard(out)
                    if inspect.isawaitable(result):
                        await result
                yield _notice(out, notice)
    finally:
        await steps.aclose()
