"""Framework-normalized chunks (LangChain's `AIMessageChunk`, a LlamaIndex response): the adapters' reader.

A framework chunk is not a provider event, so this reader is only as strong as what the framework keeps:
tool-call fragments keyed by `index` (or by `id` when a provider integration leaves the index out), text, and
the provider's finish/stop reason from the chunk metadata. The finish reason is the terminal signal; the
framework's own end-of-stream marker (LangChain's `chunk_position="last"`) is not, because the framework adds
it even when the provider's stream was cut.

Input: `{"text": str, "tool_call_chunks": [{"index", "id", "name", "args"}], "finish_reason": str | None,
"id": str | None}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._ops import Delta, Kind, Op, ProviderId, StreamViolation, Terminal
from .base import Reader

# OpenAI (stop, tool_calls, function_call) and Anthropic (end_turn, tool_use, stop_sequence) reasons.
_COMPLETED = {"stop", "tool_calls", "function_call", "end_turn", "tool_use", "stop_sequence", "STOP"}
_INCOMPLETE = {"length", "content_filter", "max_tokens", "MAX_TOKENS", "pause_turn", "model_context_window_exceeded"}


class ChunkReader(Reader):
    """Reads normalized framework chunks; keys tool-call fragments by index, else by id."""

    closes_items_at_terminal = True

    def __init__(self, provider: str = "framework") -> None:
        super().__init__()
        self.provider = provider
        self._id: str | None = None
        self._by_id: dict[str, str] = {}
        self._last_key: str | None = None

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        if not isinstance(payload, Mapping):
            return [StreamViolation("unexpected_done_sentinel")]
        ops: list[Op] = []
        cid = payload.get("id")
        if isinstance(cid, str) and cid and self._id is None:
            self._id = cid
            ops.append(ProviderId(cid))
        text = payload.get("text")
        if isinstance(text, str) and text:
            ops.append(Delta("text", text, kind=Kind.TEXT))
        for chunk in payload.get("tool_call_chunks") or []:
            key = self._key(chunk)
            if key is None:
                return [*ops, StreamViolation("tool_call_chunk_without_index_or_id")]
            args = chunk.get("args") or ""
            if not isinstance(args, str):
                return [*ops, StreamViolation("arguments_not_a_string")]
            ops.append(Delta(key, args, kind=Kind.TOOL, call_id=chunk.get("id") or None, name=chunk.get("name")))
        reason = payload.get("finish_reason")
        if isinstance(reason, str) and reason:
            if reason in _COMPLETED:
                ops.append(Terminal("completed", reason))
            elif reason in _INCOMPLETE:
                ops.append(Terminal("incomplete", reason))
            elif reason == "refusal":
                ops.append(Terminal("failed", "refusal"))
            else:
                ops.append(Terminal("incomplete", "unknown_finish_reason"))
        return ops

    def _key(self, chunk: Mapping[str, Any]) -> str | None:
        index, cid = chunk.get("index"), chunk.get("id")
        if isinstance(index, int) and not isinstance(index, bool):
            key = f"tool:{index}"
            if isinstance(cid, str) and cid:
                self._by_id[cid] = key
            return key
        if isinstance(cid, str) and cid:
            return self._by_id.setdefault(cid, f"tool:id:{cid}")
        return None
