"""A LangChain 1.x agent (`create_agent`) whose every model call streams through sluicegate, offline.

The chat model is scripted: its first turn streams a call to the `opening_hours` tool in small fragments, its
second the planted answer of examples/_show.py (one sentence cites a figure that is in no source). It prints
what `agent.stream(..., stream_mode="messages")` shows the reader: the tool call whole, once validated; the
answer up to the unsupported sentence, then the notice; and how far the model got before the gate closed it.

    pip install "sluicegate[langchain-agents]"
    python examples/langchain_agent.py
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

from _show import PLANTED, QUESTION, SOURCES, pieces  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.language_models.chat_models import generate_from_stream  # noqa: E402
from langchain_core.messages import AIMessageChunk, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGenerationChunk, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from sluicegate_langchain import GateMiddleware  # noqa: E402


@tool
def opening_hours(day: str) -> str:
    """The library's opening hours on a day."""
    return SOURCES[0]


class ScriptedAgentModel(BaseChatModel):
    """Turn 1: a tool call streamed in 4-character argument fragments; turn 2: PLANTED in 5-character pieces."""

    turn: int = 0
    produced: int = 0  # chunks streamed in the current turn

    @property
    def _llm_type(self) -> str:
        return "scripted-agent"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _chunks(self) -> list[AIMessageChunk]:
        if self.turn == 1:
            args = json.dumps({"day": "Monday"})
            frags = pieces(args, 4)
            calls = [
                {"name": "opening_hours" if i == 0 else None, "args": f, "id": "call_1" if i == 0 else None}
                for i, f in enumerate(frags)
            ]
            out = [AIMessageChunk(content="", tool_call_chunks=[{**c, "index": 0}]) for c in calls]
            return [*out, AIMessageChunk(content="", response_metadata={"finish_reason": "tool_calls"})]
        out = [AIMessageChunk(content=p) for p in pieces(PLANTED, 5)]
        return [*out, AIMessageChunk(content="", response_metadata={"finish_reason": "stop"})]

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        self.turn += 1
        self.produced = 0
        for chunk in self._chunks():
            self.produced += 1
            yield ChatGenerationChunk(message=chunk)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop))


model = ScriptedAgentModel()
agent = create_agent(model, [opening_hours], middleware=[GateMiddleware(sources=SOURCES)])

if __name__ == "__main__":
    print("reader sees:")
    for message, meta in agent.stream({"messages": [("user", QUESTION)]}, stream_mode="messages"):
        if meta["langgraph_node"] != "model":
            continue
        for call in message.tool_call_chunks:
            print(f"  tool call: {call['name']} {call['args']}")
        if message.text:
            print(f"  {message.text!r}")
    answer_chunks = len(pieces(PLANTED, 5)) + 1
    print(f"model chunks produced in the answer turn: {model.produced} of {answer_chunks}")
