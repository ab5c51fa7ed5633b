"""A real HTTP upstream that replays recorded provider streams byte for byte, paced, and records disconnects.

The app is `sluicegate.cli._upstream.UpstreamApp` (the one `sluicegate conform` starts) under a real uvicorn on a
loopback port, preloaded with every real stream of tests/lifecycle/fixtures/real (origin, commit and license in
its README; loaded from there by tests/lifecycle/real_streams.py, not copied). A test picks a stream by key —
the `x-replay` header, else the request's `model` — e.g. `model="chat/openai_python_parse_nothing.sse"` (the
keys of `real_streams.STREAMS`, one per recorded stream). Scripted answers (`Script`, `plant`) are added with
`upstream.add(key, Script(...))` and come out in whichever dialect the request used.

Non-streaming requests for a recording get the body the stream adds up to, derived faithfully: Responses' own
`response.completed` object; for Chat and Anthropic the provider SDK's stream accumulator (the same oracle as
tests/lifecycle/test_real_streams.py), its snapshot serialized as the non-streaming type. A recording the SDK
cannot accumulate, or one that never completed, answers 501.

    def test_x(replay_upstream):
        replay_upstream.pace = Pace(interval=0.01)
        client = openai.OpenAI(base_url=replay_upstream.url + "/v1", api_key="k")
        client.chat.completions.create(model="chat/openai_python_parse_nothing.sse", messages=[...], stream=True)
        ex = replay_upstream.last.wait()  # ex.disconnected, ex.events_sent, ex.json (the request as received)
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest

from sluicegate.cli._upstream import (
    KEY_HEADER,
    Exchange,
    Pace,
    Recording,
    Reply,
    Script,
    UpstreamApp,
    plant,
    split_events,
)
from tests.lifecycle.real_streams import STREAMS, load

from .uvicorn_server import UvicornServer

__all__ = [
    "KEY_HEADER",
    "DEFAULT_PACE",
    "Exchange",
    "Pace",
    "Recording",
    "Reply",
    "ReplayUpstream",
    "Script",
    "plant",
    "real_recordings",
    "replay_upstream",
    "serve_replay",
    "split_events",
]

DEFAULT_PACE = Pace(interval=0.002)  # s between SSE events: paced, yet a 300-event recording takes < 1 s


@functools.cache
def real_recordings() -> dict[str, Recording]:
    """Every recorded real stream by its key in `real_streams.STREAMS` (provider/file, `#n` for a turn)."""
    return {key: Recording(entry["provider"], load(entry)) for key, entry in STREAMS.items()}


class ReplayUpstream(UpstreamApp):
    """The upstream with the real recordings loaded; `url` is set once it listens."""

    url: str = ""

    def __init__(self, pace: Pace | None = None) -> None:
        super().__init__(pace or DEFAULT_PACE)
        self.entries.update(real_recordings())

    def whole(self, key: str, entry: Recording) -> Mapping[str, Any] | None:
        return entry.whole if entry.whole is not None else derived_whole(entry.api, entry.data)


@functools.cache
def derived_whole(api: str, data: bytes) -> dict[str, Any] | None:
    """The non-streaming body a recorded stream adds up to, or None when it cannot be derived faithfully."""
    try:
        return {"chat": _chat_whole, "responses": _responses_whole, "anthropic": _anthropic_whole}[api](data)
    except Exception:  # the SDK's accumulator refuses the recording: no faithful whole body
        return None


def _events(data: bytes) -> Iterator[tuple[str | None, str]]:
    from openai._streaming import SSEDecoder

    if not data.endswith((b"\n\n", b"\r\n\r\n")):
        data += b"\n\n"  # some SDK fixtures end without the last blank line: the event at EOF still counts
    for sse in SSEDecoder().iter_bytes(iter([data])):
        yield sse.event, sse.data


def _responses_whole(data: bytes) -> dict[str, Any] | None:
    for _, raw in _events(data):
        payload = json.loads(raw)
        if payload.get("type") == "response.completed":
            return dict(payload["response"])
    return None


def _chat_whole(data: bytes) -> dict[str, Any] | None:
    from openai._models import construct_type
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    usage = None
    finished = False
    for _, raw in _events(data):
        if raw.startswith("[DONE]"):
            break
        payload = json.loads(raw)
        if payload.get("error"):
            return None
        usage = payload.get("usage") or usage
        finished = finished or any(c.get("finish_reason") for c in payload.get("choices") or [])
        state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=payload))
    if not finished:
        return None
    body = state.current_completion_snapshot.to_dict(warnings=False)
    body["object"] = "chat.completion"
    for choice in body.get("choices", []):
        message = choice.get("message", {})
        message.pop("parsed", None)
        for call in message.get("tool_calls") or []:
            call.get("function", {}).pop("parsed_arguments", None)
    if usage is not None:
        body["usage"] = usage
    return body


def _anthropic_whole(data: bytes) -> dict[str, Any] | None:
    import httpx
    from anthropic._models import construct_type
    from anthropic.lib.streaming._beta_messages import accumulate_event
    from anthropic.types.beta import BetaRawMessageStreamEvent

    snapshot = None
    stopped = False
    for event, raw in _events(data):
        if event == "error":
            return None
        if event not in ("message_start", "message_delta", "message_stop") and not (event or "").startswith(
            "content_block_"
        ):
            continue
        parsed = construct_type(type_=BetaRawMessageStreamEvent, value=json.loads(raw))
        snapshot = accumulate_event(event=parsed, current_snapshot=snapshot, request_headers=httpx.Headers())
        stopped = stopped or event == "message_stop"
    if snapshot is None or not stopped:
        return None
    return dict(snapshot.to_dict(warnings=False))


@contextmanager
def serve_replay(pace: Pace | None = None) -> Iterator[ReplayUpstream]:
    """The replay upstream on a loopback port for the block (`upstream.url` is its base URL)."""
    upstream = ReplayUpstream(pace)
    server = UvicornServer(upstream)
    server.start()
    upstream.url = server.url
    try:
        yield upstream
    finally:
        server.stop()


@pytest.fixture
def replay_upstream() -> Iterator[ReplayUpstream]:
    """A fresh replay upstream per test (recordings loaded, `DEFAULT_PACE`), on a real uvicorn."""
    with serve_replay() as upstream:
        yield upstream
