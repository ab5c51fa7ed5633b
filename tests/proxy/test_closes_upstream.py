"""A stop, or a client that leaves, closes the upstream at once (within one piece), streaming or not.

The upstream is the scripted provider (tests/services/llm_provider.py, Chat Completions and Anthropic) and the
scripted upstream (Responses), each under uvicorn, recording when the proxy closed its connection. Garbage
collection is off during the checks (`no_gc`): a socket closed only by a collector pass would not count.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.dialects import streams
from tests.proxy.conftest import running
from tests.proxy.upstream import Upstream, events_of
from tests.services.llm_provider import ScriptedProvider, serve_provider

pytestmark = pytest.mark.usefixtures("no_gc")
TAIL = [f" word{i}" for i in range(400)]  # what the provider would go on generating (2.4 s at 6 ms)
MAX_AFTER = 3  # pieces the upstream may write after the instant it was told to stop


@pytest.fixture(scope="module")
def provider() -> Iterator[tuple[ScriptedProvider, str]]:
    with serve_provider() as served:
        provider, url = served
        with running({}, url) as proxy:
            yield provider, proxy


def _body(dialect: str, *, stream: bool = True, sources: bool = True) -> bytes:
    body = streams.request_body(dialect, stream=stream, sources=streams.SOURCES if sources else None)
    return json.dumps(body).encode()


def _path(dialect: str) -> str:
    return {"chat": "/v1/chat/completions", "anthropic": "/v1/messages", "responses": "/v1/responses"}[dialect]


@pytest.mark.parametrize("dialect", ["chat", "anthropic"])
def test_stop_closes_the_upstream(provider: tuple[ScriptedProvider, str], dialect: str) -> None:
    scripted, url = provider
    scripted.script(streams.pieces(streams.PLANTED, 4) + TAIL)
    count = len(scripted.generations)
    with httpx.stream("POST", url + _path(dialect), content=_body(dialect), timeout=10) as r:
        raw = b"".join(r.iter_raw())
    ended = time.monotonic()
    gen = scripted.wait_started(count + 1).wait()
    assert not gen.completed and gen.disconnected is not None
    assert gen.sent_after(ended) <= MAX_AFTER
    assert len(gen.sent) < 60  # closed at the planted sentence, not after the tail
    assert (b"content_filter" if dialect == "chat" else b'"refusal"') in raw and b"2 euros" not in raw


@pytest.mark.parametrize("dialect", ["chat", "anthropic"])
def test_stop_closes_the_upstream_for_a_non_streaming_request(
    provider: tuple[ScriptedProvider, str], dialect: str
) -> None:
    scripted, url = provider
    scripted.script(streams.pieces(streams.PLANTED, 4) + TAIL)
    count = len(scripted.generations)
    r = httpx.post(url + _path(dialect), content=_body(dialect, stream=False), timeout=10)
    gen = scripted.wait_started(count + 1).wait()
    assert r.status_code == 200 and not gen.completed and len(gen.sent) < 60
    assert gen.sent_after(time.monotonic()) == 0
    payload = r.json()
    end = payload["choices"][0]["finish_reason"] if dialect == "chat" else payload["stop_reason"]
    assert end == ("content_filter" if dialect == "chat" else "refusal")


@pytest.mark.parametrize("dialect", ["chat", "anthropic"])
@pytest.mark.parametrize("held", [False, True], ids=["released", "held"])
def test_client_disconnect_closes_the_upstream(
    provider: tuple[ScriptedProvider, str], dialect: str, held: bool
) -> None:
    """`held`: the gate holds an unfinished sentence, so nothing is written: the proxy must notice the client
    leaving without a write failing (it watches for `http.disconnect`)."""
    scripted, url = provider
    scripted.script((["An unfinished sentence"] if held else ["Hello there. "]) + TAIL)
    count = len(scripted.generations)
    with httpx.stream("POST", url + _path(dialect), content=_body(dialect, sources=held), timeout=10) as r:
        chunks = r.iter_raw()  # kept: a dropped generator would close the connection at once
        if not held:
            next(chunks)
        gen = scripted.wait_started(count + 1)
        while len(gen.sent) < 5:
            time.sleep(0.002)
        left = time.monotonic()
    gen.wait()
    assert not gen.completed and gen.disconnected is not None
    assert gen.sent_after(left) <= MAX_AFTER, len(gen.sent)


def test_responses_stop_and_disconnect_close_the_upstream(upstream: Upstream) -> None:
    paced = events_of(streams.responses(streams.pieces(streams.PLANTED, 4) + TAIL))
    upstream.play(paced, interval=0.006)
    from tests.proxy.conftest import running as run

    with run({}, _upstream_url(upstream)) as url:
        count = len(upstream.seen)
        with httpx.stream("POST", url + "/v1/responses", content=_body("responses"), timeout=10) as r:
            raw = b"".join(r.iter_raw())
        ended = time.monotonic()
        seen = upstream.wait_started(count + 1).wait()
        assert not seen.completed and len(seen.sent) < 80 and sum(t > ended for t in seen.sent) <= MAX_AFTER
        assert b"response.incomplete" in raw and b"response.completed" not in raw
        with httpx.stream("POST", url + "/v1/responses", content=_body("responses", sources=False), timeout=10) as r:
            chunks = r.iter_raw()
            next(chunks)
            time.sleep(0.05)
            left = time.monotonic()
        seen = upstream.wait_started(count + 2).wait()
        assert not seen.completed and sum(t > left for t in seen.sent) <= MAX_AFTER


def _upstream_url(upstream: Upstream) -> str:
    return _URLS[id(upstream)]


_URLS: dict[int, str] = {}


@pytest.fixture(autouse=True)
def _remember(upstream_server: tuple[Upstream, str]) -> None:
    _URLS[id(upstream_server[0])] = upstream_server[1]
