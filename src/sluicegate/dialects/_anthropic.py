"""Anthropic Messages: `message_start` ... `message_stop` named events, and the `message` body.

Text goes in text blocks (one, opened at the first text, unless the upstream split its text into several: a
server block between them, or cited blocks after a web search); each validated tool call is a whole
`tool_use` block after it: `content_block_start` (input `{}`), one `input_json_delta` with the complete
arguments, `content_block_stop` (what the SDK's `MessageStream` accumulates into `input`). A stop is the notice
as the last `text_delta`, then `message_delta` with `stop_reason: "refusal"`, then `message_stop`; an upstream
failure is `event: error` (the SDK raises on it). Server blocks (`server_block`) go out as the upstream sent
them, renumbered; the body lists every block in the order the stream wrote them.
"""

from __future__ import annotations

import json
from typing import Any

from ._base import Billed, Encoder, End, Thought, named
from ._reasoning import UNSIGNED_THINKING

_STOP = {
    End.COMPLETE: "end_turn",
    End.TOOL_CALLS: "tool_use",
    End.LENGTH: "max_tokens",
    End.CONTENT_FILTER: "refusal",
    End.PAUSED: "pause_turn",
}


class AnthropicEncoder(Encoder):
    """Frames for one Messages answer. `input_tokens` is shown in `message_start` (the upstream's figure)."""

    dialect = "anthropic"

    def __init__(self, model: str, *, input_tokens: int = 0, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.input_tokens = input_tokens
        self._index = -1  # the open block, -1 for none
        self._blocks = 0
        self._content: list[dict[str, Any]] = []  # every block written, in order (the non-streaming body)
        self._cite_next = False  # the next text block carries citations (its upstream block did)
        self._thinking: dict[str, int] = {}  # reasoning part -> its block index (= its entry in `_content`)

    def _prefix(self) -> str:
        return "msg_sg"

    def _start(self) -> bytes:
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": 0, **self.usage_details},
        }
        return named("message_start", {"type": "message_start", "message": message})

    def _open(self, block: dict[str, Any]) -> bytes:
        self._index = self._blocks
        self._blocks += 1
        self._content.append(dict(block))
        return named(
            "content_block_start", {"type": "content_block_start", "index": self._index, "content_block": block}
        )

    def _text(self, delta: str) -> bytes:
        out = b""
        if self._index < 0 or self._text_index != self._index:
            out += self._open_text()
        self._content[-1]["text"] += delta
        payload = {"type": "content_block_delta", "index": self._index, "delta": {"type": "text_delta", "text": delta}}
        return out + named("content_block_delta", payload)

    _text_index = -2

    def _open_text(self) -> bytes:
        block: dict[str, Any] = {"type": "text", "text": ""}
        if self._cite_next:
            block["citations"] = []
        out = self._close_block() + self._open(block)
        self._text_index = self._index
        return out

    def _tool_call(self, call_id: str, name: str, arguments: str) -> bytes:
        out = self._close_block() + self._open({"type": "tool_use", "id": call_id, "name": name, "input": {}})
        self._content[-1]["input"] = json.loads(arguments)
        delta = {"type": "input_json_delta", "partial_json": arguments}
        out += named("content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta})
        return out + self._close_block()

    # Reasoning: one `thinking` block per upstream thinking block, `thinking_delta`s of the redacted text, the
    # signature (or UNSIGNED_THINKING, see _reasoning.py) as the `signature_delta` just before the block's stop.

    def _think_open(self, thought: Thought) -> bytes:
        out = self._close_block() + self._open({"type": "thinking", "thinking": "", "signature": ""})
        self._thinking[thought.key] = self._index
        return out

    def _think(self, thought: Thought, delta: str) -> bytes:
        index = self._thinking.get(thought.key)
        if index is None or index != self._index:
            return b""  # its block was closed by an answer block: never reopened
        self._content[index]["thinking"] += delta
        delta_body = {"type": "thinking_delta", "thinking": delta}
        return named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta_body})

    def _think_done(self, thought: Thought, complete: bool) -> bytes:
        index = self._thinking.get(thought.key)
        if index is None or index != self._index:
            return b""
        out = b""
        if thought.signature:
            self._content[index]["signature"] = thought.signature
            delta = {"type": "signature_delta", "signature": thought.signature}
            out += named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        return out + self._close_block()

    def _think_opaque(self, block: dict[str, Any]) -> bytes:
        return self._close_block() + self._open(block) + self._close_block()

    def _close_block(self) -> bytes:
        if self._index < 0:
            return b""
        out = b""
        for key, index in self._thinking.items():  # a thinking block cut by the answer (a stop): never signed
            thought = self.answer.thoughts.get(key)
            if index == self._index and thought is not None and not thought.done:
                thought.done, thought.signature = True, UNSIGNED_THINKING
                self._content[index]["signature"] = UNSIGNED_THINKING
                delta = {"type": "signature_delta", "signature": UNSIGNED_THINKING}
                out += named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        index, self._index = self._index, -1
        return out + named("content_block_stop", {"type": "content_block_stop", "index": index})

    def _finish(self, end: End, usage: Billed) -> bytes:
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": _STOP[end], "stop_sequence": None},
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, **usage.details},
        }
        return self._close_block() + named("message_delta", delta) + named("message_stop", {"type": "message_stop"})

    def _error(self, code: str, message: str) -> bytes:
        return named("error", error_body(code, message, "api_error"))

    # Server blocks, text-block boundaries and citations (see `_passthrough`).

    def _server(self, events: list[dict[str, Any]]) -> bytes:
        """A server block's events (start, deltas, stop) as the upstream sent them, at our next index."""
        from ._passthrough import anthropic_block

        out = self._close_block()
        index = self._blocks
        self._blocks += 1
        for event in events:
            out += named(str(event.get("type")), {**event, "index": index})
        self._content.append(anthropic_block(events))
        return out

    def boundary(self, citations: bool) -> bytes:
        """The upstream began a new text block: the next text opens a new block of ours too."""
        self._cite_next = citations
        if self._index >= 0 and self._index == self._text_index:
            return self._close_block()
        return b""

    def citation(self, citation: dict[str, Any]) -> bytes:
        """One citation of the text block being written (opened, with `citations: []`, if none is open)."""
        if self.ended:
            return b""
        out = self.start()
        if self._index < 0 or self._index != self._text_index:
            self._cite_next = True
            out += self._open_text()
        self._content[-1].setdefault("citations", []).append(citation)
        delta = {"type": "citations_delta", "citation": citation}
        return out + named("content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta})

    def body(self) -> dict[str, Any]:
        a = self.answer
        content = [dict(block) for block in self._content]
        usage = a.usage or Billed(0, 0)
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": _STOP[a.end or End.COMPLETE],
            "stop_sequence": None,
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, **usage.details},
        }


def error_body(code: str, message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """Anthropic's error shape; `code` is not a field there, so it leads the message."""
    return {"type": "error", "error": {"type": kind, "message": f"{code}: {message}"}}
