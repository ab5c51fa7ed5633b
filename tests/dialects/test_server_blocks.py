"""Server-side tool blocks (web search, web fetch, code execution, MCP, compaction...) pass through the relay as
the upstream sent them: renumbered into the client's stream, in the upstream's order relative to the text, with
the text around them redacted and their citations' quoted text too; nothing after a stop.

The oracle is the official SDK: what it accumulates from the raw recording (tests/lifecycle/fixtures/real, origins
and licenses in its README), the hidden reasoning left out and the text redacted, is what it must accumulate from
the relay's frames (`tests/dialects/server_blocks.compare`), streamed and as the non-streaming body.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.dialects._passthrough import ANTHROPIC_OWN, is_server_item
from tests.dialects import server_blocks as sb
from tests.dialects import streams
from tests.dialects.helpers import body_of, relay
from tests.lifecycle.real_streams import OPEN_SCHEMA, STREAMS, load

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

# Every recording whose SDK message holds a server block, and that the relay ends normally.
REAL = [
    "anthropic/pai_anthropic_advisor_tool_stream__0.sse",
    "anthropic/pai_anthropic_code_execution_tool_stream__0.sse",
    "anthropic/pai_anthropic_compaction_usage_with_cache_streaming__0.sse",
    "anthropic/pai_anthropic_mcp_servers_stream__0.sse",
    "anthropic/pai_anthropic_model_web_search_tool_stream__0.sse",
    "anthropic/pai_anthropic_native_tool_search_streaming__0.sse",
    "anthropic/pai_anthropic_text_editor_code_execution_tool_stream__0.sse",
    "anthropic/pai_anthropic_text_parts_ahead_of_built_in_tool_call__1.sse",
    "anthropic/pai_anthropic_text_parts_ahead_of_built_in_tool_call__2.sse",
    "anthropic/pai_anthropic_text_parts_ahead_of_built_in_tool_call__3.sse",
    "anthropic/pai_anthropic_web_fetch_tool_stream__0.sse",
    "anthropic/pai_anthropic_web_search_tool_stream__0.sse",
    "anthropic/pai_pause_turn_web_search_streaming_vcr__0.sse",
    "anthropic/pai_pause_turn_web_search_streaming_vcr__1.sse",
    "anthropic/vercel_anthropic_advisor_stop_reasons.jsonl",
    "anthropic/vercel_anthropic_code_execution_20250825_1.jsonl",
    "anthropic/vercel_anthropic_mcp_1.jsonl",
    "anthropic/vercel_anthropic_programmatic_tool_calling_1.jsonl",
    "anthropic/vercel_anthropic_tool_search_regex_1.jsonl",
    "anthropic/vercel_anthropic_web_fetch_tool_1.jsonl",
    "anthropic/vercel_anthropic_web_search_tool_1.jsonl",
    "responses/pai_code_interpreter.sse",
    "responses/pai_file_search.sse",
    "responses/pai_mcp_server_tool.sse",
    "responses/pai_native_tool_search.sse",
    "responses/pai_web_search.sse",
    "responses/vercel_openai_code_interpreter_tool_1.jsonl",
    "responses/vercel_openai_compaction_1.jsonl",
    "responses/vercel_openai_mcp_tool_1.jsonl",
    "responses/vercel_openai_web_search_tool_1.jsonl",
]


def first_message(dialect: str, data: bytes) -> bytes:
    """A recording up to its first terminal event (a multi-turn recording's first answer: all the relay reads)."""
    end = b'"message_stop"' if dialect == "anthropic" else b'"response.completed"'
    at = data.find(end)
    if at < 0:
        return data
    return data[: data.index(b"\n\n", at) + 2]


def body_for(dialect: str, data: bytes) -> dict[str, Any]:
    names = sorted({b["name"] for b in sb.blocks(dialect, sb.sdk_message(dialect, data)) if b["type"] in _CALLS})
    body: dict[str, Any] = {"model": "m", "stream": True}
    if dialect == "anthropic":
        body |= {"max_tokens": 100, "messages": [{"role": "user", "content": "q"}]}
        tools = [{"name": n, "input_schema": OPEN_SCHEMA} for n in names]
    else:
        body |= {"input": "q"}
        tools = [{"type": "function", "name": n, "parameters": OPEN_SCHEMA} for n in names]
    return body | ({"tools": tools} if tools else {})


_CALLS = ("tool_use", "function_call")


def raw_inputs(data: bytes) -> dict[str, Any]:
    """Each Anthropic block's input as its recorded `input_json_delta`s spell it (by block id)."""
    ids: dict[int, str] = {}
    parts: dict[str, str] = {}
    for block in data.split(b"\n\n"):
        line = next((x for x in block.split(b"\n") if x.startswith(b"data:")), None)
        if line is None:
            continue
        p = json.loads(line[5:])
        if p.get("type") == "content_block_start" and "id" in p["content_block"]:
            ids[p["index"]] = p["content_block"]["id"]
        elif p.get("type") == "content_block_delta" and p["delta"].get("type") == "input_json_delta":
            key = ids.get(p["index"], "")
            parts[key] = parts.get(key, "") + p["delta"]["partial_json"]
    return {k: json.loads(v) for k, v in parts.items() if v}


def test_the_list_holds_every_recording_with_server_blocks() -> None:
    """No recording with a server block is left out of REAL unless the relay refuses it for another reason."""
    refused = {  # the stricter reader or the recording itself (tests/lifecycle/test_real_streams.py)
        "anthropic/anthropic_sdk_compaction_response.sse",  # no blank line after its last event
        "anthropic/anthropic_sdk_fallback_response.sse",
        "anthropic/anthropic_sdk_stream_a_toolrefusal.sse",  # an upstream refusal: test_upstream_refusal_...
        "responses/vercel_openai_mcp_tool_approval_1.jsonl",  # mcp_approval_request: the client's to answer
        "responses/vercel_openai_shell_container_1.jsonl",
    }
    found = []
    for key, entry in STREAMS.items():
        dialect = entry["provider"]
        if dialect == "chat":
            continue
        raw = load(entry)
        try:
            message = sb.sdk_message(dialect, raw)
        except Exception:  # noqa: BLE001 - the SDK cannot read it: nothing to compare with
            continue
        if any(sb.is_server(dialect, b) for b in sb.blocks(dialect, message)):
            found.append(key)
    assert sorted(set(found) - refused) == sorted(REAL)


@pytest.mark.parametrize("key", REAL)
def test_real_recording_streamed_and_whole(key: str) -> None:
    entry = STREAMS[key]
    dialect = entry["provider"]
    data = load(entry)
    body = body_for(dialect, data)
    out, r = relay(dialect, body, data)
    assert r.reason in ("complete", "tool_calls", "pause_turn"), r.reason
    raw = sb.sdk_message(dialect, first_message(dialect, data))
    ours = sb.sdk_message(dialect, out)
    sb.compare(dialect, raw, ours)
    status, whole = body_of(dialect, body, data)
    assert status == 200
    got = sb.sdk_message(dialect, whole, stream=False)
    # The body is what the stream showed (the SDK's stream accumulator skips `compaction_delta`s, which the
    # body, like the API's own, holds: compared by type only).
    assert [b["type"] for b in sb.blocks(dialect, got)] == [b["type"] for b in sb.blocks(dialect, ours)]
    # The SDK's stream does not parse the input of every block type either (mcp_tool_use): the body holds the
    # recording's own input JSON there.
    unlike = ("compaction",)
    inputs = raw_inputs(data) if dialect == "anthropic" else {}
    streamed = [
        b | ({"input": inputs[b["id"]]} if b.get("input") == {} and b.get("id") in inputs else {})
        for b in sb.blocks(dialect, ours)
        if b["type"] not in unlike
    ]
    assert [b for b in sb.blocks(dialect, got) if b["type"] not in unlike] == streamed
    if dialect == "anthropic":
        assert got.stop_reason == ours.stop_reason == raw.stop_reason
    else:
        assert got.status == ours.status == "completed"


@pytest.mark.parametrize(
    "key", ["anthropic/pai_anthropic_web_search_tool_stream__0.sse", "responses/pai_web_search.sse"]
)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_real_recording_any_chunking_gives_the_same_frames(key: str, data: st.DataObject) -> None:
    entry = STREAMS[key]
    dialect = entry["provider"]
    upstream = load(entry)
    body = body_for(dialect, upstream)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(upstream) - 1), max_size=60)))
    whole, _ = relay(dialect, body, upstream)
    out, _ = relay(dialect, body, upstream, cuts=cuts)
    assert out == whole


# -- scripted streams: the order around held text, citations, a stop -------------------------------------------

EMAIL = "anna.meier@example.org"
QUOTE = f"Bern will be sunny on Friday, write to {EMAIL} for the forecast."
SEARCH = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [
        {
            "type": "web_search_result",
            "title": "Bern weather",
            "url": "https://weather.example/bern",
            "encrypted_content": "EqgfCioIARgBIiQ3",
            "page_age": "2 days ago",
        }
    ],
}
CITATION = {
    "type": "web_search_result_location",
    "cited_text": QUOTE,
    "url": "https://weather.example/bern",
    "title": "Bern weather",
    "encrypted_index": "Eo8BCioIAhgBIiQ",
}


def _ev(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def anthropic_search(first: str, then: str, *, planted: str = "", after_stop: bool = False) -> bytes:
    """Text, a web search and its result, cited text, more text (and optionally a second search after it)."""
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []}
    message |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}
    out = _ev({"type": "message_start", "message": message})
    index = 0

    def text_block(text: str, citation: dict[str, Any] | None = None) -> bytes:
        nonlocal index
        block: dict[str, Any] = {"type": "text", "text": ""} | ({"citations": []} if citation else {})
        b = _ev({"type": "content_block_start", "index": index, "content_block": block})
        if citation:
            delta = {"type": "citations_delta", "citation": citation}
            b += _ev({"type": "content_block_delta", "index": index, "delta": delta})
        for piece in streams.pieces(text, 9):
            delta = {"type": "text_delta", "text": piece}
            b += _ev({"type": "content_block_delta", "index": index, "delta": delta})
        b += _ev({"type": "content_block_stop", "index": index})
        index += 1
        return b

    def search() -> bytes:
        nonlocal index
        b = _ev({"type": "content_block_start", "index": index, "content_block": SEARCH})
        for piece in ('{"query": ', '"bern weather"}'):
            delta = {"type": "input_json_delta", "partial_json": piece}
            b += _ev({"type": "content_block_delta", "index": index, "delta": delta})
        b += _ev({"type": "content_block_stop", "index": index})
        b += _ev({"type": "content_block_start", "index": index + 1, "content_block": RESULT})
        b += _ev({"type": "content_block_stop", "index": index + 1})
        index += 2
        return b

    out += text_block(first) + search() + text_block(then, CITATION)
    if planted:
        out += text_block(planted)
    if after_stop:
        out += search()
    out += _ev({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 40}})
    return out + _ev({"type": "message_stop"})


def responses_search(first: str, then: str) -> bytes:
    seq = iter(range(1000))
    response = {"id": "resp_1", "object": "response", "created_at": 0, "status": "in_progress", "model": "m"}
    response |= {"output": [], "tools": [], "parallel_tool_calls": True, "tool_choice": "auto"}

    def ev(kind: str, **fields: Any) -> bytes:
        return _ev({"type": kind, **fields, "sequence_number": next(seq)})

    out = ev("response.created", response=response) + ev("response.in_progress", response=response)
    items: list[dict[str, Any]] = []

    def message(n: int, text: str) -> bytes:
        mid = f"msg_{n}"
        item = {"id": mid, "type": "message", "role": "assistant", "status": "in_progress", "content": []}
        b = ev("response.output_item.added", output_index=n, item=item)
        part = {"type": "output_text", "text": "", "annotations": []}
        b += ev("response.content_part.added", item_id=mid, output_index=n, content_index=0, part=part)
        for piece in streams.pieces(text, 9):
            b += ev("response.output_text.delta", item_id=mid, output_index=n, content_index=0, delta=piece)
        b += ev("response.output_text.done", item_id=mid, output_index=n, content_index=0, text=text)
        part = {"type": "output_text", "text": text, "annotations": []}
        b += ev("response.content_part.done", item_id=mid, output_index=n, content_index=0, part=part)
        done = {**item, "status": "completed", "content": [part]}
        items.append(done)
        return b + ev("response.output_item.done", output_index=n, item=done)

    ws = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    out += message(0, first)
    out += ev("response.output_item.added", output_index=1, item=ws)
    for step in ("in_progress", "searching", "completed"):
        out += ev(f"response.web_search_call.{step}", output_index=1, item_id="ws_1")
    done = {**ws, "status": "completed", "action": {"type": "search", "query": "bern weather"}}
    out += ev("response.output_item.done", output_index=1, item=done)
    items.append(done)
    out += message(2, then)
    final = {**response, "status": "completed", "output": [items[0], done, items[1]]}
    final["usage"] = {"input_tokens": 5, "output_tokens": 40, "total_tokens": 45}
    return out + ev("response.completed", response=final)


FIRST = "I will search for the news."  # the redactor holds "news." when the search begins
THEN = f"Bern will be sunny on Friday. Ask {EMAIL} for more."
SCRIPTED = {
    "anthropic": lambda: anthropic_search(FIRST, THEN),
    "responses": lambda: responses_search(FIRST, THEN),
}
BODY = {
    "anthropic": {"model": "m", "stream": True, "max_tokens": 100, "messages": [{"role": "user", "content": "q"}]},
    "responses": {"model": "m", "stream": True, "input": "q"},
}


@pytest.mark.parametrize("dialect", ["anthropic", "responses"])
def test_server_block_comes_after_the_held_text_before_it(dialect: str) -> None:
    out, r = relay(dialect, BODY[dialect], SCRIPTED[dialect]())
    assert r.reason == "complete" and r.passed == (2 if dialect == "anthropic" else 1)
    got = sb.blocks(dialect, sb.sdk_message(dialect, out))
    texts = [sb.text_of(dialect, b) for b in got if b["type"] in ("text", "message")]
    assert texts == [FIRST, THEN.replace(EMAIL, "<EMAIL_ADDRESS>")]  # "news." before the search, not after it
    kinds = [b["type"] for b in got]
    if dialect == "anthropic":
        assert kinds == ["text", "server_tool_use", "web_search_tool_result", "text"]
        assert got[1]["input"] == {"query": "bern weather"} and got[2] == RESULT
        # the quoted page text passes the redactor; the rest of the citation is the upstream's
        assert got[3]["citations"] == [CITATION | {"cited_text": QUOTE.replace(EMAIL, "<EMAIL_ADDRESS>")}]
    else:
        assert kinds == ["message", "web_search_call", "message"]
        events = sb.sdk_events(out)
        assert [e for e in events if e.startswith("response.web_search_call")] == [
            "response.web_search_call.in_progress",
            "response.web_search_call.searching",
            "response.web_search_call.completed",
        ]
    status, whole = body_of(dialect, BODY[dialect], SCRIPTED[dialect]())
    assert status == 200 and sb.blocks(dialect, sb.sdk_message(dialect, whole, stream=False)) == got


@pytest.mark.parametrize("dialect", ["anthropic", "responses"])
def test_every_two_read_cut_gives_the_same_frames(dialect: str) -> None:
    upstream = SCRIPTED[dialect]()
    whole, _ = relay(dialect, BODY[dialect], upstream)
    step = 1 if dialect == "anthropic" else 3  # Responses' stream is twice as long: every third byte
    for cut in range(1, len(upstream), step):
        out, _ = relay(dialect, BODY[dialect], upstream, cuts=[cut])
        assert out == whole, cut


def test_a_stop_keeps_the_blocks_passed_and_passes_nothing_after_it() -> None:
    planted = "It also rents out bicycles for 2 euros an hour [S1]."
    first, then = "The library opens at nine on weekdays [S1]. ", "Late fees were abolished in 2019 [S2]. "
    upstream = anthropic_search(first, then)
    stopped = anthropic_search(
        first,
        then,
        planted=planted,
        after_stop=True,
    )
    body = streams.request_body("anthropic", sources=streams.SOURCES)
    out, r = relay("anthropic", body, stopped)
    assert r.reason == "stopped" and r.passed == 2  # the first search and its result; not the one after
    message = sb.sdk_message("anthropic", out)
    kinds = [b.type for b in message.content]
    assert kinds[:2] == ["text", "server_tool_use"] and kinds.count("server_tool_use") == 1
    assert message.stop_reason == "refusal" and "bicycles" not in json.dumps(message.model_dump())
    clean, r2 = relay("anthropic", body, upstream)
    assert r2.reason == "complete" and r2.passed == 2


def test_upstream_refusal_after_a_server_block() -> None:
    """A real stream refused by the model after its web search: the search passed stays, the end is ours."""
    entry = STREAMS["anthropic/anthropic_sdk_stream_a_toolrefusal.sse"]
    data = load(entry)
    out, r = relay("anthropic", body_for("anthropic", data), data)
    assert r.reason == "stopped"
    raw, ours = sb.sdk_message("anthropic", data), sb.sdk_message("anthropic", out)
    server = [b for b in sb.blocks("anthropic", raw) if b["type"] not in ANTHROPIC_OWN]
    assert server and [b for b in sb.blocks("anthropic", ours) if b["type"] not in ANTHROPIC_OWN] == server
    assert ours.stop_reason == "refusal"


def test_client_answered_items_are_not_server_items() -> None:
    """computer_call, function_call, custom_tool_call, a local shell: the client runs them (the tool-call
    path); the hosted variants and the provider's own tools are server items."""
    assert not any(
        is_server_item({"type": t})
        for t in ("function_call", "computer_call", "custom_tool_call", "local_shell_call", "mcp_approval_request")
    )
    assert not is_server_item({"type": "shell_call", "environment": {"type": "local"}})
    assert is_server_item({"type": "shell_call", "environment": {"type": "container_auto"}})
    assert is_server_item({"type": "tool_search_call", "execution": "server"})
    assert all(is_server_item({"type": t}) for t in ("web_search_call", "code_interpreter_call", "mcp_call"))


def test_a_replayed_responses_event_passes_once() -> None:
    upstream = responses_search(FIRST, THEN)
    frames = [f + b"\n\n" for f in upstream.split(b"\n\n") if f]
    searching = next(i for i, f in enumerate(frames) if b"web_search_call.searching" in f)
    replayed = b"".join(frames[: searching + 1] + [frames[searching]] + frames[searching + 1 :])
    once, _ = relay("responses", BODY["responses"], upstream)
    twice, r = relay("responses", BODY["responses"], replayed)
    assert twice == once and r.reason == "complete"


def test_quote_redactor() -> None:
    from sluicegate.dialects import quote_redactor

    quotes = quote_redactor()
    assert quotes(QUOTE) == QUOTE.replace(EMAIL, "<EMAIL_ADDRESS>") == quotes(QUOTE)
    assert quotes("") == "" and quote_redactor(redact=False)(QUOTE) == QUOTE
    unsettled = "see -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x"
    assert "MIIE" not in quotes(unsettled)  # a value that never settles: nothing of it is shown
    only_email = quote_redactor(redactor_options={"entities": ["EMAIL_ADDRESS"]})
    assert only_email(f"{EMAIL} {streams.SECRET}") == f"<EMAIL_ADDRESS> {streams.SECRET}"


def test_responses_annotations_pass_only_with_the_text_they_point_into() -> None:
    """`url_citation` offsets point into the upstream's text: passed when the message shows it unchanged."""
    entry = STREAMS["responses/vercel_openai_web_search_tool_1.jsonl"]
    data = load(entry)
    out, _ = relay("responses", body_for("responses", data), data)
    got = sb.blocks("responses", sb.sdk_message("responses", out))
    notes = [a for a in sb.annotations(got) if a]
    assert notes and all(n["type"] == "url_citation" for a in notes for n in a)
    assert "response.output_text.annotation.added" in sb.sdk_events(out)
    # a value the redactor replaces, planted in every copy of the text (deltas, .done, the final output)
    planted = data.replace(b"Petco disclosed", b"Petco (anna.meier@example.org) disclosed")
    assert planted != data
    out2, r = relay("responses", body_for("responses", data), planted)
    assert r.reason == "complete" and b"<EMAIL_ADDRESS>" in out2
    assert b"annotation.added" not in out2 and b"url_citation" not in out2
