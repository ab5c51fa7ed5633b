"""OpenAI Responses API stream events.

Documented contract (platform.openai.com/docs/api-reference/responses-streaming and the function-calling guide,
"Streaming"): every event has a `type` and a `sequence_number`, increasing by one from `response.created`;
`response.output_item.added` opens an item (`message`, `function_call` with `id`, `call_id`, `name`,
`reasoning`); text comes as `response.output_text.delta` (`item_id`, `content_index`) closed by
`response.output_text.done` (`text`); arguments as `response.function_call_arguments.delta` (`item_id`) closed by
`response.function_call_arguments.done` (`arguments`); `response.output_item.done` repeats the finished item;
the stream ends with `response.completed`, `response.incomplete` or `response.failed` (there is no `[DONE]`),
or an `error` event. A resumed stream (`starting_after=N`) continues at N+1.

Sequence numbers make replays and reordering decidable: an event at or below the last applied number is a
replay (dropped, counted); one above the next expected number is held until the gap fills. A gap still open
when the connection ends makes the generation incomplete.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..ops import Check, Delta, Duplicate, ItemDone, Kind, Op, ProviderId, Start, Terminal, Violation
from .base import DONE_SENTINEL, EventError, Reader


class OpenAIResponsesReader(Reader):
    """Reads Responses events in `sequence_number` order; `starting_after` for a resumed stream."""

    provider = "openai_responses"

    def __init__(self, *, starting_after: int | None = None, max_held: int = 10_000) -> None:
        super().__init__()
        # Without a resume cursor the stream is anchored at `response.created` (the documented first event),
        # whatever number it carries; events that arrive before it are held.
        self._next: int | None = None if starting_after is None else starting_after + 1
        self._held: dict[int, tuple[str, Mapping[str, Any]]] = {}
        self._max_held = max_held
        self._refused = False

    @property
    def cursor(self) -> int | None:
        """The last applied sequence number (resume with `starting_after=cursor`); None before any."""
        return None if self._next is None else self._next - 1

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        if payload == DONE_SENTINEL or not isinstance(payload, Mapping):
            return [Violation("unexpected_done_sentinel")]
        kind = self.event_type(name, payload)
        seq = payload.get("sequence_number")
        if not isinstance(seq, int) or isinstance(seq, bool):
            return [Violation("missing_sequence_number")]
        if seq in self._held or (self._next is not None and seq < self._next):
            return [Duplicate("sequence_number_seen")]
        self._held[seq] = (kind, payload)
        if len(self._held) > self._max_held:
            return [Violation("sequence_gap_too_long")]
        ops: list[Op] = []
        if self._next is None:
            if kind != "response.created":
                return ops
            self._next = seq
            stale = [n for n in self._held if n < seq]  # numbered before the first event: not this stream's
            for n in stale:
                del self._held[n]
            ops.extend(Duplicate("sequence_number_before_created") for _ in stale)
        while self._next in self._held:
            kind, held = self._held.pop(self._next)
            self._next += 1
            ops.extend(self._apply(kind, held))
        return ops

    def at_close(self) -> list[Op]:
        return [Terminal("incomplete", "sequence_gap")] if self._held else []

    def _apply(self, kind: str, p: Mapping[str, Any]) -> list[Op]:
        if kind in ("response.created", "response.in_progress", "response.queued"):
            response = p.get("response") or {}
            rid = response.get("id")
            return [ProviderId(rid)] if isinstance(rid, str) and rid else []
        if kind == "response.output_item.added":
            return self._item_added(p.get("item") or {})
        if kind == "response.content_part.added":
            part = p.get("part") or {}
            if part.get("type") == "refusal":
                self._refused = True
            return [Start(_text_key(p), Kind.TEXT)] if part.get("type") == "output_text" else []
        if kind == "response.output_text.delta":
            return [Delta(_text_key(p), _str(p, "delta"), kind=Kind.TEXT)]
        if kind == "response.output_text.done":
            return [ItemDone(_text_key(p), _str(p, "text"), source=kind)]
        if kind == "response.content_part.done":
            part = p.get("part") or {}
            if part.get("type") == "output_text":
                return [Check(_text_key(p), str(part.get("text", "")), kind)]
            return []
        if kind == "response.function_call_arguments.delta":
            return [Delta(_item_key(p), _str(p, "delta"))]
        if kind == "response.function_call_arguments.done":
            return [ItemDone(_item_key(p), _str(p, "arguments"), source=kind)]
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return [Delta(_reasoning_key(kind, p), _str(p, "delta"), kind=Kind.REASONING)]
        if kind in ("response.refusal.delta", "response.refusal.done"):
            self._refused = True
            return []
        if kind == "response.output_item.done":
            return self._item_done(p.get("item") or {}, kind)
        if kind == "response.completed":
            ops = self._final_output((p.get("response") or {}).get("output") or [])
            return [*ops, Terminal("failed", "refusal") if self._refused else Terminal("completed", "completed")]
        if kind == "response.incomplete":
            details = (p.get("response") or {}).get("incomplete_details") or {}
            return [Terminal("incomplete", str(details.get("reason") or "incomplete"))]
        if kind == "response.failed":
            error = (p.get("response") or {}).get("error") or {}
            return [Terminal("failed", str(error.get("code") or "failed"))]
        if kind == "error":
            return [Terminal("failed", str(p.get("code") or "error"))]
        return []  # other documented events (hosted tools, annotations...) carry nothing we assemble

    @staticmethod
    def _item_added(item: Mapping[str, Any]) -> list[Op]:
        kind, iid = item.get("type"), item.get("id")
        if not isinstance(iid, str) or not iid:
            return [Violation("item_without_id")]
        if kind == "function_call":
            return [Start(iid, Kind.TOOL, call_id=item.get("call_id"), name=item.get("name"))]
        if kind == "reasoning":
            return [Start(iid, Kind.REASONING)]
        if kind == "message":
            return []  # its parts open with response.content_part.added
        return [Start(iid, Kind.OTHER)]

    @staticmethod
    def _item_done(item: Mapping[str, Any], source: str) -> list[Op]:
        kind, iid = item.get("type"), item.get("id")
        if not isinstance(iid, str) or not iid:
            return [Violation("item_without_id")]
        if kind == "function_call":
            if item.get("status") == "incomplete":
                return [Terminal("incomplete", "item_incomplete")]
            return [ItemDone(iid, str(item.get("arguments", "")), source=source, copy=True)]
        if kind == "message":
            return [
                ItemDone(f"{iid}:{i}", str(part.get("text", "")), source=source, copy=True)
                for i, part in enumerate(item.get("content") or [])
                if isinstance(part, Mapping) and part.get("type") == "output_text"
            ]
        return [ItemDone(iid, source=source, copy=True)]

    @staticmethod
    def _final_output(output: list[Any]) -> list[Op]:
        """`response.completed` carries the final items: a third copy that must equal the deltas."""
        ops: list[Op] = []
        for item in output:
            if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
                continue
            if item.get("type") == "function_call":
                ops.append(Check(item["id"], str(item.get("arguments", "")), "response.completed"))
            elif item.get("type") == "message":
                for i, part in enumerate(item.get("content") or []):
                    if isinstance(part, Mapping) and part.get("type") == "output_text":
                        ops.append(Check(f"{item['id']}:{i}", str(part.get("text", "")), "response.completed"))
        return ops


def _str(p: Mapping[str, Any], field: str) -> str:
    value = p.get(field)
    if not isinstance(value, str):
        raise EventError(f"{field}_not_a_string")
    return value


def _item_key(p: Mapping[str, Any]) -> str:
    iid = p.get("item_id")
    if not isinstance(iid, str) or not iid:
        raise EventError("event_without_item_id")
    return iid


def _text_key(p: Mapping[str, Any]) -> str:
    return f"{_item_key(p)}:{p.get('content_index', 0)}"


def _reasoning_key(kind: str, p: Mapping[str, Any]) -> str:
    index = p.get("summary_index", p.get("content_index", 0))
    return f"{_item_key(p)}:{'summary' if 'summary' in kind else 'reasoning'}:{index}"
