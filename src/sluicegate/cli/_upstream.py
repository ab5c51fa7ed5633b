"""A scripted and replaying LLM upstream: a raw ASGI app that speaks three provider dialects on the wire.

`sluicegate conform` starts one to stand behind the endpoint it checks, and the test suite's replay upstream
(tests/services/replay_upstream.py) is the same app loaded with recorded provider streams. Raw ASGI on purpose:
nothing is imported at import time (uvicorn is the caller's), and a waiter on `receive()` sees `http.disconnect`
the moment the client's socket closes, so what an `Exchange` records is what a real provider would have seen.

Each request picks its entry by a key: the `x-replay` header if present, else a `[replay:KEY]` mark in the body
(a prompt carries it through gateways that rename the model and drop headers), else the body's `model`. An
entry is a `Recording` (bytes of one real stream, replayed unchanged, in its own dialect), a `Script` (text
deltas, encoded in whichever dialect was asked: Chat Completions, Responses or Anthropic Messages, each shaped
like the real API's frames) or a `Reply` (a fixed status and body: upstream errors). `Pace` says how the bytes
go out: one SSE event per write (default), fixed-size byte pieces, or explicit byte cuts, with a delay between
writes; `die_after` drops the connection mid-stream without the terminating chunk (an upstream that died).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from .._errors import SluicegateError

APIS = ("chat", "responses", "anthropic")
KEY_HEADER = "x-replay"
# `[replay:KEY]` anywhere in the body (a prompt): survives gateways that rewrite `model` and drop headers.
_KEY_MARK = re.compile(rb"\[replay:([A-Za-z0-9_./#:+-]{1,200})\]")
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")

Scope = Mapping[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


def api_of(path: str) -> str | None:
    """The dialect a request path asks for (any prefix, e.g. `/v1/...` or `/openai/v1/...`), or None."""
    path = path.rstrip("/")
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages"):
        return "anthropic"
    return None


@dataclass(frozen=True)
class Script:
    """An answer given as text deltas, streamed one delta per SSE event in the dialect the request used."""

    deltas: tuple[str, ...]
    finish: str = "stop"  # "stop" or "length"; mapped to each dialect's own stop reason
    input_tokens: int = 10

    @property
    def text(self) -> str:
        return "".join(self.deltas)


@dataclass(frozen=True)
class Recording:
    """The HTTP body of one real streamed response, replayed byte for byte; `whole` is its non-streaming body
    (when one exists or could be derived faithfully: None answers a non-streaming request with 501)."""

    api: str
    data: bytes
    whole: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Reply:
    """A fixed answer to any request with this key (an upstream 4xx/5xx, say)."""

    status: int
    body: bytes
    content_type: str = "application/json"


Entry = Script | Recording | Reply


@dataclass(frozen=True)
class Pace:
    """How a stream's bytes are written: `cuts` (byte offsets) win over `chunk_bytes`, which wins over one SSE
    event per write. `first_delay` before the first write, `interval` before each later one. `die_after` writes:
    then the connection is dropped without the end of the chunked body."""

    interval: float = 0.0
    first_delay: float = 0.0
    chunk_bytes: int | None = None
    cuts: tuple[int, ...] | None = None
    die_after: int | None = None

    def pieces(self, data: bytes) -> list[bytes]:
        if self.cuts is not None:
            bounds = sorted({c for c in self.cuts if 0 < c < len(data)})
            starts = [0, *bounds]
            return [data[a:b] for a, b in zip(starts, [*bounds, len(data)], strict=True)]
        if self.chunk_bytes:
            n = self.chunk_bytes
            return [data[i : i + n] for i in range(0, len(data), n)]
        return split_events(data)


def split_events(data: bytes) -> list[bytes]:
    """The bytes cut after each SSE event's blank line; joined back they are `data` exactly."""
    out: list[bytes] = []
    last = 0
    for m in _EVENT_END.finditer(data):
        out.append(data[last : m.end()])
        last = m.end()
    if last < len(data):
        out.append(data[last:])
    return out


def count_events(data: bytes) -> int:
    """Complete SSE events in `data` (blank-line terminated)."""
    return len(_EVENT_END.findall(data))


@dataclass
class Exchange:
    """One request as the upstream saw it; times are `time.monotonic()` (the same clock as the caller's)."""

    key: str | None
    api: str | None
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    started: float
    status: int = 0
    stream: bool = False
    sent: list[float] = field(default_factory=list)  # when each write went to the socket
    bytes_sent: int = 0
    events_sent: int = 0  # complete SSE events written before the end or the disconnect
    disconnected: float | None = None  # when the client closed the connection before the end
    completed: bool = False  # everything was written
    died: bool = False  # `Pace.die_after` dropped the connection
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def json(self) -> Any:
        """The request body parsed (None when it was not JSON)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def wait(self, timeout: float = 5.0) -> Exchange:
        """Block until the response ended (completed, died or disconnected); raise if it did not."""
        if not self.done.wait(timeout):
            raise TimeoutError(f"the upstream was still streaming after {timeout}s ({self.events_sent} events)")
        return self


class UpstreamDied(SluicegateError):
    """Raised inside the app to make the server drop the connection mid-body (an upstream crash)."""


class UpstreamApp:
    """The ASGI app. `entries` by key, `paces` by key (else `pace`), `default` when a request names no entry."""

    def __init__(self, pace: Pace | None = None, *, default: str | None = None) -> None:
        self.entries: dict[str, Entry] = {}
        self.paces: dict[str, Pace] = {}
        self.pace = pace or Pace()
        self.default = default
        self.exchanges: list[Exchange] = []
        self._new = threading.Condition()

    def add(self, key: str, entry: Entry, pace: Pace | None = None) -> None:
        self.entries[key] = entry
        if pace is not None:
            self.paces[key] = pace

    @property
    def last(self) -> Exchange:
        return self.exchanges[-1]

    def wait_started(self, count: int, timeout: float = 5.0) -> Exchange:
        """Block until the `count`-th request arrived; return it."""
        with self._new:
            if not self._new.wait_for(lambda: len(self.exchanges) >= count, timeout):
                raise TimeoutError(f"only {len(self.exchanges)} requests reached the upstream")
        return self.exchanges[count - 1]

    def whole(self, key: str, entry: Recording) -> Mapping[str, Any] | None:
        """The non-streaming body of a recording (a subclass may derive it)."""
        return entry.whole

    # -- ASGI ---------------------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        path = str(scope["path"])
        api = api_of(path)
        try:
            request = json.loads(body) if body else {}
        except ValueError:
            request = None
        key = headers.get(KEY_HEADER)
        mark = _KEY_MARK.search(body) if key is None else None
        if mark is not None:
            key = mark.group(1).decode()
        if key is None and isinstance(request, dict) and isinstance(request.get("model"), str):
            key = request["model"]
        if key not in self.entries:
            key = self.default if self.default in self.entries else key
        ex = Exchange(key, api, str(scope.get("method", "GET")), path, headers, body, time.monotonic())
        with self._new:
            self.exchanges.append(ex)
            self._new.notify_all()
        try:
            await self._answer(ex, request, receive, send)
        finally:
            ex.done.set()

    async def _answer(self, ex: Exchange, request: Any, receive: Receive, send: Send) -> None:
        if ex.method == "GET" and ex.path.rstrip("/").endswith("/models"):
            models = [{"id": k, "object": "model", "created": 0, "owned_by": "replay"} for k in self.entries]
            return await _json(ex, send, 200, {"object": "list", "data": models})
        if ex.api is None or ex.method != "POST":
            return await _json(ex, send, 404, _error(ex.api, f"no route {ex.method} {ex.path}", "not_found"))
        if not isinstance(request, dict):
            return await _json(ex, send, 400, _error(ex.api, "the request body is not a JSON object", "invalid"))
        entry = self.entries.get(ex.key or "")
        if entry is None:
            return await _json(ex, send, 404, _error(ex.api, f"no replay entry {ex.key!r}", "not_found"))
        if isinstance(entry, Reply):
            ex.status = entry.status
            ctype = entry.content_type.encode()
            await send({"type": "http.response.start", "status": entry.status, "headers": [(b"content-type", ctype)]})
            await send({"type": "http.response.body", "body": entry.body})
            ex.bytes_sent, ex.completed = len(entry.body), True
            return None
        if isinstance(entry, Recording) and entry.api != ex.api:
            msg = f"entry {ex.key!r} is a {entry.api} recording, asked as {ex.api}"
            return await _json(ex, send, 400, _error(ex.api, msg, "invalid"))
        ex.stream = bool(request.get("stream"))
        if not ex.stream:
            whole = whole_body(ex.api, entry, request) if isinstance(entry, Script) else self.whole(ex.key or "", entry)
            if whole is None:
                return await _json(ex, send, 501, _error(ex.api, f"{ex.key!r} has no non-streaming form", "invalid"))
            return await _json(ex, send, 200, whole)
        data = entry.data if isinstance(entry, Recording) else b"".join(stream_frames(ex.api, entry, request))
        await self._stream(ex, data, self.paces.get(ex.key or "", self.pace), receive, send)
        return None

    async def _stream(self, ex: Exchange, data: bytes, pace: Pace, receive: Receive, send: Send) -> None:
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                if (await receive())["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.ensure_future(watch())
        written = b""
        try:
            ex.status = 200
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            for n, piece in enumerate(pace.pieces(data)):
                if pace.die_after is not None and n >= pace.die_after:
                    ex.died = True
                    raise UpstreamDied(f"dropped after {n} writes")
                delay = pace.first_delay if n == 0 else pace.interval
                if delay > 0:
                    with suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(gone.wait(), delay)
                if gone.is_set():
                    break
                await send({"type": "http.response.body", "body": piece, "more_body": True})
                ex.sent.append(time.monotonic())
                written += piece
                ex.bytes_sent = len(written)
                ex.events_sent = count_events(written)
            else:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                ex.completed = True
        except OSError:  # uvicorn's ClientDisconnected: the write found the socket closed
            pass
        finally:
            if not ex.completed and not ex.died:
                ex.disconnected = time.monotonic()
            watcher.cancel()


_SSE_HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache")]


async def _json(ex: Exchange, send: Send, status: int, payload: Any) -> None:
    body = json.dumps(payload).encode()
    ex.status = status
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
    ex.bytes_sent, ex.completed = len(body), True


def _error(api: str | None, message: str, kind: str) -> dict[str, Any]:
    """An error body in the dialect's shape (Anthropic's `{"type": "error", ...}`, OpenAI's `{"error": ...}`)."""
    if api == "anthropic":
        kind = "not_found_error" if kind == "not_found" else "invalid_request_error"
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": kind}}


# -- scripted answers in each dialect ---------------------------------------------------------------------------


def plant(value: str, cuts: Sequence[int], *, before: str = "", after: str = "") -> tuple[str, ...]:
    """Deltas that carry `before + value + after` with `value` split at `cuts` (offsets into the value): the
    first delta ends inside the value at the first cut, and so on. A cut of 0 or len(value) puts the value's
    edge on a delta boundary."""
    bounds = sorted({c for c in cuts if 0 <= c <= len(value)})
    text = before + value + after
    edges = [len(before) + c for c in bounds]
    starts = [0, *edges]
    pieces = [text[a:b] for a, b in zip(starts, [*edges, len(text)], strict=True)]
    return tuple(p for p in pieces if p)


def _usage_counts(script: Script) -> tuple[int, int]:
    return script.input_tokens, max(1, len(script.deltas))


def _sse(payload: Mapping[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def stream_frames(api: str, script: Script, request: Mapping[str, Any]) -> list[bytes]:
    """The SSE events of `script` in dialect `api`, shaped like the real API's (ids, indices, end events)."""
    model = str(request.get("model") or "scripted")
    if api == "chat":
        return _chat_frames(script, model, request)
    if api == "responses":
        return _responses_frames(script, model)
    if api == "anthropic":
        return _anthropic_frames(script, model)
    raise ValueError(f"unknown dialect {api!r}")


def whole_body(api: str, script: Script, request: Mapping[str, Any]) -> dict[str, Any]:
    """The non-streaming body of `script` in dialect `api` (what the streamed frames add up to)."""
    model = str(request.get("model") or "scripted")
    inp, out = _usage_counts(script)
    if api == "chat":
        finish = "length" if script.finish == "length" else "stop"
        message: dict[str, Any] = {"role": "assistant", "content": script.text, "refusal": None, "annotations": []}
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out},
            "system_fingerprint": "fp_scripted",
        }
    if api == "responses":
        return _response_object(script, model, "completed")
    if api == "anthropic":
        return {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": script.text}],
            "stop_reason": "max_tokens" if script.finish == "length" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": inp, "output_tokens": out},
        }
    raise ValueError(f"unknown dialect {api!r}")


def _chat_frames(script: Script, model: str, request: Mapping[str, Any]) -> list[bytes]:
    def chunk(delta: Mapping[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    frames = [_sse(chunk({"role": "assistant", "content": "", "refusal": None}))]
    frames += [_sse(chunk({"content": d})) for d in script.deltas]
    frames.append(_sse(chunk({}, "length" if script.finish == "length" else "stop")))
    options = request.get("stream_options")
    if isinstance(options, Mapping) and options.get("include_usage"):
        inp, out = _usage_counts(script)
        usage = {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out}
        frames.append(_sse({**chunk({}), "choices": [], "usage": usage}))
    frames.append(b"data: [DONE]\n\n")
    return frames


def _response_object(script: Script, model: str, status: str) -> dict[str, Any]:
    done = status != "in_progress"
    inp, out = _usage_counts(script)
    message = {
        "id": "msg_scripted",
        "type": "message",
        "status": "completed" if script.finish != "length" else "incomplete",
        "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": script.text}],
    }
    return {
        "id": "resp_scripted",
        "object": "response",
        "created_at": 0,
        "status": status,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": None,
        "model": model,
        "output": [message] if done else [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "text": {"format": {"type": "text"}},
        "usage": (
            {
                "input_tokens": inp,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": out,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": inp + out,
            }
            if done
            else None
        ),
    }


def _responses_frames(script: Script, model: str) -> list[bytes]:
    seq = iter(range(1_000_000))
    frames: list[bytes] = []

    def emit(kind: str, **payload: Any) -> None:
        frames.append(_sse({"type": kind, "sequence_number": next(seq), **payload}, kind))

    end = "incomplete" if script.finish == "length" else "completed"
    item_open = {"id": "msg_scripted", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    part_open = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    ids = {"item_id": "msg_scripted", "output_index": 0, "content_index": 0}
    final = _response_object(script, model, end)
    emit("response.created", response=_response_object(script, model, "in_progress"))
    emit("response.in_progress", response=_response_object(script, model, "in_progress"))
    emit("response.output_item.added", output_index=0, item=item_open)
    emit("response.content_part.added", **ids, part=part_open)
    for d in script.deltas:
        emit("response.output_text.delta", **ids, delta=d, logprobs=[])
    emit("response.output_text.done", **ids, text=script.text, logprobs=[])
    emit("response.content_part.done", **ids, part={**part_open, "text": script.text})
    emit("response.output_item.done", output_index=0, item=final["output"][0])
    emit(f"response.{end}", response=final)
    return frames


def _anthropic_frames(script: Script, model: str) -> list[bytes]:
    inp, out = _usage_counts(script)
    message: dict[str, Any] = {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": inp, "output_tokens": 1},  # the real API's placeholder, not a count
    }
    frames = [
        _sse({"type": "message_start", "message": message}, "message_start"),
        _sse(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            "content_block_start",
        ),
        _sse({"type": "ping"}, "ping"),
    ]
    for d in script.deltas:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}}
        frames.append(_sse(delta, "content_block_delta"))
    frames.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    stop = "max_tokens" if script.finish == "length" else "end_turn"
    end = {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": out},
    }
    frames.append(_sse(end, "message_delta"))
    frames.append(_sse({"type": "message_stop"}, "message_stop"))
    return frames
