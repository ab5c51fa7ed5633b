"""The HTTP responses a guarded stream's upstream opened, so a stop closes them where the framework does not.

Why: some frameworks iterate the SDK stream and never close it. LlamaIndex's OpenAI LLM
(`llama-index-llms-openai`) does `for response in client.chat.completions.create(..., stream=True)` in a
generator; LangChain's Anthropic chat model does `for event in stream` without a `with`. Closing their
generator (which the drivers do at once) then leaves the SDK stream, and its HTTP response, open until a
garbage-collector pass, and the provider generates and bills all the while (measured: up to the whole answer).

How: every official client of the providers we support (OpenAI, Anthropic, litellm, LangChain's and LlamaIndex's
models built on them, NeMo's own OpenAI-compatible client) sends through `httpx.Client.send` /
`httpx.AsyncClient.send`. Those two methods are wrapped once, when a guarded stream first pulls and httpx is
loaded. The wrapper calls the original and, only while a driver is pulling its upstream (a `ContextVar` set
around each pull, so threads, tasks and concurrent streams stay apart) and only for a streamed response
(`stream=True`), records the response with that stream. The driver closes what it recorded when it closes the
upstream. Outside a pull the wrapper is one `ContextVar.get()` and a call-through. `SLUICEGATE_TRACK_HTTP=0`
in the environment turns it off (then a framework that never closes its SDK stream keeps generating until GC).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_ACTIVE: ContextVar[OpenResponses | None] = ContextVar("sluicegate_open_responses", default=None)
_installed = False


class OpenResponses:
    """Streamed HTTP responses opened while one upstream was being pulled; `close()`/`aclose()` close them."""

    def __init__(self) -> None:
        self._responses: list[Any] = []

    def add(self, response: Any) -> None:
        self._responses = [r for r in self._responses if not getattr(r, "is_closed", False)]
        self._responses.append(response)

    def __len__(self) -> int:
        return sum(1 for r in self._responses if not getattr(r, "is_closed", False))

    @contextmanager
    def pulling(self) -> Iterator[None]:
        """Record the streamed responses opened in this block (around one pull of the upstream)."""
        if not _installed:
            _install()
        token = _ACTIVE.set(self)
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    def close(self) -> None:
        """Close the sync responses (an async one cannot be closed from sync code: it is left to its stream)."""
        responses, self._responses = self._responses, []
        for response in responses:
            if not getattr(response, "is_closed", True) and callable(getattr(response, "close", None)):
                response.close()

    async def aclose(self) -> None:
        responses, self._responses = self._responses, []
        for response in responses:
            if getattr(response, "is_closed", True):
                continue
            aclose = getattr(response, "aclose", None)
            if callable(aclose) and _is_async_response(response):
                await aclose()
                from ._closing import close_transport

                close_transport(response)  # litellm's aiohttp transport only released it
            elif callable(getattr(response, "close", None)):
                response.close()


def _is_async_response(response: Any) -> bool:
    httpx = sys.modules.get("httpx")
    stream = getattr(response, "stream", None)
    return httpx is not None and isinstance(stream, httpx.AsyncByteStream)


def _install() -> None:
    """Wrap `httpx.Client.send` and `httpx.AsyncClient.send` once (if httpx is loaded and tracking is on)."""
    global _installed
    httpx = sys.modules.get("httpx")
    if httpx is None:
        return  # no SDK loaded yet: nothing to track; tried again at the next pull
    _installed = True
    if os.environ.get("SLUICEGATE_TRACK_HTTP", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    sync_send = httpx.Client.send
    async_send = httpx.AsyncClient.send
    if getattr(sync_send, "_sluicegate", False):
        return

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = sync_send(self, request, *args, **kwargs)
        active = _ACTIVE.get()
        if active is not None and kwargs.get("stream"):
            active.add(response)
        return response

    async def asend(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = await async_send(self, request, *args, **kwargs)
        active = _ACTIVE.get()
        if active is not None and kwargs.get("stream"):
            active.add(response)
        return response

    for wrapper, original in ((send, sync_send), (asend, async_send)):
        wrapper.__doc__ = original.__doc__
        setattr(wrapper, "__wrapped__", original)  # noqa: B010 - a function attribute mypy does not know
        setattr(wrapper, "_sluicegate", True)  # noqa: B010
    httpx.Client.send = send
    httpx.AsyncClient.send = asend
