"""Run an upstream iterator of pieces through a filter, and close the upstream the moment it is not needed.

Every adapter uses this; none re-implements it. Closing is what cancels the provider request (and the bill):
the upstream is closed as soon as the filter stops, the consumer stops reading, or the upstream fails. A
failing upstream is a truncation, not a violation: validated text is released, `Done("truncated")` is
reported, and the error is re-raised so the caller still sees it.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import Any, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator

from .stream import Done, Event, Guard, Step, StreamFilter
from .usage import Usage, UsageMeter

TextOf = Callable[[Any], str]
UsageOf = Callable[[Any, UsageMeter], None]


@dataclass
class Outcome:
    """How one guarded generation ended, for the server side (logs, spend cap, UI state)."""

    reason: str | None = None  # a Done reason once over; None while running
    events: list[Event] = field(default_factory=list)
    violations: tuple[Any, ...] = ()
    usage: Usage | None = None
    error: BaseException | None = None
    released: str = ""

    @property
    def guard(self) -> Guard | None:
        return next((e for e in self.events if isinstance(e, Guard)), None)


def _text(item: Any) -> str:
    return item if isinstance(item, str) else str(getattr(item, "text", item))


class _Run:
    """The shared bookkeeping of the sync and async drivers."""

    def __init__(self, filt: StreamFilter, meter: UsageMeter | None, text_of: TextOf, usage_of: UsageOf | None):
        self.filter = filt
        self.meter = meter if meter is not None else UsageMeter()
        self.text_of = text_of
        self.usage_of = usage_of
        self.outcome = Outcome()
        self._parts: list[str] = []

    def take(self, item: Any) -> Step:
        text = self.text_of(item)
        self.meter.observe(text)
        if self.usage_of is not None:
            self.usage_of(item, self.meter)
        return self.record(self.filter.feed(text))

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


def drive(
    upstream: Iterable[Any],
    filt: StreamFilter,
    *,
    text_of: TextOf = _text,
    usage_of: UsageOf | None = None,
    meter: UsageMeter | None = None,
    outcome: Outcome | None = None,
) -> Iterator[Step]:
    """Yield the filter's non-empty steps for `upstream`; fill `outcome` (pass your own to read it after)."""
    run = _Run(filt, meter, text_of, usage_of)
    if outcome is not None:
        run.outcome = outcome
    iterator = iter(upstream)
    finished = False
    try:
        for item in iterator:
            step = run.take(item)
            if step.text or step.events:
                yield step
            if step.stopped:
                break
        else:
            step = run.record(filt.flush())
            yield step
        finished = True
    except GeneratorExit:
        run.finish("cancelled")
        raise
    except Exception as exc:  # the provider died mid-stream: release what was validated, then re-raise
        if not filt.stopped:
            step = run.record(filt.flush(truncated=True))
            run.finish("truncated", exc)
            if step.text or step.events:
                yield step
        raise
    finally:
        close = getattr(iterator, "close", None)
        if callable(close):
            close()
        if finished:
            run.finish()


async def adrive(
    upstream: AsyncIterable[Any],
    filt: StreamFilter,
    *,
    text_of: TextOf = _text,
    usage_of: UsageOf | None = None,
    meter: UsageMeter | None = None,
    outcome: Outcome | None = None,
) -> AsyncIterator[Step]:
    """The async twin of `drive`: closes the upstream with `aclose()` when the filter stops or we are closed."""
    run = _Run(filt, meter, text_of, usage_of)
    if outcome is not None:
        run.outcome = outcome
    iterator = upstream.__aiter__()
    finished = False
    try:
        async for item in iterator:
            step = run.take(item)
            if step.text or step.events:
                yield step
            if step.stopped:
                break
        else:
            step = run.record(filt.flush())
            yield step
        finished = True
    except (GeneratorExit, asyncio.CancelledError):
        run.finish("cancelled")
        raise
    except Exception as exc:
        if not filt.stopped:
            step = run.record(filt.flush(truncated=True))
            run.finish("truncated", exc)
            if step.text or step.events:
                yield step
        raise
    finally:
        aclose = getattr(iterator, "aclose", None)
        if callable(aclose):
            result = aclose()
            if inspect.isawaitable(result):
                await result
        if finished:
            run.finish()
