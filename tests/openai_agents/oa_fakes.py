"""A scripted model in the Agents SDK's `Model` interface: it streams a Responses API event sequence (what
`OpenAIResponsesModel` passes through from the API) for a given chunking of the answer, and records what it did.

Each turn is either text pieces (an assistant message) or a function call (name, JSON arguments). Between
pieces it yields control (`asyncio.sleep(0)`) as a network read would, so the run loop and the reader
interleave; `closed` says the stream generator was torn down (cancelled or closed) before or at its end.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")

from agents import Model, ModelResponse, Usage, set_tracing_disabled  # noqa: E402
from openai.types.responses import (  # noqa: E402
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails, ResponseUsage  # noqa: E402

set_tracing_disabled(True)

MSG_ID = "msg_1"


@dataclass
class ToolCall:
    name: str
    arguments: str


Turn = list[str] | ToolCall


def _response(output: list[Any], output_tokens: int, status: str = "completed") -> Response:
    usage = ResponseUsage(
        input_tokens=10,
        output_tokens=output_tokens,
        total_tokens=10 + output_tokens,
        input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
    )
    return Response(
        id="resp_1",
        created_at=0,
        model="scripted",
        object="response",
        output=output,
        parallel_tool_calls=False,
        tool_choice="auto",
        tools=[],
        status=status,  # type: ignore[arg-type]
        usage=usage,
    )


def _message(text: str, status: str = "completed") -> ResponseOutputMessage:
    part = ResponseOutputText(text=text, type="output_text", annotations=[], logprobs=[])
    return ResponseOutputMessage(
        id=MSG_ID,
        type="message",
        role="assistant",
        status=status,  # type: ignore[arg-type]
        content=[part] if text else [],
    )


@dataclass
class ScriptedModel(Model):
    """Streams `turns` in order, one per model call; raises `ConnectionError` instead of text piece `fail_at`
    (counted over the whole run)."""

    turns: list[Turn]
    fail_at: int | None = None
    calls: int = 0
    produced: int = 0  # text pieces yielded
    closed: bool = False
    events: list[Any] = field(default_factory=list)  # every raw event yielded

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        turn = self.turns[min(self.calls, len(self.turns) - 1)]
        self.calls += 1
        if isinstance(turn, ToolCall):
            item: Any = ResponseFunctionToolCall(
                arguments=turn.arguments, call_id=f"call_{self.calls}", name=turn.name, type="function_call"
            )
            tokens = 5
        else:
            self.produced += len(turn)
            item, tokens = _message("".join(turn)), len(turn)
        return ModelResponse(
            output=[item], usage=Usage(requests=1, input_tokens=10, output_tokens=tokens), response_id=None
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        turn = self.turns[min(self.calls, len(self.turns) - 1)]
        self.calls += 1
        return self._stream(turn)

    async def _stream(self, turn: Turn) -> AsyncIterator[Any]:
        seq = iter(range(10_000))

        def emit(event: Any) -> Any:
            self.events.append(event)
            return event

        try:
            yield emit(
                ResponseCreatedEvent(
                    response=_response([], 0, "in_progress"), type="response.created", sequence_number=next(seq)
                )
            )
            await asyncio.sleep(0)
            if isinstance(turn, ToolCall):
                call = ResponseFunctionToolCall(
                    arguments=turn.arguments, call_id=f"call_{self.calls}", name=turn.name, type="function_call"
                )
                yield emit(
                    ResponseOutputItemDoneEvent(
                        item=call, output_index=0, type="response.output_item.done", sequence_number=next(seq)
                    )
                )
                yield emit(
                    ResponseCompletedEvent(
                        response=_response([call], 5), type="response.completed", sequence_number=next(seq)
                    )
                )
                return
            yield emit(
                ResponseOutputItemAddedEvent(
                    item=_message("", "in_progress"),
                    output_index=0,
                    type="response.output_item.added",
                    sequence_number=next(seq),
                )
            )
            part = ResponseOutputText(text="", type="output_text", annotations=[], logprobs=[])
            yield emit(
                ResponseContentPartAddedEvent(
                    content_index=0,
                    item_id=MSG_ID,
                    output_index=0,
                    part=part,
                    type="response.content_part.added",
                    sequence_number=next(seq),
                )
            )
            text = ""
            for piece in turn:
                await asyncio.sleep(0)
                if self.fail_at is not None and self.produced == self.fail_at:
                    raise ConnectionError("provider went away")
                self.produced += 1
                text += piece
                yield emit(
                    ResponseTextDeltaEvent(
                        content_index=0,
                        delta=piece,
                        item_id=MSG_ID,
                        output_index=0,
                        type="response.output_text.delta",
                        sequence_number=next(seq),
                        logprobs=[],
                    )
                )
            await asyncio.sleep(0)
            yield emit(
                ResponseTextDoneEvent(
                    content_index=0,
                    item_id=MSG_ID,
                    output_index=0,
                    text=text,
                    type="response.output_text.done",
                    sequence_number=next(seq),
                    logprobs=[],
                )
            )
            done = ResponseOutputText(text=text, type="output_text", annotations=[], logprobs=[])
            yield emit(
                ResponseContentPartDoneEvent(
                    content_index=0,
                    item_id=MSG_ID,
                    output_index=0,
                    part=done,
                    type="response.content_part.done",
                    sequence_number=next(seq),
                )
            )
            message = _message(text)
            yield emit(
                ResponseOutputItemDoneEvent(
                    item=message, output_index=0, type="response.output_item.done", sequence_number=next(seq)
                )
            )
            yield emit(
                ResponseCompletedEvent(
                    response=_response([message], len(turn)), type="response.completed", sequence_number=next(seq)
                )
            )
        finally:
            self.closed = True
