"""A fake function-calling LLM for LlamaIndex that streams the documented Chat Completions fixture.

Each `ChatResponse` carries the provider chunk in `raw` (as llama-index-llms-openai does) and the accumulated
message; only the model is fake: tools, messages and responses are real LlamaIndex objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.tools import ToolSelection

from tests.lifecycle.helpers import dict_events


def fixture_chunks(text: str = "") -> list[dict[str, Any]]:
    chunks = dict_events("chat")
    head = [
        {
            "id": "chatcmpl-9sLg0fixture",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": text[i : i + 6]}, "finish_reason": None}],
        }
        for i in range(0, len(text), 6)
    ]
    return head + chunks


class ToolStreamingLLM(FunctionCallingLLM):
    chunks: list[dict[str, Any]]
    produced: int = 0
    closed: bool = False
    tool_names: list[str] = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="tool-streaming-fake", is_function_calling_model=True, is_chat_model=True)

    def _prepare_chat_with_tools(
        self,
        tools: Sequence[Any],
        user_msg: Any = None,
        chat_history: Any = None,
        verbose: bool = False,
        allow_parallel_tool_calls: bool = False,
        tool_required: bool = False,
        **kwargs: Any,
    ) -> dict[str, Any]:
        self.tool_names = [t.metadata.get_name() for t in tools]
        messages = list(chat_history or [])
        if user_msg is not None:
            messages.append(
                user_msg if isinstance(user_msg, ChatMessage) else ChatMessage(role="user", content=user_msg)
            )
        return {"messages": messages, "tools": self.tool_names}

    def get_tool_calls_from_response(
        self, response: ChatResponse, error_on_no_tool_call: bool = True, **kwargs: Any
    ) -> list[ToolSelection]:
        return []

    def _responses(self) -> ChatResponseGen:
        text = ""
        try:
            for chunk in self.chunks:
                self.produced += 1
                delta = (chunk.get("choices") or [{}])[0].get("delta") or {}
                piece = delta.get("content") or ""
                text += piece
                yield ChatResponse(
                    message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=piece, raw=chunk
                )
        finally:
            self.closed = True

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        return self._responses()

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        async def gen() -> ChatResponseAsyncGen:
            for response in self._responses():
                yield response

        return gen()

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        raise NotImplementedError

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        raise NotImplementedError

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError
