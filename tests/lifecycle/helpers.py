"""Shared pieces of the lifecycle tests: the tool models, the fixture streams, and a feeding helper."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sluicegate.lifecycle import AnthropicReader, Generation, OpenAIChatReader, OpenAIResponsesReader, Reader
from sluicegate.sse import SSEEvent, SSEParser

FIXTURES = Path(__file__).parent / "fixtures"


class Transfer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: str
    amount_cents: int
    currency: Literal["EUR", "CHF"]
    memo: str


class Weather(BaseModel):
    model_config = ConfigDict(extra="forbid")

    city: str


TOOLS: dict[str, type[BaseModel]] = {"transfer": Transfer, "get_weather": Weather}
TRANSFER_ARGS = {
    "to": "CH93 0076 2011 6238 5295 7",
    "amount_cents": 125000,
    "currency": "CHF",
    "memo": "Miete Zürich – März 🏠",
}

STREAMS: dict[str, tuple[str, type[Reader]]] = {
    "chat": ("openai_chat_tool_calls.sse", OpenAIChatReader),
    "responses": ("openai_responses_function_call.sse", OpenAIResponsesReader),
    "anthropic": ("anthropic_tool_use.sse", AnthropicReader),
}


def raw(name: str) -> bytes:
    return (FIXTURES / STREAMS[name][0]).read_bytes()


def parse(data: bytes, cuts: Iterable[int] = ()) -> list[SSEEvent]:
    """Parse bytes through the real SSE parser, cut at the given positions."""
    parser = SSEParser()
    events: list[SSEEvent] = []
    last = 0
    for cut in [*cuts, len(data)]:
        events.extend(parser.feed(data[last:cut]))
        last = cut
    events.extend(parser.close())
    return events


def events(name: str) -> list[SSEEvent]:
    return parse(raw(name))


def dict_events(name: str) -> list[dict[str, object]]:
    """The same stream as decoded dicts (what an SDK's raw events look like); `[DONE]` dropped."""
    return [json.loads(e.data) for e in events(name) if e.data != "[DONE]"]


def generation(name: str, **kwargs: object) -> Generation:
    reader = STREAMS[name][1]()
    options: dict[str, object] = {"principal": "user-7", "config_version": "cfg-3", "operation": "pay-rent"}
    options.update(kwargs)
    tools = options.pop("tools", TOOLS)
    return Generation(tools, reader=reader, **options)  # type: ignore[arg-type]


def run(name: str, evs: Iterable[object] | None = None, *, close: bool = True, **kwargs: object) -> Generation:
    gen = generation(name, **kwargs)
    for event in events(name) if evs is None else evs:
        gen.feed(event)
    if close:
        gen.close()
    return gen
