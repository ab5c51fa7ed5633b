"""The oracle for server-side tool blocks: the official SDK's accumulated message of the raw recording.

`sdk_message` runs bytes through the SDK's own client (httpx.MockTransport), stream accumulator and final
message; `expected` is what the client of the proxy should get from a recording: the SDK's blocks of the raw
stream without the hidden reasoning, text through the redactor (`sluicegate.redact` of the whole text, as the
relay's one continuous redactor gives it), citations' quoted text redacted, server blocks unchanged.
"""

from __future__ import annotations

from typing import Any

from sluicegate import redact
from sluicegate.dialects._passthrough import ANTHROPIC_OWN, is_server_item
from tests.dialects import sdk

HIDDEN = {"thinking", "redacted_thinking", "reasoning"}


def sdk_message(dialect: str, payload: bytes, *, stream: bool = True, aio: bool = False) -> Any:
    """The SDK's final Message (Anthropic) or Response (Responses) for `payload`."""
    if dialect == "anthropic":
        return final(dialect, sdk.anthropic_client(payload, stream=stream), stream=stream)
    return final(dialect, sdk.openai_client(payload, stream=stream), stream=stream)


def final(dialect: str, client: Any, *, stream: bool = True, max_tokens: int = 10, messages: Any = ()) -> Any:
    """The final Message (Anthropic) or Response (Responses) of one call on an SDK `client`: streamed to its end
    through the SDK's accumulator, or whole (`stream=False`)."""
    if dialect == "anthropic":
        if not stream:
            return client.messages.create(model="m", max_tokens=max_tokens, messages=list(messages))
        with client.messages.stream(model="m", max_tokens=max_tokens, messages=list(messages)) as s:
            for _ in s:
                pass
            return s.get_final_message()
    if not stream:
        return client.responses.create(model="m", input="q")
    with client.responses.stream(model="m", input="q") as r:
        for _ in r:
            pass
        return r.get_final_response()


def dump(dialect: str, message: Any) -> list[dict[str, Any]]:
    """Every block (Anthropic) or output item (Responses) of an SDK message, as dicts."""
    items = message.content if dialect == "anthropic" else message.output
    return [b.model_dump(exclude_none=True) for b in items]


def blocks(dialect: str, message: Any) -> list[dict[str, Any]]:
    return [b for b in dump(dialect, message) if b["type"] not in HIDDEN]


def is_server(dialect: str, block: dict[str, Any]) -> bool:
    if dialect == "anthropic":
        return block["type"] not in ANTHROPIC_OWN
    return is_server_item(block)


def text_of(dialect: str, block: dict[str, Any]) -> str:
    if dialect == "anthropic":
        return str(block.get("text", "")) if block["type"] == "text" else ""
    if block["type"] != "message":
        return ""
    return "".join(p.get("text", "") for p in block.get("content", []) if p.get("type") == "output_text")


def shape(dialect: str, found: list[dict[str, Any]]) -> list[str]:
    """The block types in order, consecutive text blocks with no text (all held or empty) left out."""
    out = []
    for b in found:
        if b["type"] in ("text", "message") and not text_of(dialect, b) and not b.get("citations"):
            continue
        out.append(b["type"])
    return out


def annotations(found: list[dict[str, Any]]) -> list[Any]:
    return [p.get("annotations") for b in found if b["type"] == "message" for p in b.get("content", [])]


def citations(found: list[dict[str, Any]], quotes: bool) -> list[dict[str, Any]]:
    out = []
    for b in found:
        if b["type"] == "text":
            for c in b.get("citations") or []:
                out.append({**c, "cited_text": redact(c["cited_text"])} if quotes and "cited_text" in c else c)
    return out


def compare(dialect: str, raw: Any, ours: Any) -> None:
    """Assert `ours` (what the proxy's client got) is `raw` (the recording's SDK message) as the proxy shows it."""
    want, got = blocks(dialect, raw), blocks(dialect, ours)
    assert shape(dialect, got) == shape(dialect, want)
    assert [b for b in got if is_server(dialect, b)] == [b for b in want if is_server(dialect, b)]
    raw_text = "".join(text_of(dialect, b) for b in want)
    assert "".join(text_of(dialect, b) for b in got) == redact(raw_text)
    if redact(raw_text) == raw_text:  # nothing replaced: every text block is the upstream's, to the character
        wanted = [text_of(dialect, b) for b in want if text_of(dialect, b)]
        assert [text_of(dialect, b) for b in got if text_of(dialect, b)] == wanted
        if dialect == "responses":  # the annotations' offsets still point into the same text: passed
            assert annotations(got) == annotations(want)
    if dialect == "anthropic":
        assert citations(got, quotes=False) == citations(want, quotes=True)


def sdk_events(payload: bytes) -> list[str]:
    """The Responses event types the SDK's stream hands out for `payload`."""
    with sdk.openai_client(payload).responses.stream(model="m", input="q") as stream:
        return [event.type for event in stream]
