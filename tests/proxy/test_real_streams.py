"""The 104 recorded real provider streams (tests/lifecycle/fixtures/real, origins and licenses in its README)
replayed byte for byte by the replay upstream (tests/services/replay_upstream.py), through the proxy under
uvicorn, read by the official SDKs.

For every stream: every frame the proxy writes parses in the client's SDK; where the SDK reports the
recorded stream complete, the proxy ends it complete too, with the text the redactor gives the whole text
(`sluicegate.redact`) and the calls the SDK assembled (validated against the declared schemas); where the
SDK reports it incomplete or failed, no tool call reaches the client. Sampled byte cuts of a stream into two
writes give the client the same text and end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sluicegate import redact
from tests.dialects import sdk
from tests.lifecycle.real_streams import OPEN_SCHEMA, STREAMS, load, sdk_result
from tests.proxy.conftest import running
from tests.services.replay_upstream import Pace, ReplayUpstream, serve_replay

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}
SKIP_SDK = {"chat/pai_openrouter_annotations.sse", "responses/vercel_parallel_tool_call_wrapper_1.jsonl"}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ReplayUpstream, str]]:
    with serve_replay(Pace()) as upstream, running({}, upstream.url) as url:
        yield upstream, url


def _body(key: str, names: set[str]) -> dict[str, Any]:
    dialect = STREAMS[key]["provider"]
    body: dict[str, Any] = {"model": key, "stream": True}
    if dialect == "chat":
        body["messages"] = [{"role": "user", "content": "q"}]
        body["stream_options"] = {"include_usage": True}
        body["tools"] = [{"type": "function", "function": {"name": n, "parameters": OPEN_SCHEMA}} for n in names]
    elif dialect == "anthropic":
        body["max_tokens"] = 100
        body["messages"] = [{"role": "user", "content": "q"}]
        body["tools"] = [{"name": n, "input_schema": OPEN_SCHEMA} for n in names]
    else:
        body["input"] = "q"
        body["tools"] = [{"type": "function", "name": n, "parameters": OPEN_SCHEMA} for n in names]
    if not body["tools"]:
        del body["tools"]
    return body


def _through(url: str, key: str) -> tuple[bytes, sdk.Seen, Any]:
    entry = STREAMS[key]
    recorded = sdk_result(entry, load(entry)) if key not in SKIP_SDK else None
    names = {name for _, name, _ in recorded.calls} if recorded else set()
    r = httpx.post(url + PATHS[entry["provider"]], json=_body(key, names), timeout=20)
    assert r.status_code == 200, (key, r.status_code, r.text[:300])
    return r.content, sdk.STREAM[entry["provider"]](r.content), recorded


@pytest.mark.parametrize("key", sorted(STREAMS))
def test_real_stream_through_the_proxy(served: tuple[ReplayUpstream, str], key: str) -> None:
    _, url = served
    raw, seen, recorded = _through(url, key)
    dialect = STREAMS[key]["provider"]
    if recorded is None:
        return  # the SDK cannot read the recording itself; ours parsed (above) is all we can ask
    if recorded.complete and not recorded.refusal and recorded.choices == 1 and not recorded.unsupported:
        if seen.error is None:
            assert seen.end in (sdk.COMPLETE[dialect], sdk.TOOLS_END[dialect]), (key, seen.end)
            assert seen.text == redact(recorded.text), key
            assert [(n, a) for n, a in seen.calls] == [(n, a) for _, n, a in recorded.calls], key
        else:  # refused by the stricter reader (documented per stream in tests/lifecycle/test_real_streams.py)
            assert seen.calls == []
    else:
        assert seen.calls == [], key  # nothing the SDK calls incomplete becomes a call
        assert seen.end != sdk.COMPLETE[dialect] or recorded.stop in ("stop", "end_turn"), key


CUT_STREAMS = [
    "chat/openai_python_parse_nothing.sse",
    "anthropic/anthropic_sdk_basic_response.sse",
    "anthropic/anthropic_sdk_tool_use_response.sse",
    "chat/openai_python_parse_pydantic_tool.sse",
]


@pytest.mark.parametrize("key", CUT_STREAMS)
def test_wire_cuts_give_the_same_answer(served: tuple[ReplayUpstream, str], key: str) -> None:
    """The recorded bytes written to the proxy in two pieces, cut at sampled positions (every byte is proved
    on the sans-I/O relay in tests/dialects/test_relay_invariance.py)."""
    data = load(STREAMS[key])
    positions = sorted({1, 2, len(data) // 3, len(data) // 2, len(data) - 2, len(data) - 1, *range(7, len(data), 97)})
    upstream, url = served
    answers = set()
    try:
        for cut in positions:
            upstream.pace = Pace(cuts=(cut,))
            _, seen, _ = _through(url, key)
            answers.add((seen.text, seen.end, json.dumps(seen.calls), seen.error))
    finally:
        upstream.pace = Pace()
    assert len(answers) == 1, answers


# The upstream's usage breakdown (reasoning, cached, cache-read tokens), as the official SDKs read it from the
# recording, is what they read through the proxy, streamed and whole (tests/dialects/test_usage_details.py).
USAGE_STREAMS = {
    "chat/pai_deepseek_thinking.sse": ("prompt_tokens_details", "completion_tokens_details"),
    "responses/pai_web_search.sse": ("input_tokens_details", "output_tokens_details"),
    "anthropic/pai_anthropic_compaction_usage_with_cache_streaming__0.sse": (
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "cache_creation",
    ),
}


@pytest.mark.parametrize("key", sorted(USAGE_STREAMS))
def test_usage_breakdown_through_the_proxy(served: tuple[ReplayUpstream, str], key: str) -> None:
    import anthropic
    import openai

    from tests.dialects.test_usage_details import first_message, usage_of

    _, url = served
    dialect = STREAMS[key]["provider"]
    data = load(STREAMS[key])
    recorded = usage_of(dialect, data if dialect == "chat" else first_message(dialect, data))
    want = {k: recorded[k] for k in USAGE_STREAMS[key]}
    body = _body(key, set())
    body.pop("stream")
    got: list[dict[str, Any]] = []
    if dialect == "chat":
        oa = openai.OpenAI(api_key="k", base_url=url + "/v1", max_retries=0)
        chunks = oa.chat.completions.create(**body, stream=True)
        got.append(next(c.usage for c in reversed(list(chunks)) if c.usage).model_dump(exclude_none=True))
        body.pop("stream_options")
        whole = oa.chat.completions.create(**body)
        assert whole.usage is not None
        got.append(whole.usage.model_dump(exclude_none=True))
    elif dialect == "responses":
        oa = openai.OpenAI(api_key="k", base_url=url + "/v1", max_retries=0)
        with oa.responses.stream(**body) as stream:
            for _ in stream:
                pass
            final = stream.get_final_response()
        assert final.usage is not None
        got.append(final.usage.model_dump(exclude_none=True))
        plain = oa.responses.create(**body)
        assert plain.usage is not None
        got.append(plain.usage.model_dump(exclude_none=True))
    else:
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        with client.messages.stream(**body) as astream:
            for _ in astream:
                pass
            got.append(astream.get_final_message().usage.model_dump(exclude_none=True))
        got.append(client.messages.create(**body).usage.model_dump(exclude_none=True))
    assert [{k: g.get(k) for k in want} for g in got] == [want, want]
