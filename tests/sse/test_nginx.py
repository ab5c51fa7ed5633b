"""The endpoint behind a real nginx with `proxy_buffering` at its default (on)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

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


def first_delta_after(url: str, question: str) -> tuple[float, list[str]]:
    """Seconds from sending the request to the first `delta` frame, and the events seen overall."""
    parser = SSEParser()
    names: list[str] = []
    start = time.monotonic()
    first = float("inf")
    with httpx.stream("POST", f"{url}/chat", json={"question": question}, timeout=20) as r:
        assert r.status_code == 200
        for chunk in r.iter_raw():
            for event in parser.feed(chunk):
                names.append(event.event)
                if event.event == "delta" and first == float("inf"):
                    first = time.monotonic() - start
    return first, names


def test_first_delta_arrives_through_nginx_as_soon_as_directly(
    app_server: UvicornServer, nginx_proxy: Callable[[int], Nginx]
) -> None:
    proxy = nginx_proxy(app_server.port)
    direct, direct_names = first_delta_after(app_server.url, "slow")
    proxied, proxied_names = first_delta_after(proxy.url, "slow")
    # "slow" sends one sentence every 0.3 s over 1.8 s; the gate releases the first when the second starts
    # (~0.6 s): a buffered stream would show its first delta only at the end
    assert proxied < direct + 0.25, (direct, proxied)
    assert proxied < 1.5, (direct, proxied)
    assert proxied_names == direct_names and proxied_names[-1] == "done"


def test_a_disconnect_through_nginx_closes_the_upstream(
    app_server: UvicornServer, nginx_proxy: Callable[[int], Nginx]
) -> None:
    proxy = nginx_proxy(app_server.port)
    app = app_server.server.config.app
    before = len(app.state.outcomes)
    with httpx.stream("POST", f"{proxy.url}/chat", json={"question": "long"}, timeout=20) as r:
        for chunk in r.iter_raw():
            if b"event: delta" in chunk:
                break
        provider = app.state.providers[-1]
        produced_at_close = provider.produced
    deadline = time.monotonic() + 3.0
    while not provider.closed and time.monotonic() < deadline:
        time.sleep(0.005)
    assert provider.closed and not provider.exhausted
    assert provider.produced <= produced_at_close + 2  # nginx notices the client's FIN, then closes upstream
    while len(app.state.outcomes) == before and time.monotonic() < deadline:
        time.sleep(0.005)
    assert app.state.outcomes[-1].reason == "cancelled"
