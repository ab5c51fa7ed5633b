"""What the three dialect encoders share: the end kinds, the accumulated answer, and the SSE line helpers.

An encoder writes, for one answer, the frames a client's official SDK parses (`start`, `text`, `tool_call`,
`finish`, `error`), and remembers what it wrote so that `body()` is the non-streaming response the same answer
would have been. It does no I/O and knows nothing of the gate: the relay (`relay.py`) decides what to write.
"""

from __future__ import annotations

import enum
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..sse import encode_event


class End(enum.Enum):
    """How an answer ends, in no dialect's words (each encoder maps it to its own)."""

    COMPLETE = "complete"  # the model finished (OpenAI "stop", Anthropic "end_turn", Responses "completed")
    TOOL_CALLS = "tool_calls"  # the model finished with validated tool calls
    LENGTH = "length"  # the output cap was reached (what the upstream said)
    CONTENT_FILTER = "content_filter"  # a stop (gate, secret, cap, rule) or an upstream refusal
    PAUSED = "pause_turn"  # Anthropic: a server tool loop paused; the client sends the message back to resume


@dataclass(frozen=True)
class Billed:
    """The usage the client is shown: what the upstream generated (its own figures, else the byte estimate)."""

    input_tokens: int
    output_tokens: int


@dataclass
class Answer:
    """What an encoder wrote so far: the non-streaming body is built from it."""

    text: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (call id, name, arguments JSON)
    end: End | None = None
    usage: Billed | None = None
    error: tuple[str, str] | None = None  # (code, message)


def data_line(payload: dict[str, Any] | str) -> bytes:
    """An unnamed SSE frame (`data: ...`), as OpenAI Chat Completions sends every chunk."""
    body = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    if "\n" in body or "\r" in body:  # compact JSON never has one; a str payload is the [DONE] sentinel
        raise ValueError("a data line must be one line")
    return f"data: {body}\n\n".encode()


def named(event: str, payload: dict[str, Any]) -> bytes:
    """A named SSE frame whose data is compact JSON (Responses and Anthropic)."""
    return encode_event(event, payload)


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


class Encoder:
    """Base of the three encoders; one instance per answer."""

    dialect = "?"

    def __init__(self, model: str, *, answer_id: str | None = None, created: int | None = None) -> None:
        self.model = model
        self.id = answer_id or new_id(self._prefix())
        self.created = int(time.time()) if created is None else created
        self.answer = Answer()
        self.started = False
        self.ended = False

    def _prefix(self) -> str:
        return "sg_"

    # The frames. Each returns the bytes to write (possibly b"").

    def start(self) -> bytes:
        """The opening frames (idempotent: b"" once started)."""
        if self.started:
            return b""
        self.started = True
        return self._start()

    def text(self, delta: str) -> bytes:
        if not delta or self.ended:
            return b""
        self.answer.text += delta
        return self.start() + self._text(delta)

    def tool_call(self, call_id: str, name: str, arguments: str) -> bytes:
        """A whole, validated call in the dialect's own delta form."""
        if self.ended:
            return b""
        self.answer.calls.append((call_id, name, arguments))
        return self.start() + self._tool_call(call_id, name, arguments)

    def server(self, events: list[dict[str, Any]]) -> bytes:
        """A server-side tool block or item (web search, code execution...) as the upstream sent it: its
        events from start to stop, renumbered into this answer (`dialects._passthrough`)."""
        if self.ended or not events:
            return b""
        return self.start() + self._server(events)

    def boundary(self, citations: bool) -> bytes:
        """The upstream began a new text block or message item: the next text opens a new one here too."""
        return b""

    def finals(self, items: list[dict[str, Any]]) -> bytes:
        """The upstream's last copy of the server items it passed (Responses `response.completed`)."""
        return b""

    def annotations(self, text: str, annotations: list[dict[str, Any]]) -> bytes:
        """The annotations of the upstream message whose text was `text` (Responses)."""
        return b""

    def citation(self, citation: dict[str, Any]) -> bytes:
        """A citation of the text being written (Anthropic `citations_delta`; others have none to write)."""
        return b""

    def finish(self, end: End, usage: Billed) -> bytes:
        """The normal end (or the stop shape, `End.CONTENT_FILTER`), with the usage the upstream billed."""
        if self.ended:
            return b""
        self.ended = True
        self.answer.end = end
        self.answer.usage = usage
        return self.start() + self._finish(end, usage)

    def error(self, code: str, message: str) -> bytes:
        """The in-stream error event (text already sent stays sent)."""
        if self.ended:
            return b""
        self.ended = True
        self.answer.error = (code, message)
        return self.start() + self._error(code, message)

    def body(self) -> dict[str, Any]:
        """The non-streaming response body for what was written (an error answer: see `error_body`)."""
        raise NotImplementedError

    def _start(self) -> bytes:
        raise NotImplementedError

    def _text(self, delta: str) -> bytes:
        raise NotImplementedError

    def _tool_call(self, call_id: str, name: str, arguments: str) -> bytes:
        raise NotImplementedError

    def _finish(self, end: End, usage: Billed) -> bytes:
        raise NotImplementedError

    def _server(self, events: list[dict[str, Any]]) -> bytes:
        return b""  # a dialect without server-side tool blocks (Chat Completions)

    def _error(self, code: str, message: str) -> bytes:
        raise NotImplementedError
