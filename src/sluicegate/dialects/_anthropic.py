"""Anthropic Messages: `message_start` ... `message_stop` named events, and the `message` body.

Text goes in one text block (index 0, opened at the first text); each validated tool call is a whole
`tool_use` block after it: `content_block_start` (input `{}`), one `input_json_delta` with the complete
arguments, `content_block_stop` (what the SDK's `MessageStream` accumulates into `input`). A stop is the notice
as the last `text_delta`, then `message_delta` with `stop_reason: "refusal"`, then `message_stop`; an upstream
failure is `event: error` (the SDK raises on it).
"""

from __future__ import annotations

import json
from typing import Any

from ._base import Billed, Encoder, End, Thought, named
from ._reasoning import UNSIGNED_THINKING

_STOP = {End.COMPLETE: "end_turn", End.TOOL_CALLS: "tool_use", End.LENGTH: "max_tokens", End.CONTENT_FILTER: "refusal"}


class AnthropicEncoder(Encoder):
    """Frames for one Messages answer. `input_tokens` is shown in `message_start` (the upstream's figure)."""

    dialect = "anthropic"

    def __init__(self, model: str, *, input_tokens: int = 0, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self.input_tokens = input_tokens
        self._index = -1  # the open block, -1 for none
        self._blocks = 0
        self._thinking: dict[str, int] = {}  # reasoning part -> its block index
        self._opaque: dict[str, dict[str, Any]] = {}  # redacted_thinking blocks, as they came
        self._placed: list[tuple[int, str]] = []  # (answer blocks before it, reasoning key), for body()

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
            "usage": {"input_tokens": self.input_tokens, "output_tokens": 0},
        }
        return named("message_start", {"type": "message_start", "message": message})

    def _open(self, block: dict[str, Any]) -> bytes:
        self._index = self._blocks
        self._blocks += 1
        return named(
            "content_block_start", {"type": "content_block_start", "index": self._index, "content_block": block}
        )

    def _text(self, delta: str) -> bytes:
        out = b""
        if self._index < 0 or self._text_index != self._index:
            out += self._close_block() + self._open({"type": "text", "text": ""})
            self._text_index = self._index
        payload = {"type": "content_block_delta", "index": self._index, "delta": {"type": "text_delta", "text": delta}}
        return out + named("content_block_delta", payload)

    _text_index = -2

    def _tool_call(self, call_id: str, name: str, arguments: str) -> bytes:
        out = self._close_block() + self._open({"type": "tool_use", "id": call_id, "name": name, "input": {}})
        delta = {"type": "input_json_delta", "partial_json": arguments}
        out += named("content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta})
        return out + self._close_block()

    # Reasoning: one `thinking` block per upstream thinking block, `thinking_delta`s of the redacted text, the
    # signature (or UNSIGNED_THINKING, see _reasoning.py) as the `signature_delta` just before the block's stop.

    def _think_open(self, thought: Thought) -> bytes:
        out = self._close_block() + self._open({"type": "thinking", "thinking": "", "signature": ""})
        self._thinking[thought.key] = self._index
        self._placed.append((self._blocks - 1 - len(self._placed), thought.key))
        return out

    def _think(self, thought: Thought, delta: str) -> bytes:
        index = self._thinking.get(thought.key)
        if index is None or index != self._index:
            return b""  # its block was closed by an answer block: never reopened
        delta_body = {"type": "thinking_delta", "thinking": delta}
        return named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta_body})

    def _think_done(self, thought: Thought, complete: bool) -> bytes:
        index = self._thinking.get(thought.key)
        if index is None or index != self._index:
            return b""
        out = b""
        if thought.signature:
            delta = {"type": "signature_delta", "signature": thought.signature}
            out += named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        return out + self._close_block()

    def _think_opaque(self, block: dict[str, Any]) -> bytes:
        key = f"opaque:{len(self._opaque)}"
        self._opaque[key] = block
        out = self._close_block() + self._open(block)
        self._placed.append((self._blocks - 1 - len(self._placed), key))
        return out + self._close_block()

    def _close_block(self) -> bytes:
        if self._index < 0:
            return b""
        out = b""
        for key, index in self._thinking.items():  # a thinking block cut by the answer (a stop): never signed
            thought = self.answer.thoughts.get(key)
            if index == self._index and thought is not None and not thought.done:
                thought.done, thought.signature = True, UNSIGNED_THINKING
                delta = {"type": "signature_delta", "signature": UNSIGNED_THINKING}
                out += named("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        index, self._index = self._index, -1
        return out + named("content_block_stop", {"type": "content_block_stop", "index": index})

    def _with_thoughts(self, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The reasoning blocks placed among the answer's blocks where the stream had them."""
        out = list(content)
        for position, key in reversed(self._placed):
            if key in self._opaque:
                block = self._opaque[key]
            else:
                t = self.answer.thoughts[key]
                block = {"type": "thinking", "thinking": t.text, "signature": t.signature or ""}
            out.insert(min(position, len(out)), block)
        return out

    def _finish(self, end: End, usage: Billed) -> bytes:
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": _STOP[end], "stop_sequence": None},
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        }
        return self._close_block() + named("message_delta", delta) + named("message_stop", {"type": "message_stop"})

    def _error(self, code: str, message: str) -> bytes:
        return named("error", error_body(code, message, "api_error"))

    def body(self) -> dict[str, Any]:
        a = self.answer
        content: list[dict[str, Any]] = [{"type": "text", "text": a.text}] if a.text else []
        content += [{"type": "tool_use", "id": c, "name": n, "input": json.loads(args)} for c, n, args in a.calls]
        content = self._with_thoughts(content)
        usage = a.usage or Billed(0, 0)
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": _STOP[a.end or End.COMPLETE],
            "stop_sequence": None,
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        }


def error_body(code: str, message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
    """Anthropic's error shape; `code` is not a field there, so it leads the message."""
    return {"type": "error", "error": {"type": kind, "message": f"{code}: {message}"}}
