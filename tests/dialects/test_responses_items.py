"""Responses output items: every message item the encoder opens has an id of its own (text closed by a reasoning
item, a server item or an upstream message boundary, then more text), so the SDK's accumulated `response.output`
holds distinct items; and an `mcp_approval_request` (the client's to answer) ends the answer in the documented
error shape, with nothing of the request passed.

The oracle is the official `openai` SDK: its stream accumulator and its parse of the non-streaming body.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import openai
import pytest

from sluicegate.dialects._base import Billed, End
from sluicegate.dialects._responses import ResponsesEncoder
from tests.dialects import sdk
from tests.dialects import server_blocks as sb
from tests.dialects.helpers import body_of, relay
from tests.lifecycle.real_streams import STREAMS, load

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

SEARCH = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}}


def _search(enc: ResponsesEncoder, n: int) -> bytes:
    item = {**SEARCH, "id": f"ws_{n}"}
    events = [
        {"type": "response.output_item.added", "output_index": 9, "item": {**item, "status": "in_progress"}},
        {"type": "response.web_search_call.completed", "output_index": 9, "item_id": item["id"]},
        {"type": "response.output_item.done", "output_index": 9, "item": item},
    ]
    return enc.server(events)


def _reasoning(enc: ResponsesEncoder, n: int) -> bytes:
    item, key = f"rs_{n}", f"rs_{n}:0"
    out = enc.think_item(item) + enc.think_open(key, "summary", item)
    out += enc.think(key, "thinking") + enc.think_done(key)
    return out + enc.think_item_done(item, {})


def _boundary(enc: ResponsesEncoder, n: int) -> bytes:
    return enc.boundary(False)


BETWEEN: dict[str, Callable[[ResponsesEncoder, int], bytes]] = {
    "server item": _search,
    "reasoning item": _reasoning,
    "message boundary": _boundary,
}


@pytest.mark.parametrize("between", list(BETWEEN))
def test_each_message_item_has_its_own_id(between: str) -> None:
    enc = ResponsesEncoder("m", answer_id="resp_fixed", created=1)
    out = enc.text("Before. ") + BETWEEN[between](enc, 1) + enc.text("After.") + BETWEEN[between](enc, 2)
    out += enc.text("Last.") + enc.finish(End.COMPLETE, Billed(3, 4))
    events = [json.loads(x[5:]) for x in out.split(b"\n") if x.startswith(b"data:")]
    added = [e["item"]["id"] for e in events if e["type"] == "response.output_item.added"]
    messages = [
        e["item"]["id"] for e in events if e["type"] == "response.output_item.added" and e["item"]["type"] == "message"
    ]
    assert len(messages) == 3 and len(set(messages)) == 3
    assert len(added) == len(set(added))
    streamed = sb.sdk_message("responses", out)
    texts = [(i.id, i.content[0].text) for i in streamed.output if i.type == "message"]
    assert texts == list(zip(messages, ["Before. ", "After.", "Last."], strict=True))
    assert streamed.output_text == "Before. After.Last."
    whole = sb.sdk_message("responses", json.dumps(enc.body()).encode(), stream=False)
    assert [(i.id, i.type) for i in whole.output] == [(i.id, i.type) for i in streamed.output]


APPROVAL = "responses/vercel_openai_mcp_tool_approval_1.jsonl"


def _approval() -> tuple[bytes, dict[str, Any]]:
    data = load(STREAMS[APPROVAL])
    return data, {"model": "m", "stream": True, "input": "q"}


def test_mcp_approval_request_ends_in_the_error_shape() -> None:
    """Not modelled yet (docs/proxy.md): the hosted `mcp_list_tools` before it passes, then an `error` event the
    SDK raises; nothing of the approval request reaches the client; the non-streaming request gets a 502."""
    data, body = _approval()
    assert b'"mcp_approval_request"' in data
    out, r = relay("responses", body, data)
    assert r.reason == "upstream_rejected"
    assert b"mcp_approval_request" not in out and b"mcpr_" not in out
    events = [json.loads(x[5:]) for x in out.split(b"\n") if x.startswith(b"data:")]
    assert [e["type"] for e in events][-1] == "error"
    assert "unsupported_output_item" in events[-1]["message"]
    assert any(e["type"] == "response.output_item.done" and e["item"]["type"] == "mcp_list_tools" for e in events)
    with pytest.raises(openai.APIError, match="unsupported_output_item"):
        sb.sdk_message("responses", out)
    status, whole = body_of("responses", body, data)
    assert status == 502
    assert sdk.responses_body(whole, status).error == "502"
