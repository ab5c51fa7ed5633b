"""The endpoint under a real uvicorn on a loopback port, read by a real HTTP client (httpx)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sluicegate.scripted import ScriptedProvider
from sluicegate.sse import SSE_HEADERS, SSEEvent, SSEParser
from tests.services.uvicorn_server import UvicornServer, serve

from .app import SCRIPTS, make_app
from .support import delta_text, payloads


@pytest.fixture(scope="module")
def server() -> Iterator[UvicornServer]:
    with serve(make_app(ping_interval=0.3)) as running:
        yield running


def providers(server: UvicornServer) -> list[ScriptedProvider]:
    return server.server.config.app.state.providers  # type: ignore[no-any-return]


def wait_for(predicate: Any, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return bool(predicate())


def post(server: UvicornServer, question: str, **body: Any) -> tuple[httpx.Response, list[SSEEvent], bytes]:
    with httpx.stream("POST", f"{server.url}/chat", json={"question": question, **body}, timeout=10) as r:
        raw = b"".join(r.iter_raw())
    parser = SSEParser()
    return r, parser.feed(raw) + parser.close(), raw


def test_headers_are_the_preset_and_nothing_is_compressed(server: UvicornServer) -> None:
    r, events, _ = post(server, "grounded")
    assert r.status_code == 200
    for name, value in SSE_HEADERS.items():
        assert r.headers[name] == value
    assert "content-encoding" not in r.headers and "connection" not in r.headers
    assert events[-1].event == "done"


def test_grounded_answer_streams_and_ends_complete(server: UvicornServer) -> None:
    _, events, _ = post(server, "grounded")
    assert delta_text(events).startswith("The library opens at 9:00 on weekdays.")
    name, done = payloads(events)[-1]
    assert name == "done" and done["reason"] == "complete" and done["usage"]["source"] == "estimate"


def test_invented_value_never_on_the_wire(server: UvicornServer) -> None:
    _, events, raw = post(server, "invented")
    assert b"2019" not in raw
    names = [e.event for e in events]
    assert names[-2:] == ["guard", "done"] and json.loads(events[-1].data)["reason"] == "stopped"


def test_frames_arrive_as_the_gate_releases_them(server: UvicornServer) -> None:
    """One piece per sentence, 0.3 s apart: each sentence must reach the client while the provider is still
    producing the next ones, not at the end."""
    seen: list[tuple[int, int]] = []  # (deltas so far, pieces the provider had produced then)
    parser = SSEParser()
    with httpx.stream("POST", f"{server.url}/chat", json={"question": "slow"}, timeout=10) as r:
        for chunk in r.iter_raw():
            for event in parser.feed(chunk):
                if event.event == "delta":
                    seen.append((len(seen) + 1, providers(server)[-1].produced))
    total = len(SCRIPTS["slow"]().pieces)
    assert seen and seen[0][1] < total  # the first sentence arrived before generation ended
    # the gate settles a sentence when the next piece starts, so sentence k arrives by piece k+1
    assert all(produced <= k + 1 for k, produced in seen[:-1]), seen


def test_pings_on_an_idle_upstream(server: UvicornServer) -> None:
    parser = SSEParser()
    got: list[bytes] = []
    with httpx.stream("POST", f"{server.url}/chat", json={"question": "idle"}, timeout=10) as r:
        started = time.monotonic()
        for chunk in r.iter_raw():
            got.append(chunk)
            if b"".join(got).count(b": ping\n\n") >= 2:
                break
        elapsed = time.monotonic() - started
    assert elapsed < 3.0
    assert parser.feed(b"".join(got)) == []  # pings are comments; the held sentence is not released early
    provider = providers(server)[-1]
    assert wait_for(lambda: provider.closed) and provider.produced == 1  # our leaving closed the idle provider


def test_client_closing_mid_stream_closes_the_upstream_within_one_piece(server: UvicornServer) -> None:
    outcomes = server.server.config.app.state.outcomes
    before = len(outcomes)
    with httpx.stream("POST", f"{server.url}/chat", json={"question": "long"}, timeout=10) as r:
        for chunk in r.iter_raw():
            if b"event: delta" in chunk:
                break
        provider = providers(server)[-1]
        produced_at_close = provider.produced
    assert wait_for(lambda: provider.closed, 2.0)
    assert not provider.exhausted and provider.produced <= produced_at_close + 1
    assert wait_for(lambda: len(outcomes) > before)
    outcome = outcomes[-1]
    assert outcome.reason == "cancelled" and outcome.usage is not None
    assert outcome.usage.pieces == provider.produced  # billed for what was generated


def test_failure_after_first_byte_is_an_error_event(server: UvicornServer) -> None:
    r, events, raw = post(server, "fail_late")
    assert r.status_code == 200
    assert [e.event for e in events][-2:] == ["error", "done"]
    assert json.loads(events[-2].data)["code"] == "upstream_error"
    assert json.loads(events[-1].data)["reason"] == "truncated"
    assert b"Traceback" not in raw and b"connection reset" not in raw


@pytest.mark.parametrize("question", ["fail_early", "raise"])
def test_provider_failing_before_its_first_piece_is_502_json(server: UvicornServer, question: str) -> None:
    outcomes = server.server.config.app.state.outcomes
    before = len(outcomes)
    r = httpx.post(f"{server.url}/chat", json={"question": question}, timeout=10)
    assert r.status_code == 502 and r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == "upstream_error"
    assert "reset" not in r.text and "reach" not in r.text
    assert wait_for(lambda: len(outcomes) > before) and outcomes[-1].reason == "truncated"  # settled too


@pytest.mark.parametrize(
    ("content", "headers", "status"),
    [
        (b"{not json", {"content-type": "application/json"}, 422),
        (b'{"language": "en"}', {"content-type": "application/json"}, 422),  # question missing
        (b'{"question": 3}', {"content-type": "application/json"}, 422),
        (b'{"question": "grounded", "history": [{"role": "system", "content": "x"}]}', {}, 422),
        (b'{"question": "grounded", "extra": 1}', {}, 422),
        (b"\xff\xfe", {"content-type": "application/json"}, 422),
        (b'{"question": "grounded"}', {"content-type": "text/plain"}, 415),
        (b'{"question": "' + b"x" * 70_000 + b'"}', {"content-type": "application/json"}, 413),
    ],
)
def test_errors_before_the_first_byte_keep_their_status(
    server: UvicornServer, content: bytes, headers: dict[str, str], status: int
) -> None:
    r = httpx.post(f"{server.url}/chat", content=content, headers=headers, timeout=10)
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json" and r.json()["detail"]
    assert "x" * 100 not in r.text  # the submitted values are not echoed back


def test_oversized_chunked_body_without_content_length_is_413(server: UvicornServer) -> None:
    def body() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    r = httpx.post(f"{server.url}/chat", content=body(), headers={"content-type": "application/json"}, timeout=10)
    assert r.status_code == 413 and "content-length" not in r.request.headers


def test_before_upstream_hook_answers_without_opening_the_provider() -> None:
    async def budget(request: Request, chat: Any) -> Response | None:
        if chat.question == "invented":
            return JSONResponse({"error": {"code": "rate_limited"}}, status_code=429, headers={"Retry-After": "7"})
        return None

    app = make_app(before_upstream=budget)
    with serve(app) as running:
        r = httpx.post(f"{running.url}/chat", json={"question": "invented"}, timeout=10)
        assert r.status_code == 429 and r.headers["retry-after"] == "7"
        assert app.state.providers == []  # no provider was opened, nothing was spent
        _, events, _ = post(running, "grounded")
        assert events[-1].event == "done" and len(app.state.providers) == 1


def test_starlette_gzip_with_its_default_exclusions_leaves_the_stream_alone() -> None:
    with serve(make_app(middleware=[Middleware(GZipMiddleware, minimum_size=1)])) as running:
        with httpx.stream(
            "POST", f"{running.url}/chat", json={"question": "grounded"}, headers={"accept-encoding": "gzip"}
        ) as r:
            raw = b"".join(r.iter_raw())
        assert r.status_code == 200 and "content-encoding" not in r.headers and raw.startswith(b"event: ")


def test_a_compressing_middleware_is_refused_with_a_clear_message() -> None:
    middleware = [Middleware(GZipMiddleware, minimum_size=1, exclude_content_types=())]
    with serve(make_app(middleware=middleware)) as running:
        r = httpx.post(
            f"{running.url}/chat", json={"question": "grounded"}, headers={"accept-encoding": "gzip"}, timeout=10
        )
    assert r.status_code == 500
    error = r.json()["error"]
    assert error["code"] == "compression_middleware" and "GZipMiddleware" in error["message"]


def test_sse_starlette_alone_misses_the_header_preset() -> None:
    """Why GatedSSEResponse overrides sse-starlette's headers: on its own it sends `Cache-Control: no-store`
    (no no-cache, no no-transform) and a hop-by-hop `Connection` header."""
    from sse_starlette.sse import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.routing import Route

    async def bare(request: Request) -> Response:
        async def frames() -> Any:
            yield {"event": "delta", "data": "{}"}

        return EventSourceResponse(frames())

    with serve(Starlette(routes=[Route("/bare", bare, methods=["POST"])])) as running:
        r = httpx.post(f"{running.url}/bare", timeout=10)
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["connection"] == "keep-alive"


def test_client_module_is_served_as_javascript(server: UvicornServer) -> None:
    r = httpx.get(f"{server.url}/sluicegate-client.js", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert "export function streamAnswer" in r.text and "TextDecoder" in r.text


def test_a_body_that_never_starts_still_closes_the_provider_and_settles() -> None:
    """sse-starlette answers HEAD without touching the body: the provider must be closed all the same."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    from sluicegate import Outcome
    from sluicegate_starlette import GatedSSEResponse

    from .support import GROUNDED, gate

    provider = ScriptedProvider.of(GROUNDED, 5)
    settled: list[Outcome] = []

    async def page(request: Request) -> Response:
        return GatedSSEResponse(provider.stream(), gate(), on_done=settled.append)

    with serve(Starlette(routes=[Route("/answer", page, methods=["GET"])])) as running:
        r = httpx.head(f"{running.url}/answer", timeout=10)
        assert r.status_code == 200 and r.headers["content-type"] == SSE_HEADERS["Content-Type"]
        assert wait_for(lambda: bool(settled))
    assert settled[0].reason == "cancelled" and provider.produced == 0


def test_the_demo_runs_as_one_command() -> None:
    """`python examples/sse_server.py --port N` serves the page, the client module and a gated stream."""
    import subprocess
    import sys
    from pathlib import Path

    from tests.services.ports import free_port, wait_listening

    port = free_port()
    script = Path(__file__).resolve().parents[2] / "examples" / "sse_server.py"
    proc = subprocess.Popen(
        [sys.executable, str(script), "--port", str(port), "--delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(port, timeout=20)
        base = f"http://127.0.0.1:{port}"
        page = httpx.get(f"{base}/", timeout=10).text
        assert 'id="stop"' in page or "id=stop" in page
        assert "sluicegate-client.js" in page and httpx.get(f"{base}/sluicegate-client.js").status_code == 200
        r = httpx.post(f"{base}/chat", json={"question": "Are there late fees?"}, timeout=10)
        assert b"event: guard" in r.content and b"2019" not in r.content
    finally:
        proc.terminate()
        proc.wait(timeout=10)
