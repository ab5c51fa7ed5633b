"""Reasoning/thinking text through the relay: off by default (nothing of it on the wire), and when shown, only
through a redactor of its own, re-encoded so that each official SDK parses every frame (the oracle:
tests/dialects/reasoning_sdk.py). A value split at every offset inside the reasoning never leaks a prefix;
the client bytes are the same for every cut of the upstream bytes; a stop in the reasoning stops the response.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import redact
from sluicegate.dialects import UNSIGNED_THINKING, RequestError, parse_request
from sluicegate.redaction import DEFAULT_NOTICE
from tests.dialects import reasoning_sdk, sdk, streams
from tests.dialects import reasoning_streams as rs
from tests.dialects.helpers import body_of, relay
from tests.lifecycle.real_streams import OPEN_SCHEMA, STREAMS, load, sdk_result

DIALECTS = ["chat", "responses", "anthropic"]
EMAIL = "ana.bell@example.org"
THINKING = f"The user wants the opening hours. Their mail is {EMAIL} and the key {streams.SECRET} was pasted. Fine."
ANSWER = ["The library ", "opens at nine."]
MARKER = "Zorblax"  # a word only the reasoning has: its absence is checked on the wire
PLAIN = f"{MARKER} thinks about the opening hours. Nothing to redact here."
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzZ3PlainTestKeyMaterialThatNeverEnds0123456789abcd\n"
SHOW: dict[str, Any] = {}  # reasoning shown with the default redactor


def _request(dialect: str, stream: bool = True) -> dict[str, Any]:
    return streams.request_body(dialect, stream=stream)


def _variants() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("chat", {"field": "reasoning_content"}),
        ("chat", {"field": "reasoning"}),
        ("responses", {"kind": "summary"}),
        ("responses", {"kind": "text"}),
        ("anthropic", {}),
        ("anthropic", {"redacted": True}),
    ]


def _read(dialect: str, payload: bytes, options: dict[str, Any], stream: bool = True) -> reasoning_sdk.Thoughts:
    reader = (reasoning_sdk.STREAM if stream else reasoning_sdk.BODY)[dialect]
    if dialect == "chat":
        return reader(payload, options.get("field", "reasoning_content"))  # type: ignore[call-arg]
    return reader(payload)


@pytest.mark.parametrize(("dialect", "options"), _variants())
def test_shown_reasoning_is_redacted_and_parses_in_the_sdk(dialect: str, options: dict[str, Any]) -> None:
    upstream = rs.BUILD[dialect](streams.pieces(THINKING, 5), ANSWER, **options)
    out, r = relay(dialect, _request(dialect), upstream, reasoning=SHOW)
    seen = _read(dialect, out, options)
    assert r.reason == "complete"
    assert seen.text == seen.final == redact(THINKING)
    assert EMAIL not in seen.text and streams.SECRET not in seen.text
    assert seen.answer == "".join(ANSWER) and seen.end == sdk.COMPLETE[dialect]
    if dialect == "responses":
        assert seen.done == [redact(THINKING)]  # the .done events carry the redacted text
        assert seen.opaque == [{"encrypted_content": rs.ENCRYPTED}]  # ciphertext passed on as it came
    if dialect == "anthropic":
        assert seen.signatures == [UNSIGNED_THINKING]  # the text changed: Anthropic's signature is not passed on
        assert seen.opaque == ([rs.REDACTED_BLOCK] if options.get("redacted") else [])
    _, whole = body_of(dialect, _request(dialect, stream=False), upstream, reasoning=SHOW)
    body = _read(dialect, whole, options, stream=False)
    assert (body.final, body.answer, body.end) == (seen.final, seen.answer, seen.end)
    assert (body.signatures, body.opaque) == (seen.signatures, seen.opaque)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_usage_is_what_the_upstream_billed(dialect: str) -> None:
    upstream = rs.BUILD[dialect](streams.pieces(THINKING, 5), ANSWER)
    shown, _ = relay(dialect, _request(dialect), upstream, reasoning=SHOW)
    hidden, _ = relay(dialect, _request(dialect), upstream)
    assert sdk.STREAM[dialect](shown).usage == sdk.STREAM[dialect](hidden).usage
    assert sdk.STREAM[dialect](shown).usage[1] == 40  # type: ignore[index]


def test_chat_reasoning_resumed_after_the_answer_is_a_new_part() -> None:
    first = rs.chat([f"Mail {EMAIL[:6]}", f"{EMAIL[6:]} first. "], ["Hello. "])
    second = rs.chat([f"Then {streams.SECRET[:9]}", f"{streams.SECRET[9:]} too."], ["Bye."])
    events = [e + b"\n\n" for e in first.split(b"\n\n") if e][:4]  # role, two reasoning deltas, the answer
    resumed = b"".join(events) + b"".join([e + b"\n\n" for e in second.split(b"\n\n") if e][1:])
    out, r = relay("chat", _request("chat"), resumed, reasoning=SHOW)
    seen = reasoning_sdk.chat_stream(out)
    assert r.reason == "complete" and seen.answer == "Hello. Bye."
    assert seen.text == seen.final == redact(f"Mail {EMAIL} first. ") + redact(f"Then {streams.SECRET} too.")


def test_an_unchanged_thinking_block_keeps_its_signature() -> None:
    upstream = rs.anthropic(streams.pieces(PLAIN, 4), ANSWER)
    out, _ = relay("anthropic", _request("anthropic"), upstream, reasoning=SHOW)
    seen = reasoning_sdk.anthropic_stream(out)
    assert seen.final == PLAIN and seen.signatures == [rs.SIGNATURE]
    _, whole = body_of("anthropic", _request("anthropic", stream=False), upstream, reasoning=SHOW)
    assert reasoning_sdk.anthropic_body(whole).signatures == [rs.SIGNATURE]


def test_a_redacted_thinking_block_in_a_tool_use_turn_is_refused_with_a_reason() -> None:
    """The last assistant turn's thinking must come back unmodified before its `tool_use`: a marked block there
    cannot verify, so the turn is refused before any upstream call, naming the block."""
    block = {"type": "thinking", "thinking": "x", "signature": UNSIGNED_THINKING}
    use = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    assistant = {"role": "assistant", "content": [block, use]}
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}, assistant, result]}
    with pytest.raises(RequestError) as caught:
        parse_request("anthropic", json.dumps(body))
    assert caught.value.code == "thinking_redacted" and caught.value.status == 400
    assert "messages[1].content[0]" in caught.value.message
    signed = {"type": "thinking", "thinking": "x", "signature": rs.SIGNATURE}
    body["messages"][1] = {"role": "assistant", "content": [signed, use]}
    assert parse_request("anthropic", json.dumps(body)).upstream["messages"][1]["content"][0] == signed


def test_a_redacted_thinking_block_of_an_ended_turn_is_dropped_before_the_upstream() -> None:
    """Outside a tool-use cycle Anthropic does not need earlier thinking but verifies any block it is sent: the
    proxy drops its own marked blocks from those turns (a plain multi-turn chat keeps working), and keeps every
    other block, Anthropic's signed ones included, as the client sent them."""
    marked = {"type": "thinking", "thinking": "x", "signature": UNSIGNED_THINKING}
    signed = {"type": "thinking", "thinking": "y", "signature": rs.SIGNATURE}
    use = {"type": "tool_use", "id": "t1", "name": "f", "input": {}}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [marked, use]},  # an earlier tool-use cycle, ended since
        result,
        {"role": "assistant", "content": [signed, {"type": "text", "text": "a"}]},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": [marked, {"type": "text", "text": "b"}]},  # last turn, no tool use
        {"role": "user", "content": "q3"},
    ]
    body = {"model": "m", "max_tokens": 5, "messages": messages}
    sent = parse_request("anthropic", json.dumps(body)).upstream["messages"]
    assert sent[1]["content"] == [use] and sent[3]["content"] == messages[3]["content"]
    assert sent[5]["content"] == [{"type": "text", "text": "b"}] and sent[6] == messages[6]
    assert [m["role"] for m in sent] == [m["role"] for m in messages]
    # A turn left with nothing goes (Anthropic refuses empty content and joins consecutive user turns itself).
    only = {"role": "assistant", "content": [marked]}
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}, only, messages[4]]}
    assert parse_request("anthropic", json.dumps(body)).upstream["messages"] == [messages[0], messages[4]]


@pytest.mark.parametrize(("dialect", "options"), _variants())
def test_off_by_default_no_reasoning_character_reaches_the_client(dialect: str, options: dict[str, Any]) -> None:
    upstream = rs.BUILD[dialect](streams.pieces(PLAIN, 5), ANSWER, **options)
    out, r = relay(dialect, _request(dialect), upstream)
    _, whole = body_of(dialect, _request(dialect, stream=False), upstream)
    for wire in (out, whole):
        assert MARKER.encode() not in wire and b"thinks about" not in wire
        assert b"reasoning" not in wire.replace(b'"reasoning_tokens"', b"") and b"thinking" not in wire
        assert rs.SIGNATURE.encode() not in wire and rs.ENCRYPTED.encode() not in wire
        assert b"EmwKAhgB" not in wire
    assert r.reason == "complete" and _read(dialect, out, options).answer == "".join(ANSWER)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("value", [EMAIL, streams.SECRET])
def test_a_value_split_at_every_offset_inside_reasoning_never_leaks_a_prefix(dialect: str, value: str) -> None:
    text = f"Noting it: {value} is in the ticket."
    start = text.index(value)
    whole, _ = relay(dialect, _request(dialect), rs.BUILD[dialect]([text], ANSWER), reasoning=SHOW)
    assert value.encode() not in whole
    assert _read(dialect, whole, {}).text == redact(text)
    for offset in range(start + 1, start + len(value)):
        upstream = rs.BUILD[dialect]([text[:offset], text[offset:]], ANSWER)
        out, _ = relay(dialect, _request(dialect), upstream, reasoning=SHOW)
        seen = _read(dialect, out, {})
        # Every frame's text is in the concatenation, which is the whole-string redaction: no prefix went out.
        assert seen.text == seen.final == redact(text), offset
        assert value[:3].encode() not in out, offset


def _secret_stream(dialect: str) -> bytes:
    return rs.BUILD[dialect](streams.pieces(THINKING, 9), ANSWER)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_two_read_cut_gives_the_same_client_bytes(dialect: str) -> None:
    upstream = _secret_stream(dialect)
    whole, first = relay(dialect, _request(dialect), upstream, reasoning=SHOW)
    step = 1 if dialect != "responses" else 3  # Responses' stream is three times longer: the rest by Hypothesis
    for cut in range(1, len(upstream), step):
        out, r = relay(dialect, _request(dialect), upstream, cuts=[cut], reasoning=SHOW)
        assert out == whole, cut
        assert r.reason == first.reason


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_chunkings_give_the_same_client_bytes(dialect: str, data: st.DataObject) -> None:
    upstream = _secret_stream(dialect) if data.draw(st.booleans()) else _stop_stream(dialect)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(upstream) - 1), max_size=40)))
    whole, _ = relay(dialect, _request(dialect), upstream, reasoning=SHOW)
    out, _ = relay(dialect, _request(dialect), upstream, cuts=cuts, reasoning=SHOW)
    assert out == whole


def _stop_stream(dialect: str) -> bytes:
    return rs.BUILD[dialect](["Let me look. ", *streams.pieces(PEM, 11), "Done thinking."], ANSWER)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [True, False])
def test_a_stop_in_the_reasoning_stops_the_response(dialect: str, stream: bool) -> None:
    """An unterminated private-key block in the thinking: the reasoning's redactor fails closed at the part's
    end, and the response ends in the stop shape, nothing of the key or of the answer shown."""
    upstream = _stop_stream(dialect)
    out, r = relay(dialect, _request(dialect, stream=stream), upstream, reasoning=SHOW)
    assert r.stopped and r.reason == "stopped"
    if stream:
        seen = _read(dialect, out, {})
        got = sdk.STREAM[dialect](out)
        wire = out
    else:
        status, payload = r.body()
        assert status == 200
        wire = json.dumps(payload).encode()
        seen = _read(dialect, wire, {}, stream=False)
        got = sdk.BODY[dialect](wire)
    assert b"BEGIN RSA" not in wire and b"MIIE" not in wire and b"opens at nine" not in wire
    assert got.end == sdk.STOPPED[dialect]
    assert seen.final == "Let me look. " and got.text == DEFAULT_NOTICE  # the notice: no answer text before it
    if dialect == "anthropic":
        assert seen.signatures == [UNSIGNED_THINKING]


def test_the_stop_closes_the_upstream_at_once() -> None:
    """The relay reports the stop when the part ends: the proxy closes the upstream there (tests/proxy)."""
    upstream = _stop_stream("anthropic")
    marker = upstream.index(b"content_block_stop")
    _, r = relay("anthropic", _request("anthropic"), upstream, cuts=[marker + 60], reasoning=SHOW)
    assert r.stopped


# Real recorded streams with reasoning (tests/lifecycle/fixtures/real: origin, commit and license in its README).
REAL = [
    "chat/pai_deepseek_thinking.sse",
    "chat/pai_groq_tool_call.sse",
    "responses/pai_deepseek_function_tool.sse",
    "responses/vercel_openai_reasoning_encrypted_content_1.jsonl#0",
    "anthropic/pai_anthropic_model_thinking_part_stream__0.sse",
    "anthropic/pai_anthropic_model_thinking_part_redacted_stream__0.sse",
]


def _real_body(key: str) -> tuple[str, dict[str, Any], bytes]:
    entry = STREAMS[key]
    dialect = entry["provider"]
    data = load(entry)
    names = sorted({name for _, name, _ in sdk_result(entry, data).calls})
    body: dict[str, Any] = {"model": "m", "stream": True}
    if dialect == "chat":
        body["messages"] = [{"role": "user", "content": "q"}]
        tools = [{"type": "function", "function": {"name": n, "parameters": OPEN_SCHEMA}} for n in names]
    elif dialect == "anthropic":
        body |= {"max_tokens": 100, "messages": [{"role": "user", "content": "q"}]}
        tools = [{"name": n, "input_schema": OPEN_SCHEMA} for n in names]
    else:
        body["input"] = "q"
        tools = [{"type": "function", "name": n, "parameters": OPEN_SCHEMA} for n in names]
    if tools:
        body["tools"] = tools
    return dialect, body, data


def _field(data: bytes) -> str:
    return "reasoning_content" if b'"reasoning_content"' in data else "reasoning"


@pytest.mark.parametrize("key", REAL)
def test_real_recordings_show_the_redacted_reasoning_the_sdk_reads_upstream(key: str) -> None:
    """The SDK reads the recording itself (its reasoning text is the oracle), then our frames: the same text
    through `redact`, the same opaque blocks; off, none of that text is on the wire."""
    dialect, body, data = _real_body(key)
    options = {"field": _field(data)} if dialect == "chat" else {}
    recorded = _read(dialect, data, options)
    assert recorded.final or recorded.opaque, key  # the recording has reasoning (or only redacted_thinking)
    out, _ = relay(dialect, body, data, reasoning=SHOW)
    seen = _read(dialect, out, options)
    assert seen.text == seen.final == redact(recorded.final), key
    assert seen.answer == redact(recorded.answer) and seen.end == recorded.end, key
    if dialect == "responses":  # OpenAI re-encrypts at each copy (added, done, completed): the item's own is passed
        assert len(seen.opaque) == len(recorded.opaque), key
        assert all(json.dumps(o["encrypted_content"]).encode() in data for o in seen.opaque), key
    else:
        assert seen.opaque == recorded.opaque, key
    if dialect == "anthropic":
        unchanged = redact(recorded.final) == recorded.final
        assert seen.signatures == (recorded.signatures if unchanged else [UNSIGNED_THINKING] * len(recorded.signatures))
    hidden, _ = relay(dialect, body, data)
    words = recorded.final.split()
    windows = {" ".join(words[i : i + 4]) for i in range(len(words) - 3)}  # every 4 words, as JSON writes them
    assert not any(json.dumps(w, ensure_ascii=False)[1:-1].encode() in hidden for w in windows), key
    assert windows or recorded.opaque, key
    assert not any(str(v)[:40].encode() in hidden for o in recorded.opaque for v in o.values() if len(str(v)) > 40)
    assert _read(dialect, hidden, options).final == ""


SDK_CANNOT_READ = {"chat/pai_openrouter_annotations.sse", "responses/vercel_parallel_tool_call_wrapper_1.jsonl"}


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
@pytest.mark.parametrize("key", sorted(set(STREAMS) - SDK_CANNOT_READ))
def test_showing_reasoning_changes_nothing_of_the_answer(key: str) -> None:
    """Every real recording, reasoning shown and not: the SDK reads the same answer text, end, calls and error."""
    dialect, body, data = _real_body(key)
    shown, on = relay(dialect, body, data, reasoning=SHOW)
    hidden, off = relay(dialect, body, data)
    a, b = sdk.STREAM[dialect](shown), sdk.STREAM[dialect](hidden)
    assert (a.text, a.end, a.calls, a.usage, a.error is None) == (b.text, b.end, b.calls, b.usage, b.error is None)
    assert on.reason == off.reason


def test_an_opaque_block_passes_only_its_ciphertext() -> None:
    """`redacted_thinking` is passed on unredacted, so only its `type` and `data` (the ciphertext) may pass:
    a compatible upstream (or a translating gateway) that adds a plain-text field must not carry it past."""
    leaky = {**rs.REDACTED_BLOCK, "thinking": f"{MARKER} mailed {EMAIL}", "note": streams.SECRET}
    upstream = rs.anthropic(streams.pieces(PLAIN, 4), ANSWER, redacted=True).replace(
        json.dumps(rs.REDACTED_BLOCK).encode(), json.dumps(leaky).encode()
    )
    assert EMAIL.encode() in upstream  # the planted block is in the upstream bytes
    out, _ = relay("anthropic", _request("anthropic"), upstream, reasoning=SHOW)
    _, whole = body_of("anthropic", _request("anthropic", stream=False), upstream, reasoning=SHOW)
    for wire in (out, whole):
        assert EMAIL.encode() not in wire and streams.SECRET.encode() not in wire
        assert rs.REDACTED_BLOCK["data"].encode() in wire  # the ciphertext itself still passes


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("where", ["reasoning", "answer"])
def test_a_lone_surrogate_escape_is_no_crash(dialect: str, where: str) -> None:
    """`"\\ud800"` is valid JSON but no UTF-8 text: the relay wrote frames with it and raised UnicodeEncodeError
    mid-stream (no end frame). It is replaced by "?" at decoding, so the redactor checks what the client gets."""
    lone = "\\" + "ud800"  # the six characters of the JSON escape, written into the upstream bytes as they are
    thinking, answer = (["ok ", "LONE", " more"], ANSWER) if where == "reasoning" else (["ok"], ["The LONE end."])
    upstream = rs.BUILD[dialect](thinking, answer).replace(b"LONE", lone.encode())
    assert json.loads(f'"{lone}"') == "\ud800"
    out, r = relay(dialect, _request(dialect), upstream, reasoning=SHOW)
    out.decode("utf-8")  # strict: every frame is UTF-8
    assert r.reason == "complete"
    shown = _read(dialect, out, {})
    assert "?" in (shown.final if where == "reasoning" else shown.answer)
