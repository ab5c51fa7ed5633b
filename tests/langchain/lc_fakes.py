"""A scripted streaming chat model (the only fake in the LangChain tests): it records how many pieces it
produced, the prompts it got, whether its generator ran to the end and whether it was closed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from tests.support import Record

INPUT_TOKENS = 11


def _usage(output: int, input_: int = 0) -> UsageMetadata:
    return UsageMetadata(input_tokens=input_, output_tokens=output, total_tokens=input_ + output)


class ScriptedChatModel(BaseChatModel):
    """Streams `pieces`. usage="final": provider usage on a last empty chunk (OpenAI `stream_usage`), which a
    stopped stream never reaches; "each": one output token per piece, input tokens once on the first piece."""

    pieces: list[str]
    usage: Literal["final", "each", "none"] = "final"
    record: Record = Field(default_factory=Record)

    model_config = {"arbitrary_types_allowed": True}

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    def _remember(self, messages: list[BaseMessage]) -> None:
        self.record.prompts.append("\n".join(str(m.content) for m in messages))

    def _chunk(self, i: int, piece: str) -> ChatGenerationChunk:
        meta = _usage(1, INPUT_TOKENS if i == 0 else 0) if self.usage == "each" else None
        return ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=meta))

    def _final(self) -> ChatGenerationChunk | None:
        if self.usage != "final":
            return None
        return ChatGenerationChunk(
            message=AIMessageChunk(content="", usage_metadata=_usage(len(self.pieces), INPUT_TOKENS))
        )

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self._remember(messages)
        self.record.produced = len(self.pieces)
        self.record.texts = list(self.pieces)
        self.record.exhausted = self.record.closed = True
        meta = _usage(len(self.pieces), INPUT_TOKENS) if self.usage != "none" else None
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(content="".join(self.pieces), usage_metadata=meta))]
        )

    def _items(self) -> Iterator[tuple[str | None, ChatGenerationChunk]]:
        for i, piece in enumerate(self.pieces):
            yield piece, self._chunk(i, piece)
        final = self._final()
        if final is not None:
            yield None, final

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: Any = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kw: Any,
    ) -> Iterator[ChatGenerationChunk]:
        self._remember(messages)
        yield from self.record.stream(self._items())

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: Any = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kw: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        self._remember(messages)
        async with aclosing(self.record.astream(self._items())) as chunks:
            async for chunk in chunks:
                yield chunk
