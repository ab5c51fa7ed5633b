"""A fake chat model that streams tool-call chunks the way langchain-openai builds them from Chat Completions
chunks (`tool_call_chunks` by index, `finish_reason` in `response_metadata` of the finishing chunk).

Only the model is fake: the chunks are real `AIMessageChunk`s built from the documented fixture stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from tests.lifecycle.helpers import dict_events


def chunks_from_chat_fixture(text_before: str = "") -> list[AIMessageChunk]:
    """The documented Chat Completions fixture as langchain-openai would turn it into message chunks."""
    out = [AIMessageChunk(content=text_before[i : i + 5], id="chatcmpl-1") for i in range(0, len(text_before), 5)]
    for event in dict_events("chat"):
        for choice in event.get("choices") or []:  # type: ignore[attr-defined]
            delta = choice["delta"] or {}
            tool_chunks = [
                {
                    "name": (tc.get("function") or {}).get("name"),
                    "args": (tc.get("function") or {}).get("arguments"),
                    "id": tc.get("id"),
                    "index": tc["index"],
                    "type": "tool_call_chunk",
                }
                for tc in delta.get("tool_calls") or []
            ]
            meta = {"finish_reason": choice["finish_reason"]} if choice.get("finish_reason") else {}
            out.append(
                AIMessageChunk(
                    content=delta.get("content") or "",
                    tool_call_chunks=tool_chunks,
                    response_metadata=meta,
                    id="chatcmpl-1",
                )
            )
    return out


class ToolStreamingChatModel(BaseChatModel):
    """Streams scripted `AIMessageChunk`s; records how many it produced and whether it was closed."""

    chunks: list[AIMessageChunk]
    produced: int = 0
    closed: bool = False
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "tool-streaming-fake"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        merged = self.chunks[0]
        for c in self.chunks[1:]:
            merged = merged + c
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(content=merged.content, tool_calls=merged.tool_calls))]
        )

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        self.prompts.append(json.dumps([str(m.content) for m in messages]))
        try:
            for chunk in self.chunks:
                self.produced += 1
                yield ChatGenerationChunk(message=chunk)
        finally:
            self.closed = True

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        try:
            for chunk in self.chunks:
                self.produced += 1
                yield ChatGenerationChunk(message=chunk)
        finally:
            self.closed = True
