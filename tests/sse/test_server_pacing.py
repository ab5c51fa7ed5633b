"""The pacing of gated_events through the real Starlette adapter, under a real uvicorn, read by httpx.

The provider never suspends (every piece ready at once). An ASGI wrapper around the app records, at each body
`send` that carries a delta and at the `http.disconnect` the server receives, how many pieces the provider had
yielded then: so what is measured is what the server wrote, not what the client's socket buffered."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.services.uvicorn_server import UvicornServer, serve

from .app import make_app
from .support import GROUNDED, Eager, gate, release_points

SHORT = [GROUNDED[i : i + 3] for i in range(0, len(GROUNDED), 3)] * 5
LONG = [GROUNDED[i : i + 3] for i in range(0, len(GROUNDED), 3)] * 400


class Recording:
    """The app, with the provider's pulled count noted at each delta sent and at the disconnect received."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sent: list[int] = []
        self.at_disconnect: int | None = None
        self.lock = threading.Lock()

    def provider(self) -> Eager:
        return self.app.state.providers[-1]  # type: ignore[no-any-return]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def recording_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and b"event: delta" in message.get("body", b""):
                self.sent.append(self.provider().pulled)
            await send(message)

        async def recording_receive() -> dict[str, Any]:
            message: dict[str, Any] = await receive()
            if message["type"] == "http.disconnect" and self.at_disconnect is None and self.app.state.providers:
                self.at_disconnect = self.provider().pulled
            return message

        await self.app(scope, recording_receive, recording_send)


@pytest.fixture()
def server() -> Iterator[tuple[UvicornServer, Recording]]:
    app = Recording(make_app({"short": lambda: Eager(SHORT), "long": lambda: Eager(LONG)}))  # type: ignore[dict-item]
    with serve(app) as running:
        yield running, app


def test_each_delta_is_sent_when_the_piece_that_made_it_was_the_last_pulled(
    server: tuple[UvicornServer, Recording],
) -> None:
    running, app = server
    with httpx.stream("POST", f"{running.url}/chat", json={"question": "short"}, timeout=10) as r:
        body = b"".join(r.iter_raw())
    assert b"event: done" in body
    expected = release_points(SHORT, gate())
    assert len(expected) >= 8
    assert app.sent == expected  # not a queue's worth of pieces ahead of any frame


def test_after_the_client_disconnects_at_most_one_more_piece_is_pulled(server: tuple[UvicornServer, Recording]) -> None:
    running, app = server
    with httpx.stream("POST", f"{running.url}/chat", json={"question": "long"}, timeout=10) as r:
        for chunk in r.iter_raw():
            if b"event: delta" in chunk:
                break
    provider = app.provider()
    deadline = time.monotonic() + 10
    while not provider.closed and time.monotonic() < deadline:
        time.sleep(0.005)
    assert provider.closed and provider.pulled < len(LONG)  # the disconnect stopped it, not the end
    assert app.at_disconnect is not None
    assert provider.pulled - app.at_disconnect <= 1, (app.at_disconnect, provider.pulled)
