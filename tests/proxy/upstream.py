"""A scripted upstream for the proxy tests: a raw ASGI app on a real uvicorn that writes the bytes it is told
to, one write per piece at a paced rate, and records each request (path, headers, body) and when its client
left. What it records is what a provider would see: a waiter on `receive()` gets `http.disconnect` the moment
the proxy closes its connection, and the writing stops there.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from tests.services.uvicorn_server import UvicornServer


@dataclass
class Script:
    pieces: Sequence[bytes] = ()
    interval: float = 0.0
    status: int = 200
    content_type: str = "text/event-stream"


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    started: float
    sent: list[float] = field(default_factory=list)
    disconnected: float | None = None
    completed: bool = False
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def wait(self, timeout: float = 10.0) -> Seen:
        if not self.done.wait(timeout):
            raise TimeoutError(f"the upstream was still writing after {timeout}s ({len(self.sent)} pieces)")
        return self


def events_of(stream: bytes) -> list[bytes]:
    """The stream cut into one piece per SSE event (each with its blank line)."""
    return [block + b"\n\n" for block in stream.split(b"\n\n") if block]


class Upstream:
    def __init__(self) -> None:
        self.script = Script()
        self.seen: list[Seen] = []
        self._new = threading.Condition()

    def play(
        self,
        pieces: Sequence[bytes],
        *,
        interval: float = 0.0,
        status: int = 200,
        content_type: str = "text/event-stream",
    ) -> None:
        self.script = Script(list(pieces), interval, status, content_type)

    @property
    def last(self) -> Seen:
        return self.seen[-1]

    def wait_started(self, count: int, timeout: float = 10.0) -> Seen:
        with self._new:
            if not self._new.wait_for(lambda: len(self.seen) >= count, timeout):
                raise TimeoutError("no request reached the upstream")
        return self.seen[count - 1]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        seen = Seen(scope["method"], scope["path"], headers, body, time.monotonic())
        with self._new:
            self.seen.append(seen)
            self._new.notify_all()
        script = self.script
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                if (await receive())["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.ensure_future(watch())
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": script.status,
                    "headers": [(b"content-type", script.content_type.encode())],
                }
            )
            for piece in script.pieces:
                if script.interval:
                    with suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(gone.wait(), script.interval)
                if gone.is_set():
                    break
                await send({"type": "http.response.body", "body": piece, "more_body": True})
                seen.sent.append(time.monotonic())
            else:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                seen.completed = True
        except OSError:
            pass
        finally:
            if not seen.completed:
                seen.disconnected = time.monotonic()
            watcher.cancel()
            seen.done.set()


@contextmanager
def serve_upstream() -> Iterator[tuple[Upstream, str]]:
    upstream = Upstream()
    server = UvicornServer(upstream)
    server.start()
    try:
        yield upstream, server.url
    finally:
        server.stop()
