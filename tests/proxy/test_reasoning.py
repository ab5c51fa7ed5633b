"""Reasoning/thinking text through the proxy under uvicorn, read by the official SDKs (sync and async).

`[reasoning] show = true`: the reasoning reaches the client redacted, in each dialect's own shape; a stop in
the reasoning closes the upstream; off (the default): not one reasoning character on the wire. The frames
themselves are proved on the sans-I/O relay in tests/dialects/test_reasoning.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import anthropic
import httpx
import openai
import pytest

from sluicegate import redact
from sluicegate.dialects import UNSIGNED_THINKING
from sluicegate_proxy import ConfigError, config_from
from tests.dialects import reasoning_streams as rs
from tests.dialects import streams
from tests.dialects.test_reasoning import _read, _real_body
from tests.lifecycle.real_streams import STREAMS, load
from tests.proxy.conftest import running
from tests.proxy.upstream import Upstream, events_of
from tests.services.replay_upstream import Pace, serve_replay

THINKING = f"The user asks for hours. Mail ana.bell@example.org, key {streams.SECRET}. Answer briefly."
SHOWN = redact(THINKING)
ANSWER = ["The library ", "opens at nine."]
MESSAGES = [{"role": "user", "content": "When is the library open?"}]
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzZ3PlainTestKeyMaterialThatNeverEnds0123456789abcd\n"
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}


@pytest.fixture(scope="module")
def shown_url(upstream_server: tuple[Upstream, str]) -> Iterator[str]:
    with running({"reasoning": {"show": True}}, upstream_server[1]) as url:
        yield url


def _play(upstream: Upstream, dialect: str, thinking: str = THINKING, **options: object) -> None:
    upstream.play(events_of(rs.BUILD[dialect](streams.pieces(thinking, 6), ANSWER, **options)))


def test_chat_sync_reasoning_content_stream_and_whole(shown_url: str, upstream: Upstream) -> None:
    client = openai.OpenAI(api_key="k", base_url=shown_url + "/v1", max_retries=0)
    _play(upstream, "chat")
    chunks = list(client.chat.completions.create(model="m", messages=MESSAGES, stream=True))  # type: ignore[arg-type]
    deltas = [(c.choices[0].delta.model_extra or {}).get("reasoning_content") for c in chunks if c.choices]
    assert "".join(d for d in deltas if d) == SHOWN
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "".join(ANSWER)
    _play(upstream, "chat", field="reasoning")
    whole = client.chat.completions.create(model="m", messages=MESSAGES)  # type: ignore[arg-type]
    assert (whole.choices[0].message.model_extra or {}).get("reasoning") == SHOWN
    assert whole.usage is not None and whole.usage.completion_tokens == 40  # billed, not shown


def test_responses_sync_reasoning_item_stream_and_whole(shown_url: str, upstream: Upstream) -> None:
    client = openai.OpenAI(api_key="k", base_url=shown_url + "/v1", max_retries=0)
    _play(upstream, "responses")
    with client.responses.stream(model="m", input="q") as stream:
        events = list(stream)
        final = stream.get_final_response()
    deltas = [e.delta for e in events if e.type == "response.reasoning_summary_text.delta"]
    assert "".join(deltas) == SHOWN
    reasoning = [o for o in final.output if o.type == "reasoning"]
    assert [s.text for s in reasoning[0].summary] == [SHOWN] and reasoning[0].encrypted_content == rs.ENCRYPTED
    assert final.output_text == "".join(ANSWER)
    numbers = [e.sequence_number for e in events]
    assert numbers == list(range(len(numbers)))
    _play(upstream, "responses", kind="text")
    whole = client.responses.create(model="m", input="q")
    item = next(o for o in whole.output if o.type == "reasoning")
    assert [c.text for c in item.content or []] == [SHOWN] and whole.output_text == "".join(ANSWER)


def test_anthropic_sync_thinking_stream_and_whole(shown_url: str, upstream: Upstream) -> None:
    client = anthropic.Anthropic(api_key="k", base_url=shown_url, max_retries=0)
    _play(upstream, "anthropic", redacted=True)
    with client.messages.stream(model="m", max_tokens=100, messages=MESSAGES) as stream:  # type: ignore[arg-type]
        thinking = "".join(e.thinking for e in stream if e.type == "thinking")
        final = stream.get_final_message()
    assert thinking == SHOWN
    kinds = [b.type for b in final.content]
    assert kinds == ["thinking", "redacted_thinking", "text"]
    assert final.content[0].signature == UNSIGNED_THINKING  # type: ignore[union-attr]
    assert final.content[1].data == rs.REDACTED_BLOCK["data"]  # type: ignore[union-attr]
    plain = "Nothing in here to redact, only hours."
    _play(upstream, "anthropic", thinking=plain)
    whole = client.messages.create(model="m", max_tokens=100, messages=MESSAGES)  # type: ignore[arg-type]
    assert whole.content[0].thinking == plain and whole.content[0].signature == rs.SIGNATURE  # type: ignore[union-attr]
    turn = [b.to_dict() for b in final.content]
    use = {"type": "tool_use", "id": "t1", "name": "clock", "input": {}}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "9"}]}
    in_tool_use = [*MESSAGES, {"role": "assistant", "content": [*turn, use]}, result]
    with pytest.raises(anthropic.BadRequestError) as caught:  # the unsigned block a tool-use turn needs: a 400
        client.messages.create(model="m", max_tokens=100, messages=in_tool_use)  # type: ignore[arg-type]
    assert "thinking block sluicegate redacted" in str(caught.value)
    _play(upstream, "anthropic", thinking=plain)  # an ended turn sent back: its marked block dropped, not a 400
    later = [*MESSAGES, {"role": "assistant", "content": turn}, {"role": "user", "content": "and then?"}]
    client.messages.create(model="m", max_tokens=100, messages=later)  # type: ignore[arg-type]
    sent = upstream.last.json["messages"]
    assert [b["type"] for b in sent[-2]["content"]] == ["redacted_thinking", "text"]
    assert UNSIGNED_THINKING not in json.dumps(sent)


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
def test_async_sdks_read_the_reasoning(shown_url: str, upstream: Upstream, dialect: str) -> None:
    _play(upstream, dialect)

    async def run() -> str:
        if dialect == "anthropic":
            client = anthropic.AsyncAnthropic(api_key="k", base_url=shown_url, max_retries=0)
            async with client.messages.stream(model="m", max_tokens=10, messages=MESSAGES) as stream:  # type: ignore[arg-type]
                return "".join([e.thinking async for e in stream if e.type == "thinking"])
        oa = openai.AsyncOpenAI(api_key="k", base_url=shown_url + "/v1", max_retries=0)
        if dialect == "chat":
            chunks = await oa.chat.completions.create(model="m", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
            extras = [c.choices[0].delta.model_extra or {} async for c in chunks if c.choices]
            return "".join(e.get("reasoning_content") or "" for e in extras)
        async with oa.responses.stream(model="m", input="q") as rstream:
            return "".join([e.delta async for e in rstream if e.type == "response.reasoning_summary_text.delta"])

    assert asyncio.run(run()) == SHOWN


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
def test_a_stop_in_the_reasoning_closes_the_upstream(shown_url: str, upstream: Upstream, dialect: str) -> None:
    pieces = events_of(rs.BUILD[dialect](["Let me look. ", *streams.pieces(PEM, 11), "Done."], ANSWER * 40))
    upstream.play(pieces, interval=0.01)
    body = streams.request_body(dialect)
    raw = httpx.post(shown_url + PATHS[dialect], json=body, timeout=20).content
    seen = upstream.last.wait()
    assert not seen.completed and seen.disconnected is not None and len(seen.sent) < len(pieces)
    assert b"BEGIN RSA" not in raw and b"MIIE" not in raw and b"opens at nine" not in raw
    assert {"chat": b'"content_filter"', "responses": b"response.incomplete", "anthropic": b'"refusal"'}[dialect] in raw


@pytest.mark.parametrize("dialect", ["chat", "responses", "anthropic"])
@pytest.mark.parametrize("stream", [True, False])
def test_off_by_default_not_one_reasoning_character_on_the_wire(
    proxy_url: str, upstream: Upstream, dialect: str, stream: bool
) -> None:
    marker = "Zorblax weighs the opening hours quietly."
    _play(upstream, dialect, thinking=marker, **({"redacted": True} if dialect == "anthropic" else {}))
    raw = httpx.post(proxy_url + PATHS[dialect], json=streams.request_body(dialect, stream=stream), timeout=20).content
    assert b"Zorblax" not in raw and b"weighs" not in raw and b"thinking" not in raw
    assert b"reasoning" not in raw.replace(b'"reasoning_tokens"', b"")
    assert rs.SIGNATURE.encode() not in raw and rs.ENCRYPTED.encode() not in raw and b"EmwKAhgB" not in raw
    assert b"library" in raw  # the answer itself went through


def test_the_reasoning_table_is_checked() -> None:
    assert config_from({"reasoning": {"show": True}}, upstream="http://u").show_reasoning is True
    assert config_from({}, upstream="http://u").show_reasoning is False
    with pytest.raises(ConfigError, match="show must be true or false"):
        config_from({"reasoning": {"show": "yes"}}, upstream="http://u")
    with pytest.raises(ConfigError, match="unknown key"):
        config_from({"reasoning": {"shown": True}}, upstream="http://u")


# Real recordings with reasoning, replayed byte for byte (tests/services/replay_upstream.py; origins, commits and
# licenses in tests/lifecycle/fixtures/real/README.md), through the proxy with reasoning shown.
REAL = [
    "chat/pai_deepseek_thinking.sse",
    "responses/pai_deepseek_function_tool.sse",
    "anthropic/pai_anthropic_model_thinking_part_stream__0.sse",
    "anthropic/pai_anthropic_model_thinking_part_redacted_stream__0.sse",
]


@pytest.fixture(scope="module")
def replayed() -> Iterator[str]:
    with serve_replay(Pace()) as replay, running({"reasoning": {"show": True}}, replay.url) as url:
        yield url


@pytest.mark.parametrize("key", REAL)
def test_real_recordings_through_the_proxy_with_reasoning_shown(replayed: str, key: str) -> None:
    dialect, body, data = _real_body(key)
    body["model"] = key  # the replay upstream picks the recording by model
    options = {"field": "reasoning_content"} if dialect == "chat" else {}
    raw = httpx.post(replayed + PATHS[dialect], json=body, timeout=20).content
    recorded, seen = _read(dialect, load(STREAMS[key]), options), _read(dialect, raw, options)
    assert seen.final == redact(recorded.final) and seen.answer == redact(recorded.answer), key
    assert seen.end == recorded.end and len(seen.opaque) == len(recorded.opaque), key


# Shown reasoning and server-side tool blocks in one answer: real recordings (tests/lifecycle/fixtures/real,
# origins in its README) through the proxy; the blocks, thinking included, in the upstream's order.
SEARCHES = {
    "anthropic": "anthropic/pai_anthropic_web_fetch_tool_stream__0.sse",
    "responses": "responses/pai_web_search.sse",
}


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
@pytest.mark.parametrize("dialect", ["anthropic", "responses"])
def test_reasoning_and_server_blocks_stream_and_whole(shown_url: str, upstream: Upstream, dialect: str) -> None:
    from tests.dialects import server_blocks as sb

    recorded = load(STREAMS[SEARCHES[dialect]])
    raw = sb.sdk_message(dialect, recorded)
    want = [b.type for b in (raw.content if dialect == "anthropic" else raw.output)]
    assert want[0] in ("thinking", "reasoning") and want[-1] in ("text", "message")
    upstream.play(events_of(recorded))
    client: anthropic.Anthropic | openai.OpenAI
    if dialect == "anthropic":
        client = anthropic.Anthropic(api_key="k", base_url=shown_url, max_retries=0)
    else:
        client = openai.OpenAI(api_key="k", base_url=shown_url + "/v1", max_retries=0)
    streamed = sb.final(dialect, client, max_tokens=100, messages=MESSAGES)
    upstream.play(events_of(recorded))
    whole = sb.final(dialect, client, stream=False, max_tokens=100, messages=MESSAGES)
    got = [sb.dump(dialect, m) for m in (streamed, whole)]
    if dialect == "anthropic":
        thinking = [b for b in raw.content if b.type == "thinking"]
        assert [b for b in got[0] if b["type"] == "thinking"] == [
            {"type": "thinking", "thinking": b.thinking, "signature": b.signature} for b in thinking
        ]
    else:
        ids = [b.id for b in raw.output if b.type != "message"]
        assert [b["id"] for b in got[0] if b["type"] != "message"] == ids
    assert [b["type"] for b in got[0]] == [b["type"] for b in got[1]] == want
    assert [b for b in got[1] if b["type"] in ("thinking", "reasoning")] == [
        b for b in got[0] if b["type"] in ("thinking", "reasoning")
    ]
    sb.compare(dialect, raw, streamed)


def test_metrics_name_a_reasoning_stop_and_count_its_redactions(shown_url: str, upstream: Upstream) -> None:
    """A stop in the reasoning is counted under its own code (not the answer's), and the reasoning's redactions
    under their entities; no value reaches /metrics."""
    _play(upstream, "chat")
    httpx.post(shown_url + PATHS["chat"], json=streams.request_body("chat"), timeout=20)
    upstream.play(events_of(rs.BUILD["chat"](["Let me look. ", *streams.pieces(PEM, 11)], ANSWER)))
    httpx.post(shown_url + PATHS["chat"], json=streams.request_body("chat"), timeout=20)
    text = httpx.get(shown_url + "/metrics", timeout=5).text
    assert 'sluicegate_proxy_stops_total{code="reasoning_unsettled_secret"}' in text
    assert 'sluicegate_proxy_redactions_total{entity="EMAIL_ADDRESS"}' in text
    assert "ana.bell" not in text and streams.SECRET not in text and "MIIE" not in text
