"""The spend cap in the proxy (SQLite store): reserved before the upstream call, settled once with the
upstream's reported usage (else the byte estimate) on every end; over the cap, a refusal in the stop shape
and no upstream call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sluicegate_proxy import config_from, create_app

from tests.dialects import sdk, streams
from tests.proxy.upstream import Upstream, events_of
from tests.services.uvicorn_server import UvicornServer

PRICES = {"m": [1.0, 2.0]}  # dollars per million tokens (input, output)


@contextmanager
def capped(url: str, store: Path, limit: str) -> Iterator[tuple[str, Any]]:
    config = {
        "budget": {"monthly_limit": limit, "store": f"sqlite:///{store}", "max_output_tokens": 300, "prices": PRICES}
    }
    app = create_app(config_from(config, upstream=url))
    server = UvicornServer(app)
    server.start()
    try:
        yield server.url, app.state.proxy.cap
    finally:
        server.stop()


def _totals(cap: Any) -> Any:
    from sluicegate.budget import utc_month

    return cap.store.totals("default", utc_month(time.time()), now=time.time())


@pytest.mark.parametrize("dialect", ["chat", "anthropic", "responses"])
def test_settled_with_the_upstream_usage(upstream_server: tuple[Upstream, str], tmp_path: Path, dialect: str) -> None:
    upstream, url = upstream_server
    with capped(url, tmp_path / "spend.sqlite3", "5") as (proxy, cap):
        upstream.play(events_of(streams.BUILD[dialect](streams.pieces(streams.WITH_SECRET))))
        path = {"chat": "/v1/chat/completions", "anthropic": "/v1/messages", "responses": "/v1/responses"}[dialect]
        r = httpx.post(proxy + path, json=streams.request_body(dialect), timeout=10)
        assert r.status_code == 200
        sent = upstream.last.json
        cap_field = {"chat": "max_completion_tokens", "anthropic": "max_tokens", "responses": "max_output_tokens"}
        assert sent[cap_field[dialect]] <= 300  # called with the output cap the reservation holds
        totals = _totals(cap)
        assert totals.reserved == 0  # settled, nothing left held
        assert totals.committed == 11 * 1_000 + 23 * 2_000  # nano-dollars: 11 input, 23 output tokens billed


def test_over_the_cap_refuses_without_an_upstream_call(upstream_server: tuple[Upstream, str], tmp_path: Path) -> None:
    upstream, url = upstream_server
    with capped(url, tmp_path / "spend.sqlite3", "0.0000001") as (proxy, cap):
        count = len(upstream.seen)
        for dialect, path in (("chat", "/v1/chat/completions"), ("anthropic", "/v1/messages")):
            r = httpx.post(proxy + path, json=streams.request_body(dialect), timeout=10)
            seen = sdk.STREAM[dialect](r.content)
            assert seen.end == sdk.STOPPED[dialect] and seen.text and seen.error is None
        assert len(upstream.seen) == count
        assert _totals(cap).committed == 0


def test_stopped_answer_settles_the_estimate(upstream_server: tuple[Upstream, str], tmp_path: Path) -> None:
    upstream, url = upstream_server
    with capped(url, tmp_path / "spend.sqlite3", "5") as (proxy, cap):
        upstream.play(events_of(streams.chat(streams.pieces(streams.PLANTED))), interval=0.002)
        body = streams.request_body("chat", sources=streams.SOURCES)
        r = httpx.post(proxy + "/v1/chat/completions", json=body, timeout=10)
        assert sdk.chat_stream(r.content).end == "content_filter"
        upstream.last.wait()
        deadline = time.time() + 5
        while _totals(cap).reserved and time.time() < deadline:
            time.sleep(0.01)
        totals = _totals(cap)
        assert totals.reserved == 0 and totals.committed > 0  # no usage reported: the byte estimate was charged
