"""The upstream's usage breakdown (reasoning and cached tokens, Anthropic's cache figures) reaches the client as
the upstream sent it, streamed and whole; the billed totals were right already.

The oracle is the official SDK: the usage it reads from the raw recording (tests/lifecycle/fixtures/real, origins
and licenses in its README) is the usage it must read from the relay's frames and body.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.dialects import sdk
from tests.dialects import server_blocks as sb
from tests.dialects.helpers import body_of, relay
from tests.lifecycle.real_streams import STREAMS, load

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

REAL = [
    "chat/pai_deepseek_thinking.sse",  # completion_tokens_details.reasoning_tokens 198
    "chat/pai_run_stream_sync_1.sse",  # every details field, zeros
    "responses/pai_web_search.sse",  # cached_tokens 8320, reasoning_tokens 512
    "responses/pai_code_interpreter.sse",
    "anthropic/pai_anthropic_compaction_usage_with_cache_streaming__0.sse",  # cache_read_input_tokens
]


def first_message(dialect: str, data: bytes) -> bytes:
    """A recording up to its first terminal event (all the relay reads)."""
    end = b'"message_stop"' if dialect == "anthropic" else b'"response.completed"'
    at = data.find(end)
    return data if at < 0 else data[: data.index(b"\n\n", at) + 2]


def request(dialect: str) -> dict[str, Any]:
    if dialect == "chat":
        return {
            "model": "m",
            "stream": True,
            "messages": [{"role": "user", "content": "q"}],
            "stream_options": {"include_usage": True},
        }
    if dialect == "anthropic":
        return {"model": "m", "stream": True, "max_tokens": 100, "messages": [{"role": "user", "content": "q"}]}
    return {"model": "m", "stream": True, "input": "q"}


def chat_usage(payload: bytes, *, stream: bool = True) -> dict[str, Any]:
    client = sdk.openai_client(payload, stream=stream)
    if not stream:
        usage = client.chat.completions.create(model="m", messages=[]).usage
        assert usage is not None
        return usage.model_dump(exclude_none=True)
    last = None
    for chunk in client.chat.completions.create(model="m", messages=[], stream=True):
        if chunk.usage is not None:
            last = chunk.usage
    assert last is not None
    return last.model_dump(exclude_none=True)


def usage_of(dialect: str, payload: bytes, *, stream: bool = True) -> dict[str, Any]:
    if dialect == "chat":
        return chat_usage(payload, stream=stream)
    usage = sb.sdk_message(dialect, payload, stream=stream).usage
    return usage.model_dump(exclude_none=True)


# What the dialect's usage holds beyond the totals, as the SDK types name it.
DETAILS = {
    "chat": ("prompt_tokens_details", "completion_tokens_details"),
    "responses": ("input_tokens_details", "output_tokens_details"),
    "anthropic": ("cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation"),
}


@pytest.mark.parametrize("key", REAL)
def test_usage_breakdown_passed_on(key: str) -> None:
    entry = STREAMS[key]
    dialect = entry["provider"]
    data = load(entry)
    body = request(dialect)
    raw = usage_of(dialect, first_message(dialect, data) if dialect != "chat" else data)
    expected = {k: raw[k] for k in DETAILS[dialect] if k in raw}
    assert expected, "the recording carries a breakdown"
    out, r = relay(dialect, body, data)
    assert r.reason == "complete", r.reason
    streamed = usage_of(dialect, out)
    assert {k: streamed.get(k) for k in expected} == expected
    status, whole = body_of(dialect, body, data)
    assert status == 200
    got = usage_of(dialect, whole, stream=False)
    assert {k: got.get(k) for k in expected} == expected


def test_malformed_breakdown_is_not_passed() -> None:
    """Only integer figures pass: anything else in the upstream's details is left out."""
    from sluicegate.dialects._relay import usage_details

    usage = {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "completion_tokens_details": {"reasoning_tokens": 5, "note": "x", "flag": True, "neg": -1},
        "prompt_tokens_details": "nope",
    }
    assert usage_details("chat", usage) == {"completion_tokens_details": {"reasoning_tokens": 5}}
