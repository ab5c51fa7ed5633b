"""A scripted chat model for `create_agent` tests (the only fake): each turn streams text pieces and, in the
shape langchain-openai builds from Chat Completions chunks, tool-call chunks by index with the finish reason
in the last chunk's `response_metadata`. It records every chunk it produced and whether its stream was closed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import Field


class Turn(dict[str, Any]):
    """One model turn: `pieces` of text, then `calls` (name, args dict) streamed in `arg_size` fragments."""


def turn(pieces: Sequence[str], calls: Sequence[tuple[str, dict[str, Any]]] = (), arg_size: int = 4) -> Turn:
    return Turn(pieces=list(pieces), calls=list(calls), arg_size=arg_size)


def turn_chunks(t: Turn) -> list[AIMessageChunk]:
    out = [AIMessageChunk(content=p) for p in t["pieces"]]
    for index, (name, args) in enumerate(t["calls"]):
        raw = json.dumps(args)
        size = t["arg_size"]
        frags = [raw[i : i + size] for i in range(0, len(raw), size)] or [""]
        for j, frag in enumerate(frags):
            first = j == 0
            chunk = {"name": name if first else None, "args": frag, "id": f"call_{index}" if first else None}
            out.append(
                AIMessageChunk(content="", tool_call_chunks=[{**chunk, "index": index, "type": "tool_call_chunk"}])
            )
    reason = "tool_calls" if t["calls"] else "stop"
    out.append(AIMessageChunk(content="", response_metadata={"finish_reason": reason, "model_name": "scripted"}))
    return out


class AgentScriptedModel(BaseChatModel):
    """Streams `turns[i]` on its i-th call. `bind_tools` returns the model itself (the tools are recorded)."""

    turns: list[Turn]
    calls: int = 0
    produced: list[str] = Field(default_factory=list)  # every text and tool-args fragment it generated
    closed: list[bool] = Field(default_factory=list)  # per call: its stream was closed before running out
    bound: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "agent-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        self.bound = [getattr(t, "name", str(t)) for t in tools]
        return self

    def _next(self) -> list[AIMessageChunk]:
        t = self.turns[min(self.calls, len(self.turns) - 1)]
        self.calls += 1
        self.closed.append(False)
        return turn_chunks(t)

    def _took(self, chunk: AIMessageChunk) -> None:
        self.produced.append(str(chunk.content) + "".join(c.get("args") or "" for c in chunk.tool_call_chunks))

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        chunks, n = self._next(), self.calls - 1
        done = False
        try:
            for chunk in chunks:
                self._took(chunk)
                yield ChatGenerationChunk(message=chunk)
            done = True
        finally:
            self.closed[n] = not done

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        chunks, n = self._next(), self.calls - 1
        done = False
        try:
            for chunk in chunks:
                await asyncio.sleep(0)
                self._took(chunk)
                yield ChatGenerationChunk(message=chunk)
            done = True
        finally:
            self.closed[n] = not done

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop))
