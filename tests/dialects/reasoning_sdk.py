"""The oracle for reasoning frames: what a user of each official SDK reads as reasoning/thinking.

Our bytes are handed to the SDK client as its HTTP response (httpx.MockTransport, as tests/dialects/sdk.py):
its own stream classes and accumulators run. Chat Completions: the reasoning field of each `delta` and of the
`ChatCompletionStreamState` snapshot's message (pydantic extras: the SDK keeps fields it has no name for).
Responses: the `reasoning_summary_text` / `reasoning_text` deltas and `.done` texts, and the `reasoning` items
of the final response. Anthropic: `MessageStream`'s `thinking` events and the final message's `thinking`
(with `signature`) and `redacted_thinking` blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openai.lib.streaming.chat import ChatCompletionStreamState

from tests.dialects.sdk import anthropic_client, openai_client


@dataclass
class Thoughts:
    deltas: list[str] = field(default_factory=list)
    final: str = ""  # the reasoning text of the accumulated / non-streaming answer
    done: list[str] = field(default_factory=list)  # texts the `.done` events carried (Responses)
    signatures: list[str] = field(default_factory=list)  # Anthropic thinking blocks' signatures
    opaque: list[dict[str, Any]] = field(default_factory=list)  # redacted_thinking blocks, encrypted_content
    answer: str = ""
    end: str | None = None

    @property
    def text(self) -> str:
        return "".join(self.deltas)


def chat_stream(payload: bytes, name: str = "reasoning_content") -> Thoughts:
    seen = Thoughts()
    state = ChatCompletionStreamState()
    for chunk in openai_client(payload).chat.completions.create(model="m", messages=[], stream=True):
        state.handle_chunk(chunk)
        for choice in chunk.choices:
            extra = choice.delta.model_extra or {}
            if extra.get(name):
                seen.deltas.append(extra[name])
            seen.answer += choice.delta.content or ""
            seen.end = choice.finish_reason or seen.end
    message = state.current_completion_snapshot.choices[0].message  # (get_final_completion raises on a stop)
    seen.final = (message.model_extra or {}).get(name) or ""
    return seen


def chat_body(payload: bytes, name: str = "reasoning_content") -> Thoughts:
    r = openai_client(payload, stream=False).chat.completions.create(model="m", messages=[])
    message = r.choices[0].message
    return Thoughts(
        final=(message.model_extra or {}).get(name) or "", answer=message.content or "", end=r.choices[0].finish_reason
    )


def _responses_final(seen: Thoughts, response: Any) -> None:
    for item in response.output:
        if item.type == "reasoning":
            seen.final += "".join(s.text for s in item.summary) + "".join(c.text for c in item.content or [])
            if item.encrypted_content:
                seen.opaque.append({"encrypted_content": item.encrypted_content})
    seen.answer = response.output_text
    reason = response.incomplete_details.reason if response.incomplete_details else None
    seen.end = response.status if reason is None else f"{response.status}:{reason}"


def responses_stream(payload: bytes) -> Thoughts:
    seen = Thoughts()
    with openai_client(payload).responses.stream(model="m", input="q") as stream:
        for event in stream:
            if event.type in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
                seen.deltas.append(event.delta)
            elif event.type in ("response.reasoning_summary_text.done", "response.reasoning_text.done"):
                seen.done.append(event.text)
            elif event.type in ("response.completed", "response.incomplete"):
                _responses_final(seen, event.response)
    return seen


def responses_body(payload: bytes) -> Thoughts:
    seen = Thoughts()
    _responses_final(seen, openai_client(payload, stream=False).responses.create(model="m", input="q"))
    return seen


def _anthropic_final(seen: Thoughts, message: Any) -> None:
    for block in message.content:
        if block.type == "thinking":
            seen.final += block.thinking
            seen.signatures.append(block.signature)
        elif block.type == "redacted_thinking":
            seen.opaque.append(block.to_dict())
        elif block.type == "text":
            seen.answer += block.text
    seen.end = message.stop_reason


def anthropic_stream(payload: bytes) -> Thoughts:
    seen = Thoughts()
    with anthropic_client(payload).messages.stream(model="m", max_tokens=10, messages=[]) as stream:
        for event in stream:
            if event.type == "thinking":
                seen.deltas.append(event.thinking)
        _anthropic_final(seen, stream.get_final_message())
    return seen


def anthropic_body(payload: bytes) -> Thoughts:
    seen = Thoughts()
    client = anthropic_client(payload, stream=False)
    _anthropic_final(seen, client.messages.create(model="m", max_tokens=10, messages=[]))
    return seen


STREAM = {"chat": chat_stream, "responses": responses_stream, "anthropic": anthropic_stream}
BODY = {"chat": chat_body, "responses": responses_body, "anthropic": anthropic_body}
