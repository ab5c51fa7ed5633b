"""The adapter contract for the Starlette endpoint: `gated_sse_route` and `capped_sse_route` under a real
uvicorn, read by a real HTTP client (httpx) and our SSE parser; only the model is scripted."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request

from sluicegate import SentenceGate
from sluicegate._driver import NOTICE_SEPARATOR
from sluicegate.scripted import ScriptedProvider
from sluicegate.sse import SSEParser
from sluicegate_starlette import Answer, ChatRequest, capped_sse_route, gated_sse_route
from tests.adapter_contract import AdapterContract, Case, Ran
from tests.call.helpers import SOURCES
from tests.services.uvicorn_server import UvicornServer


class _Server:
    """One app for the case being run: the capped route when the case has a budget, else the plain one."""

    def __init__(self) -> None:
        self.case: Case | None = None
        self.providers: list[ScriptedProvider] = []
        self.lock = threading.Lock()
        self.servers: dict[int, UvicornServer] = {}

    def answer(self, chat: ChatRequest, request: Request) -> Answer:
        case = self.case
        assert case is not None
        provider = ScriptedProvider(
            case.pieces, fail_at=case.fail_at, delay=0.01 if case.leave_after is not None else 0.0
        )
        with self.lock:
            self.providers.append(provider)
        return Answer(provider.stream(), SentenceGate(SOURCES))

    def url(self, case: Case) -> str:
        key = id(case.budget)
        if key not in self.servers:
            if case.budget is None:
                route = gated_sse_route("/chat", self.answer)
            else:
                route = capped_sse_route(
                    "/chat", self.answer, cap=case.budget, prompt_of=lambda chat, request: ["system", *SOURCES]
                )
            server = UvicornServer(Starlette(routes=[route]))
            server.start()
            self.servers[key] = server
        return self.servers[key].url

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()


class TestStarletteContract(AdapterContract):
    settle_wait = 3.0  # the settle runs as the response closes, beside the last frame's write

    @pytest.fixture(autouse=True)
    def _server(self) -> Iterator[None]:
        self.server = _Server()
        yield
        self.server.stop()

    def run(self, case: Case) -> Ran:
        server = self.server
        server.case = case
        before = len(server.providers)
        shown: list[str] = []
        parser = SSEParser()
        with httpx.stream("POST", f"{server.url(case)}/chat", json={"question": "q"}, timeout=10) as response:
            assert response.status_code == 200
            for chunk in response.iter_raw():
                events = parser.feed(chunk)
                shown += [_shown(e.event, json.loads(e.data)) for e in events if e.event in ("delta", "guard")]
                if case.leave_after is not None and len(shown) >= case.leave_after:
                    break  # the reader closes the tab
        opened = server.providers[before:]
        if opened and (case.leave_after is not None):
            _wait(lambda: opened[0].closed)
        text = "".join(s for s in shown if not s.startswith("\0"))
        notices = [s[1:] for s in shown if s.startswith("\0")]
        if notices:
            text = text + NOTICE_SEPARATOR + notices[0] if text else notices[0]
        return Ran(
            shown=text,
            model_calls=len(opened),
            closed=all(p.closed for p in opened),
            produced=sum(p.produced for p in opened),
        )


def _shown(event: str, data: Any) -> str:
    """A delta's text, or a guard's notice marked with a NUL (set apart as `drive_text` does)."""
    return data["text"] if event == "delta" else "\0" + data["notice"]


def _wait(predicate: Any, timeout: float = 3.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.005)
