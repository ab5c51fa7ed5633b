"""`GatedSSEResponse`: a gated answer as an SSE response, on sse-starlette's `EventSourceResponse`.

Why sse-starlette underneath, checked rule by rule (docs/sse.md has the table): it watches for the client's
disconnect *while* the body waits (Starlette's own `StreamingResponse` skips that watch on ASGI 2.4 servers and
then learns of a gone client only when a write fails), it `aclose()`s the body on a failed or timed-out send,
and it has a per-send timeout for a client that stopped reading. Where it falls short we override: its headers
(`Cache-Control: no-store` only, plus a hop-by-hop `Connection` that HTTP/2 forbids) are replaced by
`SSE_HEADERS`; its pings (periodic, even while frames flow) are off, and `gated_events` sends idle-only ones,
checking for a disconnect at each; errors after the first byte become `error` events in `gated_events`.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from sse_starlette.sse import EventSourceResponse
from starlette.types import Receive, Scope, Send

from sluicegate import Outcome, StreamFilter, UsageMeter
from sluicegate.host import UsageOf, aclose_now
from sluicegate.sse import DEFAULT_PING_INTERVAL, SSE_HEADERS, gated_events

OnDone = Callable[[Outcome], "Awaitable[None] | None"]

DEFAULT_SEND_TIMEOUT = 30.0  # a client that has not taken a frame in 30 s is treated as gone


class GatedSSEResponse(EventSourceResponse):
    """Stream `upstream` through `filter` as SSE frames (`delta`, `guard`, `error`, one `done`).

    A client that leaves stops the provider at once: sse-starlette's disconnect watch (it reads every ASGI
    message) cancels the writer, and `gated_events` checks the same watch's flag at every upstream piece and
    every ping. A flag read, not `request.is_disconnected()`: that polls `receive()` from a second task while
    the watch is already waiting on it, and costs an anyio cancel scope per piece. `on_done(outcome)` runs on
    every end, after the upstream is closed, with the billed usage: settle a spend cap or record usage there.
    """

    def __init__(
        self,
        upstream: AsyncIterable[Any],
        filter: StreamFilter,
        *,
        meter: UsageMeter | None = None,
        outcome: Outcome | None = None,
        on_done: OnDone | None = None,
        usage_of: UsageOf | None = None,
        ping_interval: float = DEFAULT_PING_INTERVAL,
        send_timeout: float | None = DEFAULT_SEND_TIMEOUT,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.outcome = outcome if outcome is not None else Outcome()
        self._upstream = upstream
        self._meter = meter
        self._on_done = on_done
        body = gated_events(
            upstream,
            filter,
            meter=meter,
            ping_interval=ping_interval,
            is_disconnected=self._client_gone,
            outcome=self.outcome,
            usage_of=usage_of,
            on_closed=on_done,
        )
        self._body = _Body(body)
        super().__init__(self._body, headers={**SSE_HEADERS, **(headers or {})}, ping=0, send_timeout=send_timeout)
        del self.headers["connection"]  # hop-by-hop: meaningless to a proxy, malformed in HTTP/2

    async def _client_gone(self) -> bool:
        return not self.active  # sse-starlette sets it False when it receives http.disconnect

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if not self._body.started:
                # The body never ran (the client left before it started, or a HEAD request): an async
                # generator that never started ignores aclose(), so close the provider and settle here.
                with anyio.CancelScope(shield=True):
                    await aclose_now(self._upstream)  # an SDK stream too: its awaitable close()
                    self.outcome.reason = "cancelled"
                    self.outcome.usage = (self._meter or UsageMeter()).usage
                    if self._on_done is not None:
                        result = self._on_done(self.outcome)
                        if inspect.isawaitable(result):
                            await result


class _Body:
    """The frame stream, remembering whether anyone started reading it."""

    def __init__(self, frames: AsyncIterator[bytes]) -> None:
        self._frames = frames
        self.started = False

    def __aiter__(self) -> _Body:
        return self

    async def __anext__(self) -> bytes:
        self.started = True
        return await self._frames.__anext__()

    async def aclose(self) -> None:
        aclose = getattr(self._frames, "aclose", None)
        if aclose is not None:
            await aclose()
