"""Fixtures: the scripted upstream and the proxy, each under a real uvicorn on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest

from sluicegate_proxy import config_from, create_app
from tests.proxy.upstream import Upstream, serve_upstream
from tests.services.uvicorn_server import UvicornServer


@pytest.fixture(scope="module")
def upstream_server() -> Iterator[tuple[Upstream, str]]:
    with serve_upstream() as pair:
        yield pair


@pytest.fixture
def upstream(upstream_server: tuple[Upstream, str]) -> Upstream:
    return upstream_server[0]


@contextmanager
def running(config: dict[str, Any], url: str) -> Iterator[str]:
    server = UvicornServer(create_app(config_from(config, upstream=url)))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def proxy_url(upstream_server: tuple[Upstream, str]) -> Iterator[str]:
    """The proxy with the default configuration (passthrough auth), in front of the scripted upstream."""
    with running({}, upstream_server[1]) as url:
        yield url


@pytest.fixture
def make_proxy(upstream_server: tuple[Upstream, str]) -> Callable[[dict[str, Any]], AbstractContextManager[str]]:
    """A proxy with another configuration: `with make_proxy({...}) as url:`."""
    return lambda config: running(config, upstream_server[1])
