"""Rate limits and the spend cap on the SSE endpoint, under a real uvicorn, read by a real HTTP client (httpx).

Real SQLite store for the cap, real redis-server (or a dead port) for the limiter; only the model is scripted.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request

from sluicegate._notices import notice
from sluicegate.budget import DEGRADED_HEADER, CallBudget, Price, RateLimits, RedisStore, SpendCap, SQLiteStore
from sluicegate.budget._bound import prompt_tokens_bound
from sluicegate.scripted import ScriptedProvider
from sluicegate.sse import SSEEvent, SSEParser
from sluicegate_starlette import Answer, ChatRequest, capped_sse_route
from tests.budget.helpers import SlowStore, redis_client
from tests.services.ports import free_port
from tests.services.uvicorn_server import UvicornServer

from .support import GROUNDED, SOURCES, gate

PRICE = Price("1", "2")
SYSTEM = "Answer only from the numbered sources.\n\n" + "\n\n".join(SOURCES)


def prompt_of(chat: ChatRequest, request: Request) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, *chat.history, {"role": "user", "content": chat.question}]


class App:
    """A capped endpoint over scripted providers; remembers every provider it opened."""

    def __init__(self, tmp_path: Path, *, monthly: str = "1", limits: RateLimits | None = None) -> None:
        self.cap = CallBudget(SpendCap(SQLiteStore(tmp_path / "spend.db"), monthly, {"m": PRICE}), "m", 512)
        self.providers: list[ScriptedProvider] = []
        self.lock = threading.Lock()

        def answer(chat: ChatRequest, request: Request) -> Answer:
            size, delay = (4, 0.01) if chat.question == "long" else (6, 0.0)
            provider = ScriptedProvider.of(GROUNDED * (10 if chat.question == "long" else 1), size, delay=delay)
            with self.lock:
                self.providers.append(provider)
            return Answer(provider.stream(), gate())

        route = capped_sse_route("/chat", answer, cap=self.cap, prompt_of=prompt_of, limits=limits, ping_interval=0.3)
        self.app = Starlette(routes=[route])


@contextmanager
def serve(app: Starlette) -> Iterator[UvicornServer]:
    """uvicorn with its own X-Forwarded-For handling off: uvicorn trusts the header from 127.0.0.1 by default
    (proxy_headers, forwarded_allow_ips) and would rewrite the peer before RateLimits sees it. Trusted proxies
    belong in one place; here it is RateLimits(trusted_proxies=...)."""
    server = UvicornServer(app)
    server.server.config.proxy_headers = False
    server.start()
    try:
        yield server
    finally:
        server.stop()


def post(url: str, question: str, headers: dict[str, str] | None = None, **body: Any):
    with httpx.stream("POST", f"{url}/chat", json={"question": question, **body}, headers=headers, timeout=10) as r:
        raw = b"".join(r.iter_raw())
    parser = SSEParser()
    events: list[SSEEvent] = parser.feed(raw) + parser.close() if r.status_code == 200 else []
    return r, events, raw


def wait_for(predicate: Any, timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.005)
    return bool(predicate())


def input_bound(question: str) -> int:
    return prompt_tokens_bound([{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])[0]


def test_admitted_answer_is_settled_at_what_was_generated(tmp_path: Path) -> None:
    app = App(tmp_path)
    with serve(app.app) as server:
        r, events, _ = post(server.url, "grounded")
    assert r.status_code == 200 and events[-1].event == "done"
    done = json.loads(events[-1].data)
    assert done["reason"] == "complete"
    generated = done["usage"]["output_tokens"]
    assert generated == len(GROUNDED.encode())
    # The settle runs as the stream closes, beside the last frame's write: the reader may see `done` first.
    assert wait_for(lambda: app.cap.cap.totals().reserved == 0)
    totals = app.cap.cap.totals()
    assert totals.reserved == 0 and totals.committed == PRICE.cost(input_bound("grounded"), generated)


def test_refused_is_a_notice_in_the_readers_language_and_no_provider_opens(tmp_path: Path) -> None:
    app = App(tmp_path, monthly="0")
    with serve(app.app) as server:
        r, events, _ = post(server.url, "grounded", language="fr-CA")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert [e.event for e in events] == ["guard", "done"]
    assert json.loads(events[0].data) == {"reasons": ["monthly_limit"], "notice": notice("fr", "monthly_limit")}
    assert json.loads(events[1].data)["reason"] == "refused"
    assert app.providers == [] and app.cap.cap.stats.refused_limit == 1


def test_a_client_that_leaves_is_charged_for_what_was_generated_only(tmp_path: Path) -> None:
    app = App(tmp_path)
    with serve(app.app) as server:
        with httpx.stream("POST", f"{server.url}/chat", json={"question": "long"}, timeout=10) as r:
            for chunk in r.iter_raw():
                if b"event: delta" in chunk:
                    break  # the reader closes the tab
        assert wait_for(lambda: app.providers and app.providers[0].closed)
        assert wait_for(lambda: app.cap.cap.totals().reserved == 0)
    provider = app.providers[0]
    assert not provider.exhausted
    generated = len("".join(provider.pieces[: provider.produced]).encode())
    assert app.cap.cap.totals().committed == PRICE.cost(input_bound("long"), generated)


def test_rate_limited_is_429_with_retry_after_and_a_spoofed_header_changes_nothing(tmp_path: Path) -> None:
    limits = RateLimits(SQLiteStore(tmp_path / "rl.db"), per_minute=2)
    app = App(tmp_path, limits=limits)
    with serve(app.app) as server:
        results = [post(server.url, "grounded", {"X-Forwarded-For": f"198.51.100.{i}"}) for i in range(3)]
    codes = [r for r, _, _ in results]
    assert [r.status_code for r in codes] == [200, 200, 429]
    refused = codes[2]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert json.loads(results[2][2])["error"]["code"] == "rate_limited" and len(app.providers) == 2
    assert DEGRADED_HEADER not in codes[0].headers


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(tmp_path: Path) -> None:
    limits = RateLimits(SQLiteStore(tmp_path / "rl.db"), per_minute=1, trusted_proxies=["127.0.0.1"])
    app = App(tmp_path, limits=limits)
    with serve(app.app) as server:
        a1 = post(server.url, "grounded", {"X-Forwarded-For": "198.51.100.1"})[0]
        b1 = post(server.url, "grounded", {"X-Forwarded-For": "198.51.100.2"})[0]
        a2 = post(server.url, "grounded", {"X-Forwarded-For": "6.6.6.6, 198.51.100.1"})[0]  # spoofed left part
    assert (a1.status_code, b1.status_code, a2.status_code) == (200, 200, 429)


def test_limiter_store_down_passes_says_so_in_a_header_and_counts(tmp_path: Path) -> None:
    limits = RateLimits(RedisStore(redis_client(f"redis://127.0.0.1:{free_port()}/0")), per_minute=1)
    app = App(tmp_path, limits=limits)
    with serve(app.app) as server:
        responses = [post(server.url, "grounded")[0] for _ in range(3)]
    assert [r.status_code for r in responses] == [200, 200, 200]
    assert all(r.headers[DEGRADED_HEADER] == "fail-open" for r in responses)
    assert limits.failed_open == 3


def test_limiter_on_real_redis_limits_and_the_cap_still_holds(tmp_path: Path, redis_server) -> None:
    limits = RateLimits(RedisStore(redis_client(redis_server.url), prefix="sse-rl"), per_minute=1)
    app = App(tmp_path, limits=limits)
    with serve(app.app) as server:
        first, second = post(server.url, "grounded")[0], post(server.url, "grounded")[0]
    assert (first.status_code, second.status_code) == (200, 429)


def test_a_slow_spend_store_does_not_stall_the_server_for_other_readers(tmp_path: Path) -> None:
    """The cap's store calls are blocking I/O (SQLite busy waits, Redis socket timeouts): run on the event loop
    they would freeze every other request and stream of the server until the store answers."""
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    store = SlowStore(SQLiteStore(tmp_path / "spend.db"))
    cap = CallBudget(SpendCap(store, "1", {"m": PRICE}), "m", 512)

    def answer(chat: ChatRequest, request: Request) -> Answer:
        return Answer(ScriptedProvider.of(GROUNDED, 6).stream(), gate())

    app = Starlette(
        routes=[
            capped_sse_route("/chat", answer, cap=cap, prompt_of=prompt_of, ping_interval=0.3),
            Route("/ping", lambda request: PlainTextResponse("pong")),
        ]
    )
    results: list[Any] = []
    with serve(app) as server:
        waiting = threading.Thread(target=lambda: results.append(post(server.url, "grounded")[0]))
        waiting.start()
        try:
            assert store.entered.wait(5)
            # The loop must still serve others while a reservation waits on its store (released at most
            # 10 s later either way, so a blocked loop fails this read's timeout instead of hanging).
            pong = httpx.get(f"{server.url}/ping", timeout=5)
        finally:
            store.release.set()
            waiting.join(10)
    assert pong.text == "pong"
    assert results and results[0].status_code == 200


def test_a_store_outage_refuses_with_the_same_frames_as_a_full_cap(tmp_path: Path) -> None:
    """Why the cap refused is server-side (call.refused: violations are never shown): a reader must not learn
    that the spend store is down, only that the monthly limit is reached."""
    cap = CallBudget(SpendCap(SQLiteStore(tmp_path / "missing-dir" / "spend.db"), "1", {"m": PRICE}), "m", 512)
    opened: list[int] = []

    def answer(chat: ChatRequest, request: Request) -> Answer:
        opened.append(1)
        return Answer(ScriptedProvider.of(GROUNDED, 6).stream(), gate())

    app = Starlette(routes=[capped_sse_route("/chat", answer, cap=cap, prompt_of=prompt_of, ping_interval=0.3)])
    with serve(app) as server:
        r, events, _ = post(server.url, "grounded")
    assert r.status_code == 200 and [e.event for e in events] == ["guard", "done"]
    assert json.loads(events[0].data) == {"reasons": ["monthly_limit"], "notice": notice("en", "monthly_limit")}
    assert opened == [] and cap.cap.stats.refused_store == 1
