"""The endpoint behind a real nginx with `proxy_buffering` at its default (on)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from sluicegate.sse import SSEParser
from tests.services.nginx import Nginx
from tests.services.uvicorn_server import UvicornServer, serve

from .app import make_app


@pytest.fixture(scope="module")
def app_server() -> Iterator[UvicornServer]:
    with serve(make_app(ping_interval=5.0)) as running:
        yield running


def first_delta_pieces(url: str, app: Any) -> int:
    """Pieces the provider had produced when the first `delta` frame reached the client, for the "held"
    script: it produces two pieces (the second releases the first sentence) and then nothing until it is
    closed, so a proxy that buffers never delivers that delta at all (the read times out)."""
    parser = SSEParser()
    with httpx.stream("POST", f"{url}/chat", json={"question": "held"}, timeout=10) as r:
        assert r.status_code == 200
        for chunk in r.iter_raw():
            if any(event.event == "delta" for event in parser.feed(chunk)):
                provider = app.state.providers[-1]
                produced = provider.produced
                break
        else:
            raise AssertionError("the stream ended without a delta")
    assert wait_for_closed(provider), "leaving did not close the held provider"
    return int(produced)


def wait_for_closed(provider: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not provider.closed and time.monotonic() < deadline:
        time.sleep(0.005)
    return bool(provider.closed)


def test_first_delta_arrives_through_nginx_as_soon_as_directly(
    app_server: UvicornServer, nginx_proxy: Callable[[int], Nginx]
) -> None:
    """Measured in pieces, not seconds: the first delta must arrive through nginx while the provider is still
    silent after the piece that released it, exactly as it does directly (no wall-clock margin to flake)."""
    proxy = nginx_proxy(app_server.port)
    app = app_server.server.config.app
    assert first_delta_pieces(app_server.url, app) == 2
    assert first_delta_pieces(proxy.url, app) == 2


def test_a_disconnect_through_nginx_closes_the_upstream(
    app_server: UvicornServer, nginx_proxy: Callable[[int], Nginx]
) -> None:
    proxy = nginx_proxy(app_server.port)
    app = app_server.server.config.app
    before = len(app.state.outcomes)
    with httpx.stream("POST", f"{proxy.url}/chat", json={"question": "held"}, timeout=10) as r:
        for chunk in r.iter_raw():
            if b"event: delta" in chunk:
                break
        provider = app.state.providers[-1]
    # the provider sends nothing more: only nginx passing on the client's FIN can close it
    assert wait_for_closed(provider) and not provider.exhausted and provider.produced == 2
    deadline = time.monotonic() + 10.0
    while len(app.state.outcomes) == before and time.monotonic() < deadline:
        time.sleep(0.005)
    assert app.state.outcomes[-1].reason == "cancelled"
