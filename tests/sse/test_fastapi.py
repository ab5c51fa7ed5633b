"""The same endpoint inside a FastAPI app (FastAPI's router is Starlette's), under uvicorn."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from starlette.requests import Request

from sluicegate.scripted import ScriptedProvider
from sluicegate.sse import SSEParser
from sluicegate_starlette import Answer, ChatRequest, gated_sse_endpoint, gated_sse_route
from tests.services.uvicorn_server import serve

from .support import INVENTED, gate


def answer(chat: ChatRequest, request: Request) -> Answer:
    return Answer(ScriptedProvider.of(INVENTED, 5).stream(), gate())


def test_route_and_endpoint_work_in_fastapi() -> None:
    app = FastAPI()
    app.router.routes.append(gated_sse_route("/chat", answer))
    app.add_route("/chat2", gated_sse_endpoint(answer), methods=["POST"])
    with serve(app) as server:
        for path in ("/chat", "/chat2"):
            with httpx.stream("POST", f"{server.url}{path}", json={"question": "fees?"}, timeout=10) as r:
                raw = b"".join(r.iter_raw())
            assert r.status_code == 200 and r.headers["x-accel-buffering"] == "no"
            parser = SSEParser()
            events = parser.feed(raw) + parser.close()
            assert [e.event for e in events][-2:] == ["guard", "done"] and b"2019" not in raw
        bad = httpx.post(f"{server.url}/chat2", json={"nope": 1}, timeout=10)
        assert bad.status_code == 422 and bad.json()["detail"]
