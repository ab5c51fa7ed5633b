"""The oracle: the official SDKs parse what the proxy writes, through their own request path.

Each helper hands our bytes to the SDK client as the HTTP response (httpx.MockTransport: the client's own
parsing, decoding, stream and accumulator classes run) and returns what a user of that SDK sees.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx
import openai
from openai.lib.streaming.chat import ChatCompletionStreamState


@dataclass
class Seen:
    """What an SDK user got: text deltas, the end, tool calls (name, arguments dict), usage, a raised error."""

    deltas: list[str] = field(default_factory=list)
    end: str | None = None
    calls: list[tuple[str, Any]] = field(default_factory=list)
    usage: tuple[int, int] | None = None  # (input, output)
    error: str | None = None
    events: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.deltas)


def _transport(payload: bytes, status: int = 200, stream: bool = True) -> httpx.MockTransport:
    kind = "text/event-stream" if stream else "application/json"
    return httpx.MockTransport(lambda request: httpx.Response(status, content=payload, headers={"content-type": kind}))


def openai_client(payload: bytes, status: int = 200, stream: bool = True) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="k",
        base_url="http://proxy/v1",
        max_retries=0,
        http_client=httpx.Client(transport=_transport(payload, status, stream)),
    )


def anthropic_client(payload: bytes, status: int = 200, stream: bool = True) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        api_key="k",
        base_url="http://proxy",
        max_retries=0,
        http_client=httpx.Client(transport=_transport(payload, status, stream)),
    )


def chat_stream(payload: bytes) -> Seen:
    seen = Seen()
    state = ChatCompletionStreamState()
    try:
        for chunk in openai_client(payload).chat.completions.create(model="m", messages=[], stream=True):
            state.handle_chunk(chunk)
            if chunk.usage is not None:
                seen.usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
            for choice in chunk.choices:
                if choice.delta.content:
                    seen.deltas.append(choice.delta.content)
                if choice.finish_reason:
                    seen.end = choice.finish_reason
    except openai.APIError as exc:
        seen.error = str(exc)
    snapshot = state.current_completion_snapshot
    if snapshot.choices and snapshot.choices[0].message.tool_calls:
        seen.calls = [
            (c.function.name, json.loads(c.function.arguments)) for c in snapshot.choices[0].message.tool_calls
        ]
    assert (snapshot.choices[0].message.content or "") == seen.text if snapshot.choices else True
    return seen


def chat_body(payload: bytes, status: int = 200) -> Seen:
    seen = Seen()
    try:
        r = openai_client(payload, status, stream=False).chat.completions.create(model="m", messages=[])
    except openai.APIStatusError as exc:
        seen.error = f"{exc.status_code}"
        return seen
    message = r.choices[0].message
    seen.deltas = [message.content] if message.content else []
    seen.end = r.choices[0].finish_reason
    seen.calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    seen.usage = (r.usage.prompt_tokens, r.usage.completion_tokens) if r.usage else None
    return seen


def responses_stream(payload: bytes) -> Seen:
    seen = Seen()
    try:
        with openai_client(payload).responses.stream(model="m", input="q") as stream:
            for event in stream:
                seen.events.append(event.type)
                if event.type == "response.output_text.delta":
                    seen.deltas.append(event.delta)
                elif event.type in ("response.completed", "response.incomplete"):
                    r = event.response
                    seen.end = r.status if r.status == "completed" else f"incomplete:{r.incomplete_details.reason}"
                    seen.usage = (r.usage.input_tokens, r.usage.output_tokens) if r.usage else None
                    seen.calls = [(o.name, json.loads(o.arguments)) for o in r.output if o.type == "function_call"]
                    assert r.output_text == seen.text
                elif event.type == "error":
                    seen.error = event.code or "error"
            if seen.end == "completed":
                final = stream.get_final_response()
                assert final.output_text == seen.text
    except openai.APIError as exc:
        seen.error = str(exc)
    numbers = []  # every frame's sequence_number, as sent (checked rising by one)
    for block in payload.split(b"\n\n"):
        for line in block.split(b"\n"):
            if line.startswith(b"data: "):
                numbers.append(json.loads(line[6:])["sequence_number"])
    assert numbers == list(range(len(numbers))), numbers
    return seen


def responses_body(payload: bytes, status: int = 200) -> Seen:
    seen = Seen()
    try:
        r = openai_client(payload, status, stream=False).responses.create(model="m", input="q")
    except openai.APIStatusError as exc:
        seen.error = f"{exc.status_code}"
        return seen
    seen.deltas = [r.output_text] if r.output_text else []
    seen.end = r.status if r.status == "completed" else f"incomplete:{r.incomplete_details.reason}"
    seen.usage = (r.usage.input_tokens, r.usage.output_tokens) if r.usage else None
    seen.calls = [(o.name, json.loads(o.arguments)) for o in r.output if o.type == "function_call"]
    return seen


def anthropic_stream(payload: bytes) -> Seen:
    seen = Seen()
    try:
        with anthropic_client(payload).messages.stream(model="m", max_tokens=10, messages=[]) as stream:
            for text in stream.text_stream:
                seen.deltas.append(text)
            message = stream.get_final_message()
        seen.end = message.stop_reason
        seen.usage = (message.usage.input_tokens, message.usage.output_tokens)
        seen.calls = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
        assert "".join(b.text for b in message.content if b.type == "text") == seen.text
    except anthropic.APIError as exc:
        seen.error = str(exc)
    return seen


def anthropic_body(payload: bytes, status: int = 200) -> Seen:
    seen = Seen()
    try:
        m = anthropic_client(payload, status, stream=False).messages.create(model="m", max_tokens=10, messages=[])
    except anthropic.APIStatusError as exc:
        seen.error = f"{exc.status_code}"
        return seen
    seen.deltas = ["".join(b.text for b in m.content if b.type == "text")] if m.content else []
    seen.end = m.stop_reason
    seen.usage = (m.usage.input_tokens, m.usage.output_tokens)
    seen.calls = [(b.name, b.input) for b in m.content if b.type == "tool_use"]
    return seen


STREAM = {"chat": chat_stream, "responses": responses_stream, "anthropic": anthropic_stream}
BODY = {"chat": chat_body, "responses": responses_body, "anthropic": anthropic_body}
# The stop shape's end, as each SDK reports it.
STOPPED = {"chat": "content_filter", "responses": "incomplete:content_filter", "anthropic": "refusal"}
COMPLETE = {"chat": "stop", "responses": "completed", "anthropic": "end_turn"}
TOOLS_END = {"chat": "tool_calls", "responses": "completed", "anthropic": "tool_use"}
LENGTH = {"chat": "length", "responses": "incomplete:max_output_tokens", "anthropic": "max_tokens"}
