"""Every surface a `create_agent` user reads, collected whole: the text shown on it and every event it emitted.

- `messages`: `agent.stream(..., stream_mode="messages")`, the model node's chunks;
- `events_v2`: `agent.astream_events(..., version="v2")`, the `on_chat_model_stream` chunks;
- `events_v3`: `agent.stream_events(..., version="v3")`, the `content-block-delta` text deltas;
- `final`: the last AI message of `agent.invoke(...)`'s state.

`Surface.raw` is the repr of everything the surface emitted (every chunk, event and state), so a test can
assert that a withheld value appears nowhere, not only not in the text. Random ids (UUIDs: run ids, message
ids, LangGraph's checkpoint and task ids) are masked first: their hex digits hold a "2019" now and then, which
is not a leak (it failed 1 example in ~5,600 tests once, on Python 3.13).
"""

from __future__ import annotations

import asyncio
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk

SURFACES = ("messages", "events_v2", "events_v3", "final")
_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")
INPUT = {"messages": [("user", "When did she publish?")]}


def masked(item: Any) -> str:
    """The repr of what a surface emitted, its random ids masked (see the module docstring)."""
    return _UUID.sub("<id>", repr(item))


@dataclass
class Surface:
    text: str = ""
    raw: list[str] = field(default_factory=list)
    tool_chunks: list[dict[str, Any]] = field(default_factory=list)  # every tool-call chunk any chunk carried

    def take(self, item: Any) -> None:
        self.raw.append(masked(item))

    def chunk(self, chunk: Any) -> None:
        if isinstance(chunk, AIMessageChunk):
            self.text += chunk.text
            self.tool_chunks.extend(dict(c) for c in chunk.tool_call_chunks)


def messages(agent: Any, inp: Any = INPUT) -> Surface:
    s = Surface()
    for msg, meta in agent.stream(inp, stream_mode="messages"):
        s.take((msg, meta))
        if meta.get("langgraph_node") == "model":
            s.chunk(msg)
    return s


def events_v2(agent: Any, inp: Any = INPUT) -> Surface:
    s = Surface()

    async def main() -> None:
        async for event in agent.astream_events(inp, version="v2"):
            s.take(event)
            if event["event"] == "on_chat_model_stream":
                s.chunk(event["data"]["chunk"])

    asyncio.run(main())
    return s


def events_v3(agent: Any, inp: Any = INPUT) -> Surface:
    s = Surface()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChainBetaWarning: the v3 protocol is experimental
        run = agent.stream_events(inp, version="v3")
        for event in run:
            s.take(event)
            if event.get("method") != "messages":
                continue
            data = event["params"]["data"][0]
            if data.get("event") in ("content-block-start", "content-block-finish"):
                if "tool" in str(data["content"].get("type")):
                    s.tool_chunks.append(dict(data["content"]))
            elif data.get("event") == "content-block-delta":
                delta = data["delta"]
                if delta.get("type") == "text-delta":
                    s.text += delta["text"]
                elif "tool" in str(delta.get("type")):
                    s.tool_chunks.append(dict(delta))
    return s


def final(agent: Any, inp: Any = INPUT) -> Surface:
    s = Surface()
    state = agent.invoke(inp)
    s.take(state)
    ai = [m for m in state["messages"] if isinstance(m, AIMessage)]
    s.text = "".join(m.text for m in ai)
    for m in ai:
        s.tool_chunks.extend(dict(c) for c in m.tool_calls)
    return s


READERS: dict[str, Callable[..., Surface]] = {
    "messages": messages,
    "events_v2": events_v2,
    "events_v3": events_v3,
    "final": final,
}
