"""Targets for `sluicegate conform` in tests and the proxy benchmark: small Starlette forwarders to an upstream.

- `passthrough_app(upstream)`: forwards bytes unchanged (the leaky baseline, and the benchmark's bare
  httpx→Starlette passthrough).
- `per_chunk_app(upstream)`: redacts each text delta on its own, as the guardrails that check one chunk at a
  time do: a whole value in one delta is caught, a value split across two deltas passes.
- `guard_app(upstream)`: Chat Completions only, our streaming `Redactor` over the joined deltas, a stop ends the
  stream with the notice, `finish_reason: "content_filter"` and `[DONE]`, and closes the upstream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from sluicegate import Guard, Redactor, redact
from sluicegate.sse import SSEParser

_FORWARD = ("authorization", "x-api-key", "anthropic-version", "content-type", "x-replay")


def _app(upstream: str, handle: Callable[[httpx.AsyncClient, str, bytes, dict[str, str]], Any]) -> Starlette:
    client = httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=1000, max_keepalive_connections=200))

    async def endpoint(request: Request) -> Response:
        path = request.url.path.removeprefix("/v1")
        headers = {k: v for k, v in request.headers.items() if k in _FORWARD}
        return await handle(client, upstream.rstrip("/") + path, await request.body(), headers)  # type: ignore[no-any-return]

    return Starlette(routes=[Route("/v1/{path:path}", endpoint, methods=["GET", "POST"])])


async def _open(client: httpx.AsyncClient, url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    req = client.build_request("POST", url, content=body, headers=headers)
    return await client.send(req, stream=True)


def passthrough_app(upstream: str) -> Starlette:
    async def handle(client: httpx.AsyncClient, url: str, body: bytes, headers: dict[str, str]) -> Response:
        r = await _open(client, url, body, headers)
        ctype = r.headers.get("content-type", "application/json")
        return StreamingResponse(
            r.aiter_raw(), status_code=r.status_code, media_type=ctype, background=BackgroundTask(r.aclose)
        )

    return _app(upstream, handle)


def _frame(event: str, data: str) -> bytes:
    return (f"event: {event}\n" if event else "").encode() + f"data: {data}\n\n".encode()


def _redact_payload(p: dict[str, Any]) -> dict[str, Any]:
    """Each text-bearing field of one frame or body redacted on its own (the per-chunk way)."""
    for choice in p.get("choices") or []:
        for part in ("delta", "message"):
            if isinstance(choice.get(part), dict) and isinstance(choice[part].get("content"), str):
                choice[part]["content"] = redact(choice[part]["content"])
    for key in ("delta", "text"):
        if isinstance(p.get(key), str):
            p[key] = redact(p[key])
    if isinstance(p.get("delta"), dict) and isinstance(p["delta"].get("text"), str):
        p["delta"]["text"] = redact(p["delta"]["text"])
    for block in p.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            block["text"] = redact(block["text"])
    for item in (p.get("response") or p).get("output") or []:
        for part in item.get("content") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = redact(part["text"])
    if isinstance(p.get("item"), dict):
        _redact_payload({"output": [p["item"]]})
    if isinstance(p.get("part"), dict) and isinstance(p["part"].get("text"), str):
        p["part"]["text"] = redact(p["part"]["text"])
    return p


def per_chunk_app(upstream: str) -> Starlette:
    async def handle(client: httpx.AsyncClient, url: str, body: bytes, headers: dict[str, str]) -> Response:
        r = await _open(client, url, body, headers)
        if "event-stream" not in r.headers.get("content-type", ""):
            data = await r.aread()
            await r.aclose()
            return JSONResponse(_redact_payload(json.loads(data)), status_code=r.status_code)

        async def frames() -> AsyncIterator[bytes]:
            parser = SSEParser()
            async for chunk in r.aiter_raw():
                for e in parser.feed(chunk):
                    if e.data.strip() == "[DONE]":
                        yield _frame(e.event, e.data)
                    else:
                        yield _frame(e.event, json.dumps(_redact_payload(json.loads(e.data))))

        return StreamingResponse(frames(), media_type="text/event-stream", background=BackgroundTask(r.aclose))

    return _app(upstream, handle)


def _chunk(content: str | None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    payload = {
        "id": "chatcmpl-guard",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "guard",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload)}\n\n".encode()


def guard_app(upstream: str) -> Starlette:
    async def handle(client: httpx.AsyncClient, url: str, body: bytes, headers: dict[str, str]) -> Response:
        if not url.endswith("/chat/completions"):
            return JSONResponse({"error": {"message": "this test guard speaks Chat Completions only"}}, 404)
        r = await _open(client, url, body, headers)
        if r.status_code != 200:
            data = await r.aread()
            await r.aclose()
            return Response(data, status_code=r.status_code, media_type="application/json")
        if "event-stream" not in r.headers.get("content-type", ""):
            whole = json.loads(await r.aread())
            await r.aclose()
            message = whole["choices"][0]["message"]
            message["content"] = redact(message.get("content") or "")
            return JSONResponse(whole)

        async def frames() -> AsyncIterator[bytes]:
            redactor = Redactor()
            parser = SSEParser()
            try:
                async for raw in r.aiter_raw():
                    for e in parser.feed(raw):
                        if e.data.strip() == "[DONE]":
                            continue
                        choices = json.loads(e.data).get("choices") or []
                        if not choices:
                            continue
                        step = redactor.feed(choices[0].get("delta", {}).get("content") or "")
                        if step.text:
                            yield _chunk(step.text)
                        if choices[0].get("finish_reason") and not step.stopped:
                            step = redactor.flush()
                            if step.text:
                                yield _chunk(step.text)
                        if step.stopped:
                            notice = next(ev.notice for ev in step.events if isinstance(ev, Guard))
                            yield _chunk(notice, "content_filter")
                            yield b"data: [DONE]\n\n"
                            return  # the finally closes the upstream at once
                        if choices[0].get("finish_reason"):
                            yield _chunk(None, choices[0]["finish_reason"])
                yield b"data: [DONE]\n\n"
            finally:
                await r.aclose()

        return StreamingResponse(frames(), media_type="text/event-stream")

    return _app(upstream, handle)
