"""The official SDKs, sync and async, pointed at the proxy (`base_url`), options via `extra_body`."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai
import pytest

from tests.dialects import streams
from tests.proxy.upstream import Upstream, events_of

SOURCES_OPTION = {"sluicegate": {"sources": streams.SOURCES, "language": "en"}}
MESSAGES = [{"role": "user", "content": "When is the library open?"}]
REDACTED = streams.WITH_SECRET.replace(streams.SECRET, "<OPENAI_KEY>")


def _oa(url: str) -> openai.OpenAI:
    return openai.OpenAI(api_key="client-key", base_url=url + "/v1", max_retries=0)


def _an(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="client-key", base_url=url, max_retries=0)


def _sent_upstream(upstream: Upstream) -> dict[str, Any]:
    body = upstream.last.json
    assert "sluicegate" not in body and body["stream"] is True  # options removed; the upstream always streams
    return body


def test_chat_sync_stream_and_whole(proxy_url: str, upstream: Upstream) -> None:
    upstream.play(events_of(streams.chat(streams.pieces(streams.WITH_SECRET))))
    chunks = list(
        _oa(proxy_url).chat.completions.create(
            model="m", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == REDACTED
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 23
    assert _sent_upstream(upstream)["stream_options"] == {"include_usage": True}
    whole = _oa(proxy_url).chat.completions.create(model="m", messages=MESSAGES)
    assert whole.choices[0].message.content == REDACTED and whole.usage is not None
    assert whole.usage.completion_tokens == 23


def test_chat_stop_via_extra_body(proxy_url: str, upstream: Upstream) -> None:
    upstream.play(events_of(streams.chat(streams.pieces(streams.PLANTED))))
    chunks = list(
        _oa(proxy_url).chat.completions.create(model="m", messages=MESSAGES, stream=True, extra_body=SOURCES_OPTION)
    )
    deltas = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert "2 euros" not in "".join(deltas) and deltas[-1].startswith("\n\n")
    assert chunks[-1].choices[0].finish_reason == "content_filter"
    _sent_upstream(upstream)


def test_responses_sync_stream_stop_and_whole(proxy_url: str, upstream: Upstream) -> None:
    upstream.play(events_of(streams.responses(streams.pieces(streams.PLANTED))))
    with _oa(proxy_url).responses.stream(model="m", input="q", extra_body=SOURCES_OPTION) as stream:
        events = list(stream)
    kinds = [e.type for e in events]
    assert kinds[-1] == "response.incomplete" and "response.completed" not in kinds
    assert events[-1].response.incomplete_details.reason == "content_filter"  # type: ignore[union-attr]
    upstream.play(events_of(streams.responses(streams.pieces(streams.WITH_SECRET))))
    whole = _oa(proxy_url).responses.create(model="m", input="q")
    assert whole.output_text == REDACTED and whole.status == "completed"
    _sent_upstream(upstream)


def test_anthropic_sync_stream_and_whole(proxy_url: str, upstream: Upstream) -> None:
    upstream.play(events_of(streams.anthropic(streams.pieces(streams.WITH_SECRET))))
    with _an(proxy_url).messages.stream(model="m", max_tokens=100, messages=MESSAGES) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == REDACTED and final.stop_reason == "end_turn" and final.usage.output_tokens == 23
    upstream.play(events_of(streams.anthropic(streams.pieces(streams.PLANTED))))
    whole = _an(proxy_url).messages.create(model="m", max_tokens=100, messages=MESSAGES, extra_body=SOURCES_OPTION)
    assert whole.stop_reason == "refusal" and "2 euros" not in whole.content[0].text  # type: ignore[union-attr]
    _sent_upstream(upstream)


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
def test_async_sdks(proxy_url: str, upstream: Upstream, dialect: str) -> None:
    upstream.play(events_of(streams.BUILD[dialect](streams.pieces(streams.WITH_SECRET))))

    async def run() -> str:
        if dialect == "anthropic":
            client = anthropic.AsyncAnthropic(api_key="k", base_url=proxy_url, max_retries=0)
            async with client.messages.stream(model="m", max_tokens=10, messages=MESSAGES) as stream:
                return "".join([t async for t in stream.text_stream])
        oa = openai.AsyncOpenAI(api_key="k", base_url=proxy_url + "/v1", max_retries=0)
        if dialect == "chat":
            stream = await oa.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
            return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        async with oa.responses.stream(model="m", input="q") as rstream:
            return "".join([e.delta async for e in rstream if e.type == "response.output_text.delta"])

    assert asyncio.run(run()) == REDACTED


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
def test_tool_call_through_the_proxy(proxy_url: str, upstream: Upstream, dialect: str) -> None:
    call = ("call_1", "get_weather", '{"city": "Bern"}')
    script = {
        "chat": streams.chat([], calls=[call], finish="tool_calls"),
        "anthropic": streams.anthropic([], calls=[call], stop="tool_use"),
        "responses": streams.responses([], calls=[call]),
    }[dialect]
    upstream.play(events_of(script))
    weather = streams.WEATHER
    if dialect == "chat":
        r = _oa(proxy_url).chat.completions.create(
            model="m",
            messages=MESSAGES,
            tools=[{"type": "function", "function": {"name": "get_weather", "parameters": weather}}],
        )
        calls = [(c.function.name, c.function.arguments) for c in r.choices[0].message.tool_calls or []]  # type: ignore[union-attr]
    elif dialect == "anthropic":
        m = _an(proxy_url).messages.create(
            model="m", max_tokens=10, messages=MESSAGES, tools=[{"name": "get_weather", "input_schema": weather}]
        )  # type: ignore[list-item]
        calls = [(b.name, b.input) for b in m.content if b.type == "tool_use"]  # type: ignore[misc]
    else:
        resp = _oa(proxy_url).responses.create(
            model="m",
            input="q",
            tools=[{"type": "function", "name": "get_weather", "parameters": weather, "strict": False}],
        )
        calls = [(o.name, o.arguments) for o in resp.output if o.type == "function_call"]  # type: ignore[misc]
    assert calls in ([("get_weather", '{"city":"Bern"}')], [("get_weather", {"city": "Bern"})])


# Server-side tool blocks: real recorded web searches (tests/lifecycle/fixtures/real, origins in its README)
# through the proxy; the SDK's message of the raw recording, text redacted, is the oracle.
SEARCHES = {
    "anthropic": "anthropic/pai_anthropic_web_search_tool_stream__0.sse",
    "responses": "responses/pai_web_search.sse",
}


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
@pytest.mark.parametrize("dialect", ["anthropic", "responses"])
def test_server_tool_blocks_sync_async_and_whole(proxy_url: str, upstream: Upstream, dialect: str) -> None:
    from tests.dialects import server_blocks as sb
    from tests.lifecycle.real_streams import STREAMS, load

    recorded = load(STREAMS[SEARCHES[dialect]])
    raw = sb.sdk_message(dialect, recorded)
    upstream.play(events_of(recorded))
    client = _an(proxy_url) if dialect == "anthropic" else _oa(proxy_url)
    synced = sb.final(dialect, client, max_tokens=100, messages=MESSAGES)
    sb.compare(dialect, raw, synced)

    async def run() -> Any:
        if dialect == "anthropic":
            client = anthropic.AsyncAnthropic(api_key="k", base_url=proxy_url, max_retries=0)
            async with client.messages.stream(model="m", max_tokens=10, messages=MESSAGES) as astream:
                async for _ in astream:
                    pass
                return await astream.get_final_message()
        oa = openai.AsyncOpenAI(api_key="k", base_url=proxy_url + "/v1", max_retries=0)
        async with oa.responses.stream(model="m", input="q") as ars:
            async for _ in ars:
                pass
            return await ars.get_final_response()

    upstream.play(events_of(recorded))
    sb.compare(dialect, raw, asyncio.run(run()))
    upstream.play(events_of(recorded))
    whole = sb.final(dialect, client, stream=False, max_tokens=100, messages=MESSAGES)

    def ours(message: Any) -> list[dict[str, Any]]:  # our own message items' ids are new per answer
        return [
            {k: v for k, v in b.items() if b["type"] != "message" or k != "id"} for b in sb.blocks(dialect, message)
        ]

    assert ours(whole) == ours(synced)
