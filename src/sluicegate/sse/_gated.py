"""`gated_events`: an async upstream of text pieces, through a filter, out as SSE frames (asyncio, no framework).

The loop is `adrive`'s (one loop for every adapter): it closes the upstream when the filter stops, when the
provider fails (a truncation), and when the reader has gone (`is_disconnected`, checked at every upstream piece
and at every ping). What this adds is the wire format and the keep-alive:

- `event: delta` `{"text": ...}` for released text; `event: guard` `{"reasons": [...], "notice": ...}`;
- `event: error` `{"code": ..., "message": <fixed text>}` when the provider or the filter fails after the first
  byte (the status is already 200): never a traceback, never held text;
- exactly one final `event: done` `{"reason": ..., "usage": {...}}`, the usage being what was *generated*
  (billed), not what was shown, so a cancelled stream is billed for its partial output;
- `: ping` after `ping_interval` seconds without a frame (idle-only, as the spec suggests, about every 15 s).

The driver runs in one pump task for the whole stream (so a provider's context variables stay in one context),
at most one step ahead of the writer: it hands over one step, then waits until the writer has taken it before
it pulls the next upstream piece. So the writer writes each step before the pump runs again (an upstream that
never suspends, an SDK iterating events already in its buffer, would otherwise fill a queue before the writer
ran, delaying every frame by that much and billing a reader who left for the pieces pulled ahead), and while a
write is held up (a slow reader) the pump makes the next step, no more. The writer waits on the pump with the
ping timeout.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

from .._driver import FALLBACK_NOTICE, Outcome, UsageOf, _text, adrive
from .._stream import Guard, Step, StreamFilter
from .._usage import UsageMeter
from ._encode import encode_comment, encode_event
from ._parser import DEFAULT_MAX_EVENT_BYTES

log = logging.getLogger("sluicegate.sse")

PING = encode_comment("ping")
DEFAULT_PING_INTERVAL = 15.0
# Characters of released text per `delta` frame: even if JSON escapes every one (6 bytes for a control
# character), the frame stays under a default reader's limit. A longer step goes out as several deltas.
DELTA_CHARS = DEFAULT_MAX_EVENT_BYTES // 8

# Fixed texts: an error event must not carry exception messages (they can quote the prompt or held text).
ERROR_MESSAGES = {
    "upstream_error": "The answer was cut off because the model provider failed.",
    "filter_error": "The answer was stopped because the guard failed.",
}


@dataclass(frozen=True)
class _End:
    error: Exception | None = None


OnClosed = Callable[[Outcome], None | Awaitable[None]]


async def _pump(
    steps: AsyncGenerator[Step, None],
    queue: asyncio.Queue[Step | _End],
    taken: asyncio.Event,
    outcome: Outcome,
    on_closed: OnClosed | None,
) -> None:
    try:
        async for step in steps:
            taken.clear()
            await queue.put(step)
            await taken.wait()  # the next upstream piece is pulled only once the writer has this step
    except Exception as exc:  # reported as an `error` frame by the writer; the driver already closed the upstream
        await queue.put(_End(exc))
    else:
        await queue.put(_End())
    finally:
        # Here, in the pump's own task, so the upstream is closed even when the writer is being cancelled (an
        # anyio cancel scope cancels every await of the writer's task until it exits).
        await steps.aclose()
        if on_closed is not None:
            try:
                result = on_closed(outcome)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("on_closed hook failed")


async def _get(queue: asyncio.Queue[Step | _End], timeout: float) -> Step | _End:
    async with asyncio.timeout(timeout):  # a timer handle, not a task per item as wait_for makes on 3.11
        return await queue.get()


def _frames(step: Step, outcome: Outcome) -> list[bytes]:
    frames: list[bytes] = []
    for start in range(0, len(step.text), DELTA_CHARS):
        frames.append(encode_event("delta", {"text": step.text[start : start + DELTA_CHARS]}))
    guards = [e for e in step.events if isinstance(e, Guard)]
    if step.stopped and not guards and outcome.guard is None:
        guards = [Guard((), FALLBACK_NOTICE)]  # a stop never ends silently mid-sentence
    for guard in guards:
        frames.append(encode_event("guard", {"reasons": list(guard.reasons), "notice": guard.notice}))
    return frames


def done_frame(outcome: Outcome) -> bytes:
    """The final frame: the end reason and the billed usage."""
    usage = asdict(outcome.usage) if outcome.usage is not None else None
    return encode_event("done", {"reason": outcome.reason or "cancelled", "usage": usage})


def error_frame(code: str) -> bytes:
    return encode_event("error", {"code": code, "message": ERROR_MESSAGES[code]})


async def gated_events(
    upstream: AsyncIterable[Any],
    filter: StreamFilter,
    *,
    meter: UsageMeter | None = None,
    ping_interval: float = DEFAULT_PING_INTERVAL,
    is_disconnected: Callable[[], Awaitable[bool]] | None = None,
    outcome: Outcome | None = None,
    text_of: Callable[[Any], str] = _text,
    usage_of: UsageOf | None = None,
    on_closed: OnClosed | None = None,
) -> AsyncIterator[bytes]:
    """Yield SSE frames for `upstream` gated by `filter`; fill `outcome` (pass your own to read it after).

    Closing this generator (the server saw the client go) closes the upstream and ends the outcome `cancelled`.
    `on_closed(outcome)` (sync or async) runs once the upstream is closed and the outcome complete, on every
    end, including a cancelled writer: record usage or settle a spend cap there. It runs in the pump task, so
    the writer's cancellation does not cut it short.
    """
    if not ping_interval > 0:
        raise ValueError("ping_interval must be > 0 seconds")
    out = outcome if outcome is not None else Outcome()
    steps = adrive(
        upstream, filter, meter=meter, outcome=out, is_cancelled=is_disconnected, text_of=text_of, usage_of=usage_of
    )
    queue: asyncio.Queue[Step | _End] = asyncio.Queue(maxsize=1)
    taken = asyncio.Event()  # set by the writer as it takes a step: the pump may make the next one
    pump = asyncio.ensure_future(_pump(steps, queue, taken, out, on_closed))
    ended = False  # the pump sent its end: it is closing the upstream and running on_closed, not to be cut short
    try:
        while True:
            try:
                item = queue.get_nowait() if not queue.empty() else await _get(queue, ping_interval)
            except TimeoutError:
                if is_disconnected is not None and await is_disconnected():
                    break  # the finally closes the upstream; `done` says `cancelled`
                yield PING
                continue
            if isinstance(item, _End):
                ended = True
                if item.error is not None:
                    code = "upstream_error" if out.reason == "truncated" else "filter_error"
                    log.warning("gated stream failed after the first byte: %s (%s)", code, type(item.error).__name__)
                    yield error_frame(code)
                break
            taken.set()
            for frame in _frames(item, out):
                yield frame
    finally:
        if not ended and not pump.done():
            pump.cancel()  # the driver ends `cancelled` and closes the upstream, in the pump task
        await asyncio.wait({pump})
    yield done_frame(out)
