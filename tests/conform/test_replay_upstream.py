"""The replay upstream itself: it sends exactly the recorded bytes, paced as asked, and records disconnects."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import anthropic
import httpx
import openai
import pytest

from sluicegate.cli._upstream import count_events
from tests.services.replay_upstream import (
    KEY_HEADER,
    Pace,
    ReplayUpstream,
    Reply,
    Script,
    plant,
    real_recordings,
    serve_replay,
    split_events,
)

RECORDINGS = real_recordings()
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}
LONG_CHAT = "chat/openai_python_parse_pydantic_model.sse"


@pytest.fixture(scope="module")
def fast() -> Iterator[ReplayUpstream]:
    """One unpaced upstream for the byte-exactness sweep (104 streams)."""
    with serve_replay(Pace()) as upstream:
        yield upstream


def _stream(url: str, api: str, key: str, *, header: bool = False) -> bytes:
    body = {"model": "ignored" if header else key, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    headers = {KEY_HEADER: key} if header else {}
    with httpx.stream("POST", url + PATHS[api], json=body, headers=headers, timeout=10) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        return b"".join(r.iter_raw())


def test_the_collection_is_all_loaded_from_the_real_fixtures() -> None:
    assert len(RECORDINGS) >= 104
    assert {r.api for r in RECORDINGS.values()} == {"chat", "responses", "anthropic"}


@pytest.mark.parametrize("key", sorted(RECORDINGS))
def test_every_recording_is_replayed_byte_for_byte(fast: ReplayUpstream, key: str) -> None:
    rec = RECORDINGS[key]
    got = _stream(fast.url, rec.api, key)
    assert got == rec.data
    ex = fast.last.wait()
    assert ex.completed and ex.disconnected is None and ex.key == key
    assert ex.bytes_sent == len(rec.data)
    assert ex.events_sent == count_events(rec.data) and len(ex.sent) == len(split_events(rec.data))


def test_the_key_can_ride_in_a_header(replay_upstream: ReplayUpstream) -> None:
    assert _stream(replay_upstream.url, "chat", LONG_CHAT, header=True) == RECORDINGS[LONG_CHAT].data
    assert replay_upstream.last.json["model"] == "ignored"


def test_the_key_can_ride_in_the_prompt_through_a_gateway_that_renames_the_model(
    replay_upstream: ReplayUpstream,
) -> None:
    replay_upstream.add("mark/1", Script(("a", "b")))
    body = {"model": "gpt-x", "stream": False, "messages": [{"role": "user", "content": "go [replay:mark/1] now"}]}
    r = httpx.post(replay_upstream.url + PATHS["chat"], json=body)
    assert r.json()["choices"][0]["message"]["content"] == "ab" and replay_upstream.last.key == "mark/1"


def test_paced_per_event_and_per_byte_chunk() -> None:
    data = RECORDINGS[LONG_CHAT].data
    events = len(split_events(data))
    with serve_replay(Pace(interval=0.01)) as up:
        t0 = time.monotonic()
        assert _stream(up.url, "chat", LONG_CHAT) == data
        elapsed = time.monotonic() - t0
        ex = up.last.wait()
        gaps = [b - a for a, b in zip(ex.sent, ex.sent[1:], strict=False)]
        assert len(ex.sent) == events and elapsed >= 0.01 * (events - 1)
        assert min(gaps) >= 0.009
        up.pace = Pace(interval=0.001, chunk_bytes=7)
        assert _stream(up.url, "chat", LONG_CHAT) == data
        assert len(up.last.wait().sent) == -(-len(data) // 7)


def test_explicit_cuts_give_two_reads_that_join_to_the_recording(replay_upstream: ReplayUpstream) -> None:
    data = RECORDINGS["anthropic/anthropic_sdk_basic_response.sse"].data
    for cut in (1, 57, len(data) // 2, len(data) - 1):
        replay_upstream.pace = Pace(interval=0.02, cuts=(cut,))
        body = {"model": "anthropic/anthropic_sdk_basic_response.sse", "stream": True, "messages": []}
        with httpx.stream("POST", replay_upstream.url + "/v1/messages", json=body) as r:
            reads = list(r.iter_raw())
        assert b"".join(reads) == data
        assert reads[0] == data[:cut]  # the 20 ms gap keeps the two writes apart on loopback
        assert len(replay_upstream.last.wait().sent) == 2


def test_a_client_disconnect_is_recorded_with_the_events_sent_by_then(replay_upstream: ReplayUpstream) -> None:
    replay_upstream.pace = Pace(interval=0.03)
    data = RECORDINGS[LONG_CHAT].data
    total = count_events(data)
    body = {"model": LONG_CHAT, "stream": True, "messages": []}
    with httpx.Client(timeout=10) as client, client.stream("POST", replay_upstream.url + PATHS["chat"], json=body) as r:
        seen = 0
        for line in r.iter_lines():
            seen += line.startswith("data:")
            if seen == 3:
                closed = time.monotonic()
                break  # closing the line iterator closes the connection (httpcore)
    ex = replay_upstream.last.wait()
    assert ex.disconnected is not None and not ex.completed
    assert 0 <= ex.disconnected - closed < 0.5
    assert 3 <= ex.events_sent < total // 2
    assert ex.bytes_sent < len(data)


def test_die_after_drops_the_connection_mid_body(replay_upstream: ReplayUpstream) -> None:
    replay_upstream.pace = Pace(die_after=3)
    with pytest.raises(httpx.RemoteProtocolError):
        _stream(replay_upstream.url, "chat", LONG_CHAT)
    ex = replay_upstream.last.wait()
    assert ex.died and ex.events_sent == 3 and ex.disconnected is None


def test_a_reply_entry_answers_with_its_status_and_body(replay_upstream: ReplayUpstream) -> None:
    body = json.dumps({"error": {"message": "slow down", "type": "rate_limit_error"}}).encode()
    replay_upstream.add("busy", Reply(429, body))
    r = httpx.post(replay_upstream.url + "/v1/chat/completions", json={"model": "busy", "stream": True})
    assert (r.status_code, r.content) == (429, body)
    r = httpx.post(replay_upstream.url + "/v1/chat/completions", json={"model": "nope", "stream": True})
    assert r.status_code == 404 and "nope" in r.json()["error"]["message"]
    r = httpx.post(replay_upstream.url + "/v1/messages", json={"model": LONG_CHAT, "stream": True})
    assert r.status_code == 400 and r.json()["type"] == "error"  # a chat recording asked as Anthropic
    assert httpx.get(replay_upstream.url + "/v1/models").json()["object"] == "list"


def test_non_streaming_bodies_of_recordings_are_what_the_stream_adds_up_to(replay_upstream: ReplayUpstream) -> None:
    oa = openai.OpenAI(base_url=replay_upstream.url + "/v1", api_key="k", max_retries=0)
    chat = oa.chat.completions.create(model="chat/openai_python_parse_nothing.sse", messages=[])
    streamed = "".join(
        c.choices[0].delta.content or ""
        for c in oa.chat.completions.create(model="chat/openai_python_parse_nothing.sse", messages=[], stream=True)
        if c.choices
    )
    assert chat.choices[0].message.content == streamed and chat.choices[0].finish_reason == "stop"
    assert chat.usage is not None and chat.usage.completion_tokens > 0

    resp = oa.responses.create(model="responses/pai_streaming_usage.sse", input="x")
    assert resp.status == "completed" and resp.usage is not None and resp.usage.output_tokens == 469

    an = anthropic.Anthropic(base_url=replay_upstream.url, api_key="k", max_retries=0)
    msg = an.messages.create(model="anthropic/anthropic_sdk_basic_response.sse", max_tokens=9, messages=[])
    assert [b.text for b in msg.content if b.type == "text"] == ["Hello there!"]
    assert msg.stop_reason == "end_turn" and msg.usage.output_tokens == 6

    # A recording that never completed has no faithful whole body.
    r = httpx.post(replay_upstream.url + PATHS["chat"], json={"model": "chat/pai_openrouter_stream_error.sse"})
    assert r.status_code == 501


VALUE = "jane.doe@example.com"


def test_plant_splits_the_value_at_the_given_offsets() -> None:
    deltas = plant(VALUE, [4, 9], before="Mail ", after=" now.")
    assert "".join(deltas) == f"Mail {VALUE} now."
    assert deltas == ("Mail jane", ".doe@", "example.com now.")
    assert plant(VALUE, [0], before="a ") == ("a ", VALUE)


@pytest.mark.parametrize("cut", range(1, len(VALUE)))
async def test_scripted_text_arrives_in_each_dialect_through_the_official_sdks(
    replay_upstream: ReplayUpstream, cut: int
) -> None:
    deltas = plant(VALUE, [cut], before="Write to ", after=".")
    replay_upstream.add("planted", Script(deltas))
    url = replay_upstream.url
    oa = openai.AsyncOpenAI(base_url=url + "/v1", api_key="k", max_retries=0)
    chunks = await oa.chat.completions.create(
        model="planted", messages=[], stream=True, stream_options={"include_usage": True}
    )
    got = [c.choices[0].delta.content async for c in chunks if c.choices and c.choices[0].delta.content]
    assert tuple(got) == deltas

    events = await oa.responses.create(model="planted", input="x", stream=True)
    seqs, texts, final = [], [], None
    async for ev in events:
        seqs.append(ev.sequence_number)
        if ev.type == "response.output_text.delta":
            texts.append(ev.delta)
        if ev.type == "response.completed":
            final = ev.response
    assert tuple(texts) == deltas and seqs == sorted(seqs) == list(range(len(seqs)))
    assert final is not None and final.output_text == "".join(deltas)

    an = anthropic.AsyncAnthropic(base_url=url, api_key="k", max_retries=0)
    async with an.messages.stream(model="planted", max_tokens=9, messages=[]) as s:
        texts = [t async for t in s.text_stream]
        message = await s.get_final_message()
    assert tuple(texts) == deltas and message.stop_reason == "end_turn"

    whole = await oa.chat.completions.create(model="planted", messages=[])
    assert whole.choices[0].message.content == "".join(deltas)
    w2 = await an.messages.create(model="planted", max_tokens=9, messages=[])
    assert w2.content[0].type == "text" and w2.content[0].text == "".join(deltas)
    w3 = await oa.responses.create(model="planted", input="x")
    assert w3.output_text == "".join(deltas)
