"""Anthropic Messages stream events.

Documented contract (platform.claude.com/docs/en/build-with-claude/streaming, "Event types"): `message_start`
(a Message with empty content); per content block a `content_block_start` (`index`, `content_block` of type
`text`, `tool_use` with `id`, `name`, `input: {}`, `thinking`...), `content_block_delta`s (`text_delta`,
`input_json_delta` with `partial_json`, `thinking_delta`, `signature_delta`, `citations_delta`) and a
`content_block_stop`; one or more `message_delta` (`delta.stop_reason`, cumulative usage); a final
`message_stop`. `ping` may appear anywhere; an `error` event (e.g. `overloaded_error`) can arrive mid-stream.
The `index` is the block's position in the final content array. There are no sequence numbers and no final
copy of the tool input: the concatenated `partial_json` is the only payload, parsed strictly after the stop
(the SDK's `MessageStream` keeps a partial-mode parse instead).

Only `tool_use` blocks are the client's to run. Server tools (`server_tool_use`: web search, web fetch, code
execution, tool search; `mcp_tool_use`) also stream their input as `input_json_delta`, and their results come
as `*_tool_result` blocks: the provider runs them, so they are buffered as `other`, never validated, output or
executed, and never fail the generation. `pause_turn` (a server tool loop paused) is incomplete and resumable:
send the message back to continue the turn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._ops import Delta, Duplicate, ItemDone, Kind, Op, ProviderId, Start, StreamViolation, Terminal
from .base import DONE_SENTINEL, Reader
from .codes import provider_code

_COMPLETED = {"end_turn", "tool_use", "stop_sequence"}
_INCOMPLETE = {"max_tokens", "model_context_window_exceeded", "pause_turn"}
RESUMABLE = frozenset({"pause_turn"})
_BLOCK_KINDS = {
    "text": Kind.TEXT,
    "tool_use": Kind.TOOL,
    "thinking": Kind.REASONING,
    "redacted_thinking": Kind.REASONING,
}
_DELTA_KINDS = {"text_delta": Kind.TEXT, "input_json_delta": Kind.TOOL, "thinking_delta": Kind.REASONING}
_DELTA_FIELDS = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}


class AnthropicReader(Reader):
    """Reads Messages events; terminal is `message_stop` after a `message_delta` stop reason."""

    provider = "anthropic"

    def __init__(self) -> None:
        super().__init__()
        self._id: str | None = None
        self._kinds: dict[int, Kind] = {}
        self._stop_reason: str | None = None

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        if payload == DONE_SENTINEL or not isinstance(payload, Mapping):
            return [StreamViolation("unexpected_done_sentinel")]
        kind = self.event_type(name, payload)
        if kind == "message_start":
            mid = (payload.get("message") or {}).get("id")
            if self._id is not None:
                return [Duplicate("repeated_message_start")] if mid == self._id else [StreamViolation("second_message")]
            self._id = str(mid or "")
            return [ProviderId(self._id)] if self._id else []
        if kind == "content_block_start":
            return self._block_start(payload)
        if kind == "content_block_delta":
            return self._block_delta(payload)
        if kind == "content_block_stop":
            index = payload.get("index")
            if index not in self._kinds:
                return [StreamViolation("stop_for_unknown_block")]
            return [ItemDone(f"block:{index}", source=kind)]
        if kind == "message_delta":
            reason = (payload.get("delta") or {}).get("stop_reason")
            if isinstance(reason, str) and reason:
                self._stop_reason = reason
            return []
        if kind == "message_stop":
            reason = self._stop_reason
            if reason is None:
                return [Terminal("incomplete", "message_stop_without_stop_reason")]
            if reason in _COMPLETED:
                return [Terminal("completed", reason)]
            if reason == "refusal":
                return [Terminal("failed", "refusal")]
            return [Terminal("incomplete", reason if reason in _INCOMPLETE else "unknown_stop_reason")]
        if kind == "error":
            code = provider_code(payload.get("error"), "type", "code")
            return [Terminal("failed", code or "error", provider_code=code)]
        return []  # ping, and events added after this reader was written

    def resumable(self, reason: str) -> bool:
        return reason in RESUMABLE

    def _block_start(self, p: Mapping[str, Any]) -> list[Op]:
        index, block = p.get("index"), p.get("content_block") or {}
        if not isinstance(index, int) or isinstance(index, bool) or not isinstance(block, Mapping):
            return [StreamViolation("block_without_index")]
        kind = _BLOCK_KINDS.get(str(block.get("type")), Kind.OTHER)
        if index in self._kinds and self._kinds[index] != kind:
            return [StreamViolation("conflicting_item_start")]
        self._kinds[index] = kind
        initial = ""
        if kind == Kind.TOOL:
            start_input = block.get("input")
            # The documented start value is `{}`; deltas replace it. A non-empty start input is kept as JSON.
            initial = json.dumps(start_input, ensure_ascii=False) if start_input else "{}"
        elif kind == Kind.TEXT:
            initial = str(block.get("text") or "")
        return [Start(f"block:{index}", kind, call_id=block.get("id"), name=block.get("name"), initial=initial)]

    def _block_delta(self, p: Mapping[str, Any]) -> list[Op]:
        index, delta = p.get("index"), p.get("delta") or {}
        if index not in self._kinds:
            return [StreamViolation("delta_for_unknown_block")]
        dtype = str(delta.get("type"))
        expected = _DELTA_KINDS.get(dtype)
        block_kind = self._kinds[index]
        if block_kind == Kind.OTHER:
            # A server tool's input (`input_json_delta`) or any delta of a provider-side block: buffered, never
            # validated. It must still be a string where the format says so.
            piece = delta.get(_DELTA_FIELDS[dtype]) if expected is not None else ""
            if not isinstance(piece, str):
                return [StreamViolation("delta_not_a_string")]
            return [Delta(f"block:{index}", piece)] if piece else []
        if expected is None:
            return []  # signature_delta, citations_delta: not content we assemble
        if expected != block_kind:
            return [StreamViolation("delta_kind_mismatch")]
        piece = delta.get(_DELTA_FIELDS[dtype])
        if not isinstance(piece, str):
            return [StreamViolation("delta_not_a_string")]
        return [Delta(f"block:{index}", piece)]
