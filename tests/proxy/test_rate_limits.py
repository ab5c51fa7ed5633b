"""Rate limits in the proxy: per client key (or address) from `[rate_limits]`; over the limit a 429 in the
dialect's error shape with Retry-After and no upstream call; the limiter's store down, the request passes and
says so in `x-ratelimit-degraded: fail-open`; the spend cap's store down refuses (fail closed)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import httpx
import pytest

from sluicegate_proxy import ConfigError, config_from
from tests.dialects import sdk, streams
from tests.proxy.upstream import Upstream, events_of
from tests.services.ports import free_port

PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}
MakeProxy = Callable[[dict[str, Any]], AbstractContextManager[str]]
KEYS = {"upstream": {"api_key": "sk-upstream-secret"}, "auth": {"client_keys": ["team-a-key", "team-b-key"]}}


def _post(url: str, dialect: str, key: str | None = None) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return httpx.post(url + PATHS[dialect], json=streams.request_body(dialect), headers=headers, timeout=10)


@pytest.mark.parametrize("dialect", list(PATHS))
def test_over_the_limit_is_429_with_retry_after(make_proxy: MakeProxy, upstream: Upstream, dialect: str) -> None:
    with make_proxy({**KEYS, "rate_limits": {"per_minute": 2}}) as url:
        for _ in range(2):
            upstream.play(events_of(streams.BUILD[dialect](streams.pieces(streams.WITH_SECRET))))
            r = _post(url, dialect, "team-a-key")
            assert r.status_code == 200 and "x-ratelimit-degraded" not in r.headers
        count = len(upstream.seen)
        r = _post(url, dialect, "team-a-key")
        assert r.status_code == 429
        assert 1 <= int(r.headers["retry-after"]) <= 60
        payload = r.json()
        if dialect == "anthropic":
            assert payload["type"] == "error" and payload["error"]["type"] == "rate_limit_error"
        else:
            assert payload["error"]["code"] == "rate_limited"
        assert len(upstream.seen) == count  # no upstream call for a limited request
        # another key has its own bucket
        upstream.play(events_of(streams.BUILD[dialect](streams.pieces(streams.WITH_SECRET))))
        assert _post(url, dialect, "team-b-key").status_code == 200
        metrics = httpx.get(url + "/metrics", timeout=5).text
        assert 'sluicegate_proxy_refusals_total{reason="rate_limited"} 1' in metrics


def test_by_address_shares_one_bucket_across_keys(make_proxy: MakeProxy, upstream: Upstream) -> None:
    with make_proxy({**KEYS, "rate_limits": {"per_minute": 1, "by": "address"}}) as url:
        upstream.play(events_of(streams.chat(streams.pieces(streams.WITH_SECRET))))
        assert _post(url, "chat", "team-a-key").status_code == 200
        assert _post(url, "chat", "team-b-key").status_code == 429


def test_store_down_lets_through_and_says_so(make_proxy: MakeProxy, upstream: Upstream) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with make_proxy({"rate_limits": {"per_minute": 1, "store": dead}}) as url:
        for _ in range(3):  # over the limit, had the store been up
            upstream.play(events_of(streams.chat(streams.pieces(streams.WITH_SECRET))))
            r = _post(url, "chat")
            assert r.status_code == 200
            assert r.headers["x-ratelimit-degraded"] == "fail-open"
            assert sdk.chat_stream(r.content).error is None
        metrics = httpx.get(url + "/metrics", timeout=5).text
        assert 'sluicegate_proxy_refusals_total{reason="rate_limit_fail_open"} 3' in metrics


def test_spend_cap_store_down_refuses(make_proxy: MakeProxy, upstream: Upstream) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"
    config = {"budget": {"monthly_limit": "5", "store": dead, "max_output_tokens": 300, "prices": {"m": [1.0, 2.0]}}}
    with make_proxy({**config, "rate_limits": {"per_minute": 5, "store": dead}}) as url:
        count = len(upstream.seen)
        for dialect in ("chat", "anthropic", "responses"):
            r = _post(url, dialect)
            assert r.headers["x-ratelimit-degraded"] == "fail-open"  # the limiter fails open...
            seen = sdk.STREAM[dialect](r.content)
            assert seen.end == sdk.STOPPED[dialect] and seen.text  # ...the cap fails closed: the notice
        assert len(upstream.seen) == count  # and no upstream call


@pytest.mark.parametrize(
    "table",
    [
        {},
        {"per_minute": 0},
        {"per_minute": "10"},
        {"per_minute": 1, "by": "user"},
        {"per_minute": 1, "store": "mysql://x"},
        {"per_minute": 1, "burst": 3},
        {"per_minute": 1, "trusted_proxies": "10.0.0.0/8"},
    ],
)
def test_bad_rate_limit_config_is_refused_at_load(table: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        config_from({"rate_limits": table}, upstream="http://127.0.0.1:1")
