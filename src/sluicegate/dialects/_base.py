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
    # The upstream's breakdown in its dialect's own keys (`output_tokens_details`, `completion_tokens_details`,
    # `cache_read_input_tokens`...), integers only: passed on as it came, never computed here.
    details: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class Answer:
    """What an encoder wrote so far: the non-streaming body is built from it."""

    text: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (call id, name, arguments JSON)
    end: End | None = None
    usage: Billed | None = None
    error: tuple[str, str] | None = None  # (code, message)
    thoughts: dict[str, Thought] = field(default_factory=dict)  # shown reasoning parts, in order (redacted)


@dataclass
class Thought:
    """One reasoning part as shown (`dialects/_reasoning.py`): already redacted. `signature` is what the
    client gets for it (Anthropic); `item` the Responses reasoning item it belongs to."""

    key: str
    kind: str
    item: str = ""
    text: str = ""
    signature: str | None = None
    done: bool = False


# `json.dumps(payload, ensure_ascii=False, separators=(",", ":"))` without making a new encoder every frame.
compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
# A str as compact JSON writes it (ensure_ascii=False): the C function `json.dumps` uses for it.
json_string = json.encoder.encode_basestring


def data_line(payload: dict[str, Any] | str) -> bytes:
    """An unnamed SSE frame (`data: ...`), as OpenAI Chat Completions sends every chunk."""
    body = payload if isinstance(payload, str) else compact_json(payload)
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
        # The upstream's usage breakdown seen so far (the relay fills it): Anthropic shows it in `message_start`
        # already, as the API does; every dialect in its final usage (`Billed.details`).
        self.usage_details: dict[str, Any] = {}

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

    # Reasoning frames (written only when the operator shows reasoning; the text is already redacted).

    def think_item(self, item: str) -> bytes:
        """A Responses reasoning item opens (the other dialects have no items: b"")."""
        return b"" if self.ended else self.start() + self._think_item(item)

    def think_open(self, key: str, kind: str, item: str = "") -> bytes:
        if self.ended or key in self.answer.thoughts:
            return b""
        thought = self.answer.thoughts[key] = Thought(key, kind, item)
        return self.start() + self._think_open(thought)

    def think(self, key: str, delta: str) -> bytes:
        thought = self.answer.thoughts.get(key)
        if not delta or self.ended or thought is None or thought.done:
            return b""
        thought.text += delta
        return self._think(thought, delta)

    def thought(self, key: str) -> str:
        """The reasoning text shown so far for part `key`."""
        thought = self.answer.thoughts.get(key)
        return "" if thought is None else thought.text

    def think_done(self, key: str, *, signature: str | None = None, complete: bool = True) -> bytes:
        thought = self.answer.thoughts.get(key)
        if self.ended or thought is None or thought.done:
            return b""
        thought.done = True
        thought.signature = signature
        return self._think_done(thought, complete)

    def think_item_done(self, item: str, extra: dict[str, Any], *, complete: bool = True) -> bytes:
        return b"" if self.ended else self._think_item_done(item, extra, complete)

    def think_opaque(self, block: dict[str, Any]) -> bytes:
        """A provider-encrypted reasoning block (Anthropic `redacted_thinking`), passed on as it came."""
        return b"" if self.ended else self.start() + self._think_opaque(block)

    def _think_item(self, item: str) -> bytes:
        return b""

    def _think_open(self, thought: Thought) -> bytes:
        return b""

    def _think(self, thought: Thought, delta: str) -> bytes:
        raise NotImplementedError

    def _think_done(self, thought: Thought, complete: bool) -> bytes:
        return b""

    def _think_item_done(self, item: str, extra: dict[str, Any], complete: bool) -> bytes:
        return b""

    def _think_opaque(self, block: dict[str, Any]) -> bytes:
        return b""

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
