"""How to read a provider's stream object, and how to close it: the knowledge the drivers use on every stop.

Closing is what cancels the provider request (and the bill), and closing the wrong object does nothing:

- the OpenAI SDK's `Stream`: `iter()` returns a fresh generator, closing that leaves the HTTP response open, and
  the stream refers to itself (its `_iterator` generator holds `self`), so dropping every reference does not
  close the socket either, only a garbage-collector pass does. The object's own `close()` closes the response;
- the async SDK streams (OpenAI's, Anthropic's `AsyncStream` and `AsyncMessageStream`) have an awaitable
  `close()` and no `aclose()`;
- Anthropic's `messages.stream(...)` returns a stream *manager*: a context manager, not an iterable; entering
  it sends the request, exiting it closes the response;
- litellm's `CustomStreamWrapper` is its own iterator; its `close()`/`aclose()` close its `completion_stream`.
  Its async OpenAI path sends through litellm's aiohttp transport, where closing the httpx response only
  *releases* the aiohttp response: aiohttp keeps the connection and goes on reading the provider's stream into
  its buffer (measured: the provider generated the whole answer). The aiohttp response itself is closed too.

So an upstream is opened as an `Upstream`/`AsyncUpstream` that keeps the object itself, the iterator read from
it, and the entered manager, and closes all three (each once, the iterator first). On top, the responses that
`sluicegate._responses` saw opened while this upstream was being read are closed: a framework that iterates an
SDK stream without ever closing it (LlamaIndex's OpenAI LLM, LangChain's Anthropic chat model) leaves them open.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from . import _responses
from ._responses import OpenResponses

OnUnread = Callable[[list[str]], None]


def _is_manager_only(obj: Any) -> bool:
    return not hasattr(obj, "__iter__") and callable(getattr(obj, "__enter__", None))


def _is_amanager_only(obj: Any) -> bool:
    return not hasattr(obj, "__aiter__") and callable(getattr(obj, "__aenter__", None))


def close_now(obj: Any) -> None:
    """`obj.close()` if it has one (a generator, an SDK stream, litellm's wrapper). An awaitable result (an async
    stream closed from sync code) cannot be awaited here: it is discarded without a "never awaited" warning."""
    close = getattr(obj, "close", None)
    if callable(close):
        result = close()
        if inspect.iscoroutine(result):
            result.close()


async def aclose_now(obj: Any) -> None:
    """`await obj.aclose()` if it has one (async generators, litellm's wrapper), else `obj.close()`, awaited when
    it returns an awaitable (the OpenAI and Anthropic async streams have an awaitable `close()` and no `aclose()`)."""
    close = getattr(obj, "aclose", None)
    if not callable(close):
        close = getattr(obj, "close", None)
    if callable(close):
        result = close()
        if inspect.isawaitable(result):
            await result


def _responses_of(parts: list[Any]) -> list[Any]:
    """The HTTP responses under `parts` (an SDK stream's `.response`; litellm's wrapper's `completion_stream`),
    read before closing, since litellm's close drops its `completion_stream`."""
    found: list[Any] = []
    for part in parts:
        for obj in (part, getattr(part, "completion_stream", None)):
            response = getattr(obj, "response", None) if obj is not None else None
            if response is not None and hasattr(response, "stream"):
                found.append(response)
    return found


def close_transport(response: Any) -> None:
    """Close the aiohttp response under an httpx response from litellm's aiohttp transport (see above): httpx's
    own close releases it, which leaves the connection reading. A no-op for any other response."""
    inner = getattr(getattr(response, "stream", None), "_stream", None)
    aio = getattr(inner, "_aiohttp_response", None)
    close = getattr(aio, "close", None)
    if callable(close):
        close()


def _distinct(*objs: Any) -> list[Any]:
    out: list[Any] = []
    for obj in objs:
        if obj is not None and all(obj is not seen for seen in out):
            out.append(obj)
    return out


def count_unread(tracked: list[Any], on_unread: OnUnread | None) -> None:
    """Hand `on_unread` the text deltas delivered to this machine but not read from each response still open,
    just before it is closed (issue 22: usage of a stopped stream is never below what the provider generated).
    Fail-safe: any error here is swallowed, since counting must never prevent the close."""
    if on_unread is None:
        return
    try:
        seen: list[Any] = []
        for response in tracked:
            if getattr(response, "is_closed", True) or any(response is r for r in seen):
                continue
            seen.append(response)
            pieces = _responses.unread_text(_responses.unread_bytes(response))
            if pieces:
                on_unread(pieces)
    except Exception:  # noqa: S110 - an estimate that failed is no reason to leave the provider generating
        pass


class Upstream:
    """A sync upstream opened for reading: `next()` pulls one item, `close()` closes everything it opened.

    Each pull runs with this upstream's `OpenResponses` active, so an HTTP response a framework opens for it is
    recorded and closed here too. Closing is idempotent; the first error of a close is re-raised after every
    part was tried.
    """

    def __init__(self, upstream: Any, on_unread: OnUnread | None = None) -> None:
        self._on_unread = on_unread
        self._exit: Any = None
        stream = upstream
        if _is_manager_only(upstream):  # Anthropic's MessageStreamManager: entering it opens the stream
            stream = upstream.__enter__()
            self._exit = upstream.__exit__
        self._parts = _distinct(None, stream, upstream)
        self.responses = OpenResponses()
        with self.responses.pulling():
            self._iterator: Iterator[Any] = iter(stream)
        self._parts.insert(0, self._iterator)
        self._parts = _distinct(*self._parts)
        self.closed = False

    def next(self) -> Any:
        """The next item; `StopIteration` at the end."""
        with self.responses.pulling():
            return next(self._iterator)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        count_unread([*self.responses.tracked(), *_responses_of(self._parts)], self._on_unread)
        error: BaseException | None = None
        for part in self._parts:
            try:
                close_now(part)
            except Exception as exc:  # try every part: one failing close must not leave the others open
                error = error or exc
        if self._exit is not None:
            try:
                self._exit(None, None, None)
            except Exception as exc:
                error = error or exc
        try:
            self.responses.close()
        except Exception as exc:
            error = error or exc
        if error is not None:
            raise error


class AsyncUpstream:
    """The async twin of `Upstream`: `await next()` (`StopAsyncIteration` at the end), `await aclose()`.

    An async stream manager (Anthropic's `AsyncMessageStreamManager`) is entered at the first pull, since
    entering it is awaited.
    """

    def __init__(self, upstream: Any, on_unread: OnUnread | None = None) -> None:
        self._on_unread = on_unread
        self._upstream = upstream
        self._manager: Any = upstream if _is_amanager_only(upstream) else None
        self._entered = self._manager is None
        self.responses = OpenResponses()
        self._iterator: AsyncIterator[Any] | None = None
        self._parts: list[Any] = []
        if self._entered:
            with self.responses.pulling():
                self._iterator = upstream.__aiter__()
            self._parts = _distinct(self._iterator, upstream)
        self.closed = False

    async def _enter(self) -> AsyncIterator[Any]:
        stream = await self._manager.__aenter__()
        self._entered = True
        self._iterator = stream.__aiter__()
        self._parts = _distinct(self._iterator, stream)
        return self._iterator

    async def next(self) -> Any:
        with self.responses.pulling():
            iterator = self._iterator if self._iterator is not None else await self._enter()
            return await iterator.__anext__()

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        error: BaseException | None = None
        responses = _responses_of(self._parts)
        count_unread([*self.responses.tracked(), *responses], self._on_unread)
        for part in self._parts:
            try:
                await aclose_now(part)
            except RuntimeError as exc:
                # an async generator being read right now in another task refuses aclose(); the response
                # underneath is still closed below
                error = error or exc
            except Exception as exc:
                error = error or exc
        if self._manager is not None and self._entered:
            try:
                await self._manager.__aexit__(None, None, None)
            except Exception as exc:
                error = error or exc
        try:
            await self.responses.aclose()
            for response in responses:
                close_transport(response)
        except Exception as exc:
            error = error or exc
        if error is not None:
            raise error
