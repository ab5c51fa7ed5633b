"""A local model provider that streams a scripted answer a token every few ms and records when its client leaves.

It speaks the wire formats the official clients expect: OpenAI Chat Completions (`POST .../chat/completions`, SSE
`chat.completion.chunk`s, `[DONE]`, a usage chunk when `stream_options.include_usage`), OpenAI Responses (`POST
.../responses`, `response.created` ... `response.output_text.delta` ... `response.completed` with usage) and
Anthropic Messages (`POST .../messages`, `message_start` ... `message_stop`). It is a raw ASGI app on a real
uvicorn (tests/services/uvicorn_server.py), so what it records is what a real provider would see: a waiter on
`receive()` notices `http.disconnect` the moment the client's socket closes, and the token loop stops there.
That is the measurement every "a stop stops the bill" test asserts on: when the connection was closed, and how
many tokens the provider generated after a given instant.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from .uvicorn_server import UvicornServer

DEFAULT_INTERVAL = 0.006  # s between tokens: a quick suite, yet slower than the slowest client (litellm, ~4 ms)


@dataclass
class Generation:
    """One streamed request as the provider saw it (times are `time.monotonic()`, the same clock as the tests)."""

    api: str
    started: float
    sent: list[float] = field(default_factory=list)  # when each token was generated (written to the socket)
    disconnected: float | None = None  # when the client closed the connection mid-stream
    completed: bool = False  # the whole script went out
    done: threading.Event = field(default_factory=threading.Event)

    def sent_after(self, t: float) -> int:
        """Tokens generated after instant `t` (and before the disconnect, since nothing is generated after it)."""
        return sum(1 for s in self.sent if s > t)

    def sent_before(self, t: float) -> int:
        return sum(1 for s in self.sent if s <= t)

    def wait(self, timeout: float = 5.0) -> Generation:
        """Block until the generation ended (disconnect or completion); raise if it did not."""
        if not self.done.wait(timeout):
            raise TimeoutError(f"the provider was still generating after {timeout}s ({len(self.sent)} tokens)")
        return self


class ScriptedProvider:
    """The ASGI app: each request streams `tokens` (set by the test before the call)."""

    def __init__(self, interval: float = DEFAULT_INTERVAL) -> None:
        self.interval = interval
        self.tokens: list[str] = []
        self.tool_calls: list[tuple[str, list[str]]] = []  # (name, argument pieces) streamed after the text
        self.keyed: dict[str, list[str]] = {}  # scripts by the request's last message (concurrent requests)
        self.generations: list[Generation] = []
        self.burst = 0  # the first `burst` tokens go out at once (they pile up unread in the client's buffers)
        self._new = threading.Condition()

    def script(self, tokens: Sequence[str], tool_calls: Sequence[tuple[str, Sequence[str]]] = ()) -> None:
        """What the next requests stream, one token per piece; OpenAI tool calls after the text, each as its
        name and argument pieces (one piece a frame), ending with `finish_reason: "tool_calls"`."""
        self.tokens = list(tokens)
        self.tool_calls = [(name, list(pieces)) for name, pieces in tool_calls]

    def script_for(self, key: str, tokens: Sequence[str]) -> None:
        """What a request whose last message's content is `key` streams (the others stream `script`'s)."""
        self.keyed[key] = list(tokens)

    def _tokens(self, request: dict[str, Any]) -> list[str]:
        messages = request.get("messages") or [{}]
        content = messages[-1].get("content") if isinstance(messages[-1], dict) else None
        return self.keyed.get(content, self.tokens) if isinstance(content, str) else self.tokens

    @property
    def last(self) -> Generation:
        return self.generations[-1]

    def wait_started(self, count: int, timeout: float = 5.0) -> Generation:
        """Block until the `count`-th generation started; return it."""
        with self._new:
            if not self._new.wait_for(lambda: len(self.generations) >= count, timeout):
                raise TimeoutError("no request reached the provider")
        return self.generations[count - 1]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body or b"{}")
        path = scope["path"]
        api = "anthropic" if path.endswith("/messages") else "responses" if path.endswith("/responses") else "openai"
        if not request.get("stream"):
            await self._whole(api, request, send)
            return
        gen = Generation(api, time.monotonic())
        with self._new:
            self.generations.append(gen)
            self._new.notify_all()
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                if (await receive())["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.ensure_future(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            frames = {"anthropic": _anthropic_frames, "responses": _responses_frames}.get(api, _openai_frames)
            for frame, is_token in frames(self._tokens(request), request, self.tool_calls):
                if is_token and len(gen.sent) >= self.burst:
                    with suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(gone.wait(), self.interval)
                if gone.is_set():
                    break
                await send({"type": "http.response.body", "body": frame, "more_body": True})
                if is_token:
                    gen.sent.append(time.monotonic())
            else:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                gen.completed = True
        except OSError:  # uvicorn's ClientDisconnected: the write found the socket closed
            pass
        finally:
            if not gen.completed:
                gen.disconnected = time.monotonic()
            watcher.cancel()
            gen.done.set()

    async def _whole(self, api: str, request: dict[str, Any], send: Any) -> None:
        text = "".join(self._tokens(request))
        if api == "anthropic":
            payload: dict[str, Any] = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": request.get("model", "m"),
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": len(self.tokens)},
            }
        else:
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if self.tool_calls:
                message["tool_calls"] = [
                    {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": "".join(args)}}
                    for i, (name, args) in enumerate(self.tool_calls)
                ]
            finish = "tool_calls" if self.tool_calls else "stop"
            payload = {
                "id": "c1",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model", "m"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": len(self.tokens), "total_tokens": 10},
            }
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps(payload).encode()})


_SSE_HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]


def _data(payload: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


def _openai_frames(
    tokens: Sequence[str], request: dict[str, Any], tool_calls: Sequence[tuple[str, list[str]]] = ()
) -> Iterator[tuple[bytes, bool]]:
    model = request.get("model", "m")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    yield _data(chunk({"role": "assistant", "content": ""})), False
    for token in tokens:
        yield _data(chunk({"content": token})), True
    for i, (name, pieces) in enumerate(tool_calls):
        head = {"index": i, "id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": ""}}
        yield _data(chunk({"tool_calls": [head]})), True
        for piece in pieces:
            yield _data(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})), True
    yield _data(chunk({}, "tool_calls" if tool_calls else "stop")), False
    if (request.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": 10, "completion_tokens": len(tokens), "total_tokens": 10 + len(tokens)}
        yield _data({**chunk({}), "choices": [], "usage": usage}), False
    yield b"data: [DONE]\n\n", False


def _responses_frames(
    tokens: Sequence[str], request: dict[str, Any], tool_calls: Sequence[tuple[str, list[str]]] = ()
) -> Iterator[tuple[bytes, bool]]:
    """The OpenAI Responses API's stream for one assistant message (the events its SDK types parse; no tool calls)."""
    seq = iter(range(1_000_000))
    base = {"id": "resp_1", "object": "response", "created_at": 0, "model": request.get("model", "m")}
    base |= {"parallel_tool_calls": False, "tool_choice": "auto", "tools": []}
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
    part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}

    def event(kind: str, **fields: Any) -> bytes:
        return _data({"type": kind, "sequence_number": next(seq), **fields}, kind)

    yield event("response.created", response={**base, "status": "in_progress", "output": []}), False
    yield event("response.output_item.added", output_index=0, item=item), False
    yield event("response.content_part.added", part=part, **where), False
    for token in tokens:
        yield event("response.output_text.delta", delta=token, logprobs=[], **where), True
    text = "".join(tokens)
    yield event("response.output_text.done", text=text, logprobs=[], **where), False
    yield event("response.content_part.done", part={**part, "text": text}, **where), False
    done = {**item, "status": "completed", "content": [{**part, "text": text}]}
    yield event("response.output_item.done", output_index=0, item=done), False
    usage = {
        "input_tokens": 10,
        "output_tokens": len(tokens),
        "total_tokens": 10 + len(tokens),
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    completed = {**base, "status": "completed", "output": [done], "usage": usage}
    yield event("response.completed", response=completed), False


def _anthropic_frames(
    tokens: Sequence[str], request: dict[str, Any], tool_calls: Sequence[tuple[str, list[str]]] = ()
) -> Iterator[tuple[bytes, bool]]:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "m"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},  # the real API's placeholder, not a count
    }
    yield _data({"type": "message_start", "message": message}, "message_start"), False
    block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    yield _data(block, "content_block_start"), False
    for token in tokens:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": token}}
        yield _data(delta, "content_block_delta"), True
    yield _data({"type": "content_block_stop", "index": 0}, "content_block_stop"), False
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": len(tokens)},
    }
    yield _data(end, "message_delta"), False
    yield _data({"type": "message_stop"}, "message_stop"), False


@contextmanager
def serve_provider(
    interval: float = DEFAULT_INTERVAL, tls: tuple[str, str] | None = None
) -> Iterator[tuple[ScriptedProvider, str]]:
    """The provider on a loopback port for the block: (provider, base URL); HTTPS with `tls` (cert, key files)."""
    provider = ScriptedProvider(interval)
    server = UvicornServer(provider, tls=tls)
    server.start()
    try:
        yield provider, server.url
    finally:
        server.stop()
