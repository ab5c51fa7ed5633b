"""Wait for the provider's first piece before committing to a 200, so an early failure keeps a real status.

Once the first byte of an SSE response is sent, the status is 200 for good and failures can only be `error`
events (FastAPI's native SSE answers 200 with an empty body when the generator fails before its first yield,
fastapi#15917). Peeking the first piece lets the endpoint answer 502 instead. The wait is bounded: a provider
that is merely slow (a reasoning model thinking) gets the stream started after `timeout` seconds, so a proxy
does not time out waiting for headers, and a later failure becomes an `error` event as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from .._closing import AsyncUpstream
from .._errors import SluicegateError


class UpstreamFailedEarly(SluicegateError):
    """The provider failed before its first piece; `__cause__` is its exception."""


async def peek_first(upstream: AsyncIterable[Any], *, timeout: float) -> AsyncIterator[Any]:
    """Return an iterator equal to `upstream` whose first piece is already awaited (for up to `timeout` s).

    Raises `UpstreamFailedEarly` (the upstream closed) if the first piece failed within the wait. Closing the
    returned iterator closes the upstream (the SDK stream object itself, `sluicegate._closing`), whether or not
    the first piece has arrived.
    """
    source = AsyncUpstream(upstream)
    first = asyncio.ensure_future(source.next())
    try:
        await asyncio.wait({first}, timeout=timeout)
    except BaseException:
        first.cancel()
        await asyncio.wait({first})
        await source.aclose()
        raise
    if first.done() and not first.cancelled():
        error = first.exception()
        if error is not None and not isinstance(error, StopAsyncIteration):
            await source.aclose()
            raise UpstreamFailedEarly(f"the provider failed before its first piece: {type(error).__name__}") from error
    return _Replay(first, source)


class _Replay:
    """The upstream with its already-awaited first piece in front. A class, not an async generator, because a
    generator that was never started ignores `aclose()`, and a response that never starts its body (the
    client left first) must still close the provider."""

    def __init__(self, first: asyncio.Future[Any], source: AsyncUpstream) -> None:
        self._first = first
        self._source = source
        self._started = False
        self._closed = False

    def __aiter__(self) -> _Replay:
        return self

    async def __anext__(self) -> Any:
        if self._closed:
            raise StopAsyncIteration
        if not self._started:
            self._started = True
            return await self._first
        return await self._source.next()

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        if not self._first.done():
            self._first.cancel()
            await asyncio.wait({self._first})
        await self._source.aclose()
