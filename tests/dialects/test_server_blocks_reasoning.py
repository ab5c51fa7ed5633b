"""Shown reasoning and server-side tool blocks in one response: the thinking blocks (Anthropic) or reasoning items
(Responses) the relay writes through their own redactor, the server blocks it passes whole and the answer's text
all keep the upstream's order and numbering, streamed and in the non-streaming body.

The upstreams are real recordings (tests/lifecycle/fixtures/real, origins and licenses in its README) whose one
answer holds reasoning, a web search or fetch and text; the oracle is the official SDK (`anthropic`, `openai`):
what it accumulates from the raw recording, reasoning text through the redactor, is what it must accumulate
from the relay's frames and read from the body.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import redact
from sluicegate.dialects import UNSIGNED_THINKING
from sluicegate.sse import SSEParser
from tests.dialects import server_blocks as sb
from tests.dialects import streams as sts
from tests.dialects import test_server_blocks as tsb
from tests.dialects.helpers import body_of, relay
from tests.dialects.test_server_blocks import body_for, first_message
from tests.lifecycle.real_streams import STREAMS, load

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

SHOW: dict[str, Any] = {}  # `[reasoning] show = true` with the default redactor

ANTHROPIC = [  # thinking, server_tool_use, *_tool_result, text (the second: two searches, text between)
    "anthropic/pai_anthropic_web_fetch_tool_stream__0.sse",
    "anthropic/pai_anthropic_model_web_search_tool_stream__0.sse",
]
RESPONSES = [  # reasoning, web_search_call, reasoning, (web_search_call, reasoning,) message
    "responses/pai_web_search.sse",
    "responses/vercel_openai_web_search_tool_1.jsonl",
]


def events(data: bytes) -> list[dict[str, Any]]:
    parser = SSEParser()
    found = [*parser.feed(data), *parser.close()]
    return [json.loads(e.data) for e in found if e.data.strip() not in ("", "[DONE]")]


def starts(data: bytes) -> list[tuple[int, str]]:
    """Each Anthropic block's (index, type) as its `content_block_start` numbers it."""
    return [(p["index"], p["content_block"]["type"]) for p in events(data) if p.get("type") == "content_block_start"]


def added(data: bytes) -> list[tuple[int, str, str]]:
    """Each Responses output item's (output_index, type, id) as its `output_item.added` numbers it."""
    return [
        (p["output_index"], p["item"]["type"], p["item"]["id"])
        for p in events(data)
        if p.get("type") == "response.output_item.added"
    ]


def _thinking_as_shown(block: dict[str, Any]) -> dict[str, Any]:
    """The raw recording's thinking block as the relay shows it: redacted, signed only if unchanged."""
    shown = redact(block["thinking"])
    return {**block, "thinking": shown, "signature": block["signature"] if shown == block["thinking"] else ""}


@pytest.mark.parametrize("key", ANTHROPIC)
def test_anthropic_thinking_server_blocks_and_text_keep_the_upstreams_order(key: str) -> None:
    data = load(STREAMS[key])
    body = body_for("anthropic", data)
    out, r = relay("anthropic", body, data, reasoning=SHOW)
    assert r.reason == "complete", r.reason
    upstream = first_message("anthropic", data)
    # Every block of the upstream's, thinking included, at the upstream's own index, in its order.
    assert starts(out) == starts(upstream)
    assert starts(out)[0][1] == "thinking" and {"server_tool_use", "text"} <= {t for _, t in starts(out)}
    for p in events(out):  # each delta and stop names the block its start opened
        if p.get("type") in ("content_block_delta", "content_block_stop"):
            assert p["index"] in dict(starts(out))
    raw = sb.dump("anthropic", sb.sdk_message("anthropic", upstream))
    ours = sb.dump("anthropic", sb.sdk_message("anthropic", out))
    assert [b["type"] for b in ours] == [b["type"] for b in raw]
    for got, want in zip(ours, raw, strict=True):
        if want["type"] == "thinking":
            shown = _thinking_as_shown(want)
            assert got["thinking"] == shown["thinking"] and got["thinking"]
            assert got["signature"] == (shown["signature"] or UNSIGNED_THINKING)
        elif want["type"] == "text":
            assert got["text"] == redact(want["text"])
        else:  # server blocks: as the upstream sent them
            assert got == want
    # Non-streaming: the same blocks in the same places, the thinking's text and signature in its own entry.
    status, whole = body_of("anthropic", body, data, reasoning=SHOW)
    assert status == 200
    got_body = sb.dump("anthropic", sb.sdk_message("anthropic", whole, stream=False))
    assert [b["type"] for b in got_body] == [b["type"] for b in ours]
    for b_body, b_stream in zip(got_body, ours, strict=True):
        if b_body["type"] in ("thinking", "text"):
            assert b_body == b_stream
        else:
            assert b_body["type"] == b_stream["type"] and b_body.get("id") == b_stream.get("id")


@pytest.mark.parametrize("key", RESPONSES)
def test_responses_reasoning_items_server_items_and_message_keep_the_upstreams_order(key: str) -> None:
    data = load(STREAMS[key])
    body = body_for("responses", data)
    out, r = relay("responses", body, data, reasoning=SHOW)
    assert r.reason == "complete", r.reason
    upstream = first_message("responses", data)
    # Every item at the upstream's output_index, with its id (ours for the message), in its order.
    got_items, want_items = added(out), added(upstream)
    assert [(i, t) for i, t, _ in got_items] == [(i, t) for i, t, _ in want_items]
    assert [d for _, t, d in got_items if t != "message"] == [d for _, t, d in want_items if t != "message"]
    types = [t for _, t, _ in got_items]
    assert types[0] == "reasoning" and "web_search_call" in types and types[-1] == "message"
    numbers = [p["sequence_number"] for p in events(out)]
    assert numbers == list(range(len(numbers)))
    raw = sb.dump("responses", sb.sdk_message("responses", upstream))
    ours = sb.dump("responses", sb.sdk_message("responses", out))
    # The ciphertext passed is the one of the item's own `output_item.done` (response.completed may carry a
    # fresh encryption of the same reasoning: either is the provider's).
    sealed = {
        p["item"]["id"]: p["item"].get("encrypted_content")
        for p in events(upstream)
        if p.get("type") == "response.output_item.done" and p["item"]["type"] == "reasoning"
    }
    assert [(b["type"], b["id"]) for b in ours if b["type"] != "message"] == [
        (b["type"], b["id"]) for b in raw if b["type"] != "message"
    ]
    assert [b["type"] for b in ours] == [b["type"] for b in raw]
    for got, want in zip(ours, raw, strict=True):
        if want["type"] == "reasoning":
            assert [s["text"] for s in got.get("summary", [])] == [redact(s["text"]) for s in want.get("summary", [])]
            assert got.get("encrypted_content") == sealed[want["id"]]
        elif want["type"] == "message":
            assert sb.text_of("responses", got) == redact(sb.text_of("responses", want))
        else:
            assert got == want
    status, whole = body_of("responses", body, data, reasoning=SHOW)
    assert status == 200
    got_body = sb.dump("responses", sb.sdk_message("responses", whole, stream=False))
    assert [(b["type"], b.get("id")) for b in got_body] == [(b["type"], b.get("id")) for b in ours]
    assert [b for b in got_body if b["type"] == "reasoning"] == [b for b in ours if b["type"] == "reasoning"]
    assert sb.text_of("responses", got_body[-1]) == sb.text_of("responses", ours[-1])


# -- scripted: thinking that the redactor changes, a search after held text -------------------------------------

EMAIL = "ana.bell@example.org"
THINKING = f"The user asks about Bern. Their mail is {EMAIL}. A search will tell."


def _ev(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def _thinking_first(stream: bytes) -> bytes:
    """`stream` (an Anthropic answer) with a signed thinking block in front of its blocks, all renumbered."""
    out = b""
    for p in events(stream):
        if "index" in p:
            p = {**p, "index": p["index"] + 1}
        out += _ev(p)
        if p["type"] == "message_start":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            out += _ev({"type": "content_block_start", "index": 0, "content_block": start})
            for piece in sts.pieces(THINKING, 7):
                delta = {"type": "thinking_delta", "thinking": piece}
                out += _ev({"type": "content_block_delta", "index": 0, "delta": delta})
            delta = {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkA"}
            out += _ev({"type": "content_block_delta", "index": 0, "delta": delta})
            out += _ev({"type": "content_block_stop", "index": 0})
    return out


def test_anthropic_redacted_thinking_before_held_text_and_a_search() -> None:
    """The thinking's email replaced (so the block is marked unsigned), the answer's first text held by the
    redactor when the search begins: still thinking, text, search, result, cited text, at the upstream's
    indices, and the same blocks in the body."""
    upstream = _thinking_first(tsb.anthropic_search(tsb.FIRST, tsb.THEN))
    body = tsb.BODY["anthropic"]
    out, r = relay("anthropic", body, upstream, reasoning=SHOW)
    assert r.reason == "complete" and r.passed == 2
    assert starts(out) == starts(upstream)
    assert EMAIL.encode() not in out
    ours = sb.dump("anthropic", sb.sdk_message("anthropic", out))
    assert [b["type"] for b in ours] == ["thinking", "text", "server_tool_use", "web_search_tool_result", "text"]
    assert ours[0] == {"type": "thinking", "thinking": redact(THINKING), "signature": UNSIGNED_THINKING}
    assert ours[1]["text"] == tsb.FIRST and ours[4]["text"] == redact(tsb.THEN)
    status, whole = body_of("anthropic", body, upstream, reasoning=SHOW)
    assert status == 200
    assert sb.dump("anthropic", sb.sdk_message("anthropic", whole, stream=False)) == ours


def _thinking_after_search(stream: bytes) -> bytes:
    """`stream` (`anthropic_search`) with a thinking block between the search result and the cited text."""
    out = b""
    for p in events(stream):
        if p.get("index", -1) >= 3:
            p = {**p, "index": p["index"] + 1}
        if p["type"] == "content_block_start" and p["index"] == 4:
            start = {"type": "thinking", "thinking": "", "signature": ""}
            out += _ev({"type": "content_block_start", "index": 3, "content_block": start})
            for piece in sts.pieces(THINKING, 7):
                out += _ev(
                    {"type": "content_block_delta", "index": 3, "delta": {"type": "thinking_delta", "thinking": piece}}
                )
            out += _ev(
                {"type": "content_block_delta", "index": 3, "delta": {"type": "signature_delta", "signature": "Eq"}}
            )
            out += _ev({"type": "content_block_stop", "index": 3})
        out += _ev(p)
    return out


def _reasoning_after_search(stream: bytes) -> bytes:
    """`stream` (`responses_search`) with a reasoning item (one summary part) between the web search and the
    second message, output indices and sequence numbers renumbered."""
    rid, seq, out = "rs_2", iter(range(1000)), b""

    def ev(p: dict[str, Any]) -> bytes:
        return _ev({**p, "sequence_number": next(seq)})

    for p in events(stream):
        if p.get("output_index", -1) >= 2:
            p = {**p, "output_index": p["output_index"] + 1}
        if p["type"] == "response.output_item.added" and p["output_index"] == 3:
            item = {"id": rid, "type": "reasoning", "summary": []}
            out += ev({"type": "response.output_item.added", "output_index": 2, "item": item})
            at = {"item_id": rid, "output_index": 2, "summary_index": 0}
            part = {"type": "summary_text", "text": ""}
            out += ev({"type": "response.reasoning_summary_part.added", **at, "part": part})
            for piece in sts.pieces(THINKING, 7):
                out += ev({"type": "response.reasoning_summary_text.delta", **at, "delta": piece})
            out += ev({"type": "response.reasoning_summary_text.done", **at, "text": THINKING})
            part = {"type": "summary_text", "text": THINKING}
            out += ev({"type": "response.reasoning_summary_part.done", **at, "part": part})
            done = {**item, "summary": [part]}
            out += ev({"type": "response.output_item.done", "output_index": 2, "item": done})
        if p["type"] == "response.completed":
            output = p["response"]["output"]
            p = {
                **p,
                "response": {**p["response"], "output": [*output[:2], {"id": rid, "type": "reasoning"}, *output[2:]]},
            }
        out += ev(p)
    return out


INTERLEAVED = {
    "anthropic": lambda: _thinking_after_search(tsb.anthropic_search(tsb.FIRST, tsb.THEN)),
    "responses": lambda: _reasoning_after_search(tsb.responses_search(tsb.FIRST, tsb.THEN)),
}


@pytest.mark.parametrize("dialect", ["anthropic", "responses"])
def test_reasoning_after_a_server_block_waits_behind_the_held_text(dialect: str) -> None:
    """Interleaved: text (its last word held by the redactor when the search begins), the search, reasoning,
    text. The reasoning waits behind the search, which waits for the held text, so the client's order and
    numbering are the upstream's (not the reasoning first, splitting the first text)."""
    upstream = INTERLEAVED[dialect]()
    body = tsb.BODY[dialect]
    out, r = relay(dialect, body, upstream, reasoning=SHOW)
    assert r.reason == "complete" and r.passed == (2 if dialect == "anthropic" else 1)
    assert EMAIL.encode() not in out
    ours = sb.dump(dialect, sb.sdk_message(dialect, out))
    if dialect == "anthropic":
        assert starts(out) == starts(upstream)
        assert [b["type"] for b in ours] == ["text", "server_tool_use", "web_search_tool_result", "thinking", "text"]
        assert ours[0]["text"] == tsb.FIRST and ours[4]["text"] == redact(tsb.THEN)
        assert ours[3] == {"type": "thinking", "thinking": redact(THINKING), "signature": UNSIGNED_THINKING}
    else:
        assert [(i, t) for i, t, _ in added(out)] == [(i, t) for i, t, _ in added(upstream)]
        assert [b["type"] for b in ours] == ["message", "web_search_call", "reasoning", "message"]
        assert sb.text_of(dialect, ours[0]) == tsb.FIRST and sb.text_of(dialect, ours[3]) == redact(tsb.THEN)
        assert ours[2]["summary"] == [{"type": "summary_text", "text": redact(THINKING)}]
    status, whole = body_of(dialect, body, upstream, reasoning=SHOW)
    assert status == 200
    got = sb.dump(dialect, sb.sdk_message(dialect, whole, stream=False))
    assert [b["type"] for b in got] == [b["type"] for b in ours]
    assert [b for b in got if b["type"] in ("thinking", "reasoning")] == [
        b for b in ours if b["type"] in ("thinking", "reasoning")
    ]


@pytest.mark.parametrize("dialect", ["anthropic", "responses"])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_interleaved_reasoning_and_server_blocks_any_chunking_gives_the_same_frames(
    dialect: str, data: st.DataObject
) -> None:
    upstream = INTERLEAVED[dialect]()
    cuts = sorted(data.draw(st.sets(st.integers(1, len(upstream) - 1), max_size=80)))
    whole, _ = relay(dialect, tsb.BODY[dialect], upstream, reasoning=SHOW)
    out, _ = relay(dialect, tsb.BODY[dialect], upstream, cuts=cuts, reasoning=SHOW)
    assert out == whole
