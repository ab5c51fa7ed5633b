"""Statuses and keys: 400/413/502 in the dialect's error shape, upstream errors passed through, forwarding,
the auth rules (passthrough, or client keys when the proxy holds the upstream key), /healthz and /metrics."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import anthropic
import httpx
import openai
import pytest

from tests.dialects import streams
from tests.proxy.conftest import running
from tests.proxy.upstream import Upstream, events_of
from tests.services.ports import free_port

PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}
MakeProxy = Callable[[dict[str, Any]], AbstractContextManager[str]]


def _shape(dialect: str, payload: dict[str, Any]) -> str:
    """The error's code/type as the dialect writes it (and proof of the shape)."""
    if dialect == "anthropic":
        assert payload["type"] == "error"
        return str(payload["error"]["type"])
    return str(payload["error"]["code"])


@pytest.mark.parametrize("dialect", list(PATHS))
def test_malformed_json_is_400_in_the_dialect_shape(proxy_url: str, upstream: Upstream, dialect: str) -> None:
    count = len(upstream.seen)
    r = httpx.post(proxy_url + PATHS[dialect], content=b'{"model": "m", "messages": [', timeout=5)
    assert r.status_code == 400
    assert _shape(dialect, r.json()) in ("invalid_json", "invalid_request_error")
    r = httpx.post(proxy_url + PATHS[dialect], json={"model": "m", "sluicegate": {"sources": "not a list"}}, timeout=5)
    assert r.status_code == 400
    assert len(upstream.seen) == count  # nothing went upstream


def test_sdk_sees_400_as_bad_request(proxy_url: str) -> None:
    client = openai.OpenAI(api_key="k", base_url=proxy_url + "/v1", max_retries=0)
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="m", messages=[], extra_body={"sluicegate": {"bogus": 1}})
    ac = anthropic.Anthropic(api_key="k", base_url=proxy_url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError):
        ac.messages.create(
            model="m",
            max_tokens=5,
            messages=[{"role": "user", "content": "x"}],
            extra_body={"sluicegate": {"language": "xx"}},
        )


@pytest.mark.parametrize("dialect", list(PATHS))
def test_body_over_the_limit_is_413(make_proxy: MakeProxy, dialect: str) -> None:
    with make_proxy({"limits": {"max_body_bytes": 2000}}) as url:
        body = streams.request_body(dialect, question="x" * 3000)
        r = httpx.post(url + PATHS[dialect], json=body, timeout=5)
        assert r.status_code == 413
        assert _shape(dialect, r.json()) in ("request_too_large",)
        assert httpx.post(url + PATHS[dialect], content=b"{", timeout=5).status_code == 400  # under it: read


@pytest.mark.parametrize("dialect", list(PATHS))
def test_unreachable_upstream_is_502(dialect: str) -> None:
    with running({}, f"http://127.0.0.1:{free_port()}") as url:
        r = httpx.post(url + PATHS[dialect], json=streams.request_body(dialect), timeout=10)
        assert r.status_code == 502
        assert _shape(dialect, r.json()) in ("upstream_unreachable", "api_error")


@pytest.mark.parametrize("status", [401, 429, 500])
def test_upstream_errors_pass_through(proxy_url: str, upstream: Upstream, status: int) -> None:
    payload = json.dumps({"error": {"message": "nope", "type": "x", "code": f"c{status}"}}).encode()
    upstream.play([payload], status=status, content_type="application/json")
    r = httpx.post(proxy_url + PATHS["chat"], json=streams.request_body("chat"), timeout=5)
    assert r.status_code == status and r.content == payload


def test_other_paths_are_forwarded_unchanged(proxy_url: str, upstream: Upstream) -> None:
    models = json.dumps({"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "x"}]})
    upstream.play([models.encode()], content_type="application/json")
    client = openai.OpenAI(api_key="client-key", base_url=proxy_url + "/v1", max_retries=0)
    assert [m.id for m in client.models.list()] == ["m"]
    assert upstream.last.method == "GET" and upstream.last.path == "/v1/models"
    assert upstream.last.headers["authorization"] == "Bearer client-key"  # passthrough


def test_passthrough_auth_sends_the_client_header_unchanged(proxy_url: str, upstream: Upstream) -> None:
    upstream.play(events_of(streams.anthropic(["Hi. "])))
    anthropic.Anthropic(api_key="client-anthropic-key", base_url=proxy_url, max_retries=0).messages.create(
        model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}]
    )
    assert upstream.last.headers["x-api-key"] == "client-anthropic-key"


def test_upstream_key_requires_client_keys(make_proxy: MakeProxy, upstream: Upstream) -> None:
    config = {"upstream": {"api_key": "sk-upstream-secret"}, "auth": {"client_keys": ["team-a-key-123"]}}
    with make_proxy(config) as url:
        body = streams.request_body("chat")
        for headers in ({}, {"authorization": "Bearer wrong-key-000"}):
            count = len(upstream.seen)
            r = httpx.post(url + PATHS["chat"], json=body, headers=headers, timeout=5)
            assert r.status_code == 401 and len(upstream.seen) == count  # never an open relay
        assert httpx.get(url + "/v1/models", timeout=5).status_code == 401
        upstream.play(events_of(streams.chat(["Hi. "])))
        r = httpx.post(url + PATHS["chat"], json=body, headers={"authorization": "Bearer team-a-key-123"}, timeout=5)
        assert r.status_code == 200
        assert upstream.last.headers["authorization"] == "Bearer sk-upstream-secret"
        upstream.play(events_of(streams.anthropic(["Hi. "])))
        r = httpx.post(
            url + PATHS["anthropic"],
            json=streams.request_body("anthropic"),
            headers={"x-api-key": "team-a-key-123"},
            timeout=5,
        )
        assert r.status_code == 200
        assert (
            upstream.last.headers["x-api-key"] == "sk-upstream-secret" and "authorization" not in upstream.last.headers
        )


def test_config_refuses_an_open_relay() -> None:
    from sluicegate_proxy import ConfigError, config_from

    with pytest.raises(ConfigError):
        config_from({"upstream": {"api_key": "sk-x"}}, upstream="http://x")
    with pytest.raises(ConfigError):
        config_from({"auth": {"client_keys": ["team-a-key-123"]}}, upstream="http://x")
    with pytest.raises(ConfigError):
        config_from({"bogus": {}}, upstream="http://x")


def test_healthz_and_metrics(proxy_url: str, upstream: Upstream) -> None:
    upstream.play(events_of(streams.chat(streams.pieces(streams.WITH_SECRET))))
    httpx.post(proxy_url + PATHS["chat"], json=streams.request_body("chat"), timeout=5)
    assert httpx.get(proxy_url + "/healthz", timeout=5).json() == {"status": "ok"}
    text = httpx.get(proxy_url + "/metrics", timeout=5).text
    assert 'sluicegate_proxy_redactions_total{entity="OPENAI_KEY"}' in text
    assert "sluicegate_proxy_added_latency_seconds_bucket" in text
    assert streams.SECRET not in text


def test_start_up_warm_up_is_not_counted(make_proxy: Any, upstream: Upstream) -> None:
    """The proxy runs one answer of each pipeline through the core at start-up (so that the first request does
    not pay for imports): it asks no upstream and shows in no counter."""
    before = len(upstream.seen)
    with make_proxy({}) as url:
        text = httpx.get(url + "/metrics", timeout=5).text
    samples = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert samples and all(line.startswith("sluicegate_proxy_") for line in samples)
    assert not [line for line in samples if float(line.rsplit(" ", 1)[1]) != 0]
    assert not [line for line in samples if "_total{" in line]
    assert len(upstream.seen) == before


def test_more_streams_than_httpx_pools_by_default_all_reach_the_upstream(proxy_url: str, upstream: Upstream) -> None:
    """Each guarded stream holds an upstream connection while it lasts: 110 at once all reach the upstream at
    once (httpx's default pool, 100 connections, would hold the 101st request until another stream ended)."""
    upstream.play(events_of(streams.chat(streams.pieces("Held open."))), interval=2.0)
    before = len(upstream.seen)
    body = streams.request_body("chat")

    async def run() -> None:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=0)
        async with httpx.AsyncClient(timeout=30, limits=limits) as client:

            async def one() -> None:
                async with client.stream("POST", proxy_url + PATHS["chat"], json=body) as r:
                    assert r.status_code == 200
                    await asyncio.sleep(30)  # held open (cancelled once all have reached the upstream)

            tasks = [asyncio.ensure_future(one()) for _ in range(110)]
            try:
                await asyncio.to_thread(upstream.wait_started, before + 110, 10.0)  # the streams' first write: 2 s
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())
    assert len(upstream.seen) - before == 110
    spread = max(s.started for s in upstream.seen[before:]) - min(s.started for s in upstream.seen[before:])
    assert spread < 2.0


def test_an_operator_can_cap_the_upstream_connections(make_proxy: Any, upstream: Upstream) -> None:
    """`[upstream] max_connections` bounds the streams held upstream at once (no cap by default, above): with 2,
    a third concurrent stream does not reach the upstream while the first two are held."""
    upstream.play(events_of(streams.chat(streams.pieces("Held open."))), interval=2.0)
    body = streams.request_body("chat")
    with make_proxy({"upstream": {"max_connections": 2}}) as url:
        before = len(upstream.seen)

        async def run() -> int:
            async with httpx.AsyncClient(timeout=30) as client:

                async def one() -> None:
                    async with client.stream("POST", url + PATHS["chat"], json=body) as r:
                        await r.aread()

                tasks = [asyncio.ensure_future(one()) for _ in range(3)]
                try:
                    await asyncio.to_thread(upstream.wait_started, before + 2, 10.0)
                    await asyncio.sleep(1.0)
                    return len(upstream.seen) - before
                finally:
                    for t in tasks:
                        t.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)

        assert asyncio.run(run()) == 2


@pytest.mark.parametrize("bad", [0, -1, True, "8", 2.5])
def test_a_bad_upstream_connection_cap_fails_at_start(bad: object) -> None:
    from sluicegate_proxy import ConfigError, config_from

    with pytest.raises(ConfigError, match="max_connections"):
        config_from({"upstream": {"url": "http://x", "max_connections": bad}})
    assert config_from({"upstream": {"url": "http://x"}}).upstream_max_connections is None
    with pytest.raises(ConfigError, match="max_conections"):  # a misspelt cap is no silent "no cap"
        config_from({"upstream": {"url": "http://x", "max_conections": 8}})
    assert config_from({"upstream": {"url": "http://x", "max_connections": 8}}).upstream_max_connections == 8


def test_logs_carry_no_text(proxy_url: str, upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG", logger="sluicegate.proxy")
    upstream.play(events_of(streams.chat(streams.pieces(streams.WITH_SECRET))))
    body = streams.request_body("chat", question="my secret question")
    httpx.post(proxy_url + PATHS["chat"], json=body, headers={"authorization": "Bearer client-key-xyz"}, timeout=5)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "answer ended" in logged
    for secret in (streams.SECRET, "secret question", "client-key-xyz", "Hello there"):
        assert secret not in logged
