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
when the connection ends makes the generation incomplete. A stream whose events carry no `sequence_number`
(recordings from before the field existed, compatible servers that omit it) is read in arrival order, replays
detected structurally (a repeated start or close is dropped; a replayed delta no longer equals the `.done`
payload and fails the integrity check); a stream that mixes both fails.

Output items: `message` (text), `function_call` and `reasoning` are assembled. Items the client must answer
and that carry a `call_id` (`local_shell_call`, `shell_call` on the local environment, `apply_patch_call`,
`computer_call`, a client-executed `tool_search_call`, `custom_tool_call`) become tool calls named by their item
type (a custom tool by its own name), taken from the finished item, validated like function calls: undeclared,
they are rejected by name. Items the provider runs itself (`HOSTED_ITEMS`) are buffered as `other`. Any other
item type fails the generation (`unsupported_output_item`): an item the reader does not model is never lost.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._ops import Check, Delta, Duplicate, ItemDone, Kind, Op, ProviderId, Start, StreamViolation, Terminal
from .base import DONE_SENTINEL, EventError, Reader
from .codes import provider_code

#: Items the provider executes (or produces) itself: nothing for the client to answer. Buffered as `other`.
HOSTED_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "compaction",
        "tool_search_output",
        "function_call_output",
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "custom_tool_call_output",
    }
)
#: Items the client must execute and answer by `call_id`, with the fields that are their arguments.
CLIENT_CALLS: Mapping[str, tuple[str, ...]] = {
    "local_shell_call": ("action",),
    "shell_call": ("action",),
    "apply_patch_call": ("operation",),
    "computer_call": ("action", "actions", "pending_safety_checks"),
    "tool_search_call": ("arguments",),
    "custom_tool_call": ("input",),
}
_RESUMABLE = frozenset({"closed_without_terminal", "sequence_gap", "unterminated_event"})


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
        self._numbered: bool | None = True if starting_after is not None else None
        self._response_id: str | None = None
        self._client_done: dict[str, str] = {}  # item id -> arguments of a finished client call

    @property
    def cursor(self) -> int | None:
        """The last applied sequence number (resume with `starting_after=cursor`); None before any."""
        return None if self._next is None else self._next - 1

    @property
    def numbered(self) -> bool | None:
        """Does this stream carry `sequence_number`s? None before the first event."""
        return self._numbered

    def resumable(self, reason: str) -> bool:
        return reason in _RESUMABLE and bool(self._numbered) and self.cursor is not None

    def state(self) -> dict[str, Any]:
        """What a resumed reader needs besides its cursor (see `Generation.checkpoint`)."""
        return {"refused": self._refused, "response_id": self._response_id, "client_done": dict(self._client_done)}

    def restore_state(self, state: Mapping[str, Any]) -> None:
        self._refused = bool(state.get("refused"))
        rid = state.get("response_id")
        self._response_id = rid if isinstance(rid, str) else None
        self._client_done = {str(k): str(v) for k, v in (state.get("client_done") or {}).items()}

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        if payload == DONE_SENTINEL or not isinstance(payload, Mapping):
            return [StreamViolation("unexpected_done_sentinel")]
        kind = self.event_type(name, payload)
        seq = payload.get("sequence_number")
        numbered = isinstance(seq, int) and not isinstance(seq, bool)
        if self._numbered is None:
            self._numbered = numbered
        if not numbered:
            if self._numbered:
                return [StreamViolation("missing_sequence_number")]
            return self._arrival(kind, payload)
        if not self._numbered:
            return [StreamViolation("sequence_numbers_mixed")]
        assert isinstance(seq, int)
        if seq in self._held or (self._next is not None and seq < self._next):
            return [Duplicate("sequence_number_seen")]
        self._held[seq] = (kind, payload)
        if len(self._held) > self._max_held:
            return [StreamViolation("sequence_gap_too_long")]
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

    def _arrival(self, kind: str, payload: Mapping[str, Any]) -> list[Op]:
        """An unnumbered stream: applied in arrival order, anchored at `response.created`."""
        if kind == "response.created":
            rid = (payload.get("response") or {}).get("id")
            if self._response_id is not None:
                return (
                    [Duplicate("repeated_response_created")]
                    if rid == self._response_id
                    else [StreamViolation("second_response")]
                )
        elif self._response_id is None:
            return [StreamViolation("event_before_response_created")]
        return self._apply(kind, payload)

    def at_close(self) -> list[Op]:
        return [Terminal("incomplete", "sequence_gap")] if self._held else []

    def _apply(self, kind: str, p: Mapping[str, Any]) -> list[Op]:
        if kind in ("response.created", "response.in_progress", "response.queued"):
            response = p.get("response") or {}
            rid = response.get("id")
            if not isinstance(rid, str) or not rid:
                return []
            if self._response_id is None:
                self._response_id = rid
            elif rid != self._response_id:
                return [StreamViolation("provider_id_changed")]
            return [ProviderId(rid)]
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
            return [Terminal("incomplete", provider_code(details, "reason") or "incomplete")]
        if kind == "response.failed":
            code = provider_code((p.get("response") or {}).get("error"), "code", "type")
            return [Terminal("failed", code or "failed", provider_code=code)]
        if kind == "error":
            # Documented as top-level `code`; real streams nest it: {"type": "error", "error": {"code": ...}}.
            code = provider_code(p, "code") or provider_code(p.get("error"), "code", "type")
            return [Terminal("failed", code or "error", provider_code=code)]
        # Other documented events (hosted tools' progress, annotations, a client call's input deltas) carry
        # nothing we assemble: a client call is taken from its finished item.
        return []

    def _item_added(self, item: Mapping[str, Any]) -> list[Op]:
        kind, iid = item.get("type"), item.get("id")
        if not isinstance(iid, str) or not iid:
            return [StreamViolation("item_without_id")]
        if kind == "function_call":
            return [Start(iid, Kind.TOOL, call_id=item.get("call_id"), name=item.get("name"))]
        if kind == "reasoning":
            return [Start(iid, Kind.REASONING)]
        if kind == "message":
            return []  # its parts open with response.content_part.added
        if _client_call(item):
            return []  # opened when it is finished: its `call_id` and arguments are final only then
        if kind in HOSTED_ITEMS or kind in CLIENT_CALLS:
            return [Start(iid, Kind.OTHER)]
        return [StreamViolation("unsupported_output_item", str(kind)[:64])]

    def _item_done(self, item: Mapping[str, Any], source: str) -> list[Op]:
        kind, iid = item.get("type"), item.get("id")
        if not isinstance(iid, str) or not iid:
            return [StreamViolation("item_without_id")]
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
        if _client_call(item):
            return self._client_done_ops(iid, item, source)
        if kind in HOSTED_ITEMS or kind in CLIENT_CALLS or kind == "reasoning":
            return [ItemDone(iid, source=source, copy=True)]
        return [StreamViolation("unsupported_output_item", str(kind)[:64])]

    def _client_done_ops(self, iid: str, item: Mapping[str, Any], source: str) -> list[Op]:
        if item.get("status") == "incomplete":
            return [Terminal("incomplete", "item_incomplete")]
        arguments = client_arguments(item)
        seen = self._client_done.get(iid)
        if seen is not None:
            return [Duplicate("repeated_item_done")] if seen == arguments else [StreamViolation("integrity_mismatch")]
        self._client_done[iid] = arguments
        return [
            Start(iid, Kind.TOOL, call_id=item.get("call_id"), name=client_tool_name(item)),
            Delta(iid, arguments),
            ItemDone(iid, source=source),
        ]

    def _final_output(self, output: list[Any]) -> list[Op]:
        """`response.completed` carries the final items: a third copy that must equal the deltas."""
        ops: list[Op] = []
        for item in output:
            if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
                continue
            kind, iid = item.get("type"), item["id"]
            if kind == "function_call":
                ops.append(Check(iid, str(item.get("arguments", "")), "response.completed"))
            elif kind == "message":
                for i, part in enumerate(item.get("content") or []):
                    if isinstance(part, Mapping) and part.get("type") == "output_text":
                        ops.append(Check(f"{iid}:{i}", str(part.get("text", "")), "response.completed"))
            elif _client_call(item):
                ops.append(Check(iid, client_arguments(item), "response.completed"))
            elif kind not in HOSTED_ITEMS and kind not in CLIENT_CALLS and kind != "reasoning":
                ops.append(StreamViolation("unsupported_output_item", str(kind)[:64]))
        return ops


def _client_call(item: Mapping[str, Any]) -> bool:
    """Is this an item the client must run? Hosted variants of the same types are the provider's."""
    kind = item.get("type")
    if kind not in CLIENT_CALLS:
        return False
    if kind == "tool_search_call":
        return item.get("execution") == "client"
    if kind == "shell_call":
        environment = item.get("environment")
        return not isinstance(environment, Mapping) or environment.get("type") in (None, "local")
    return True


def client_tool_name(item: Mapping[str, Any]) -> str | None:
    """The declared tool a client item is validated against: a custom tool's own name, else the item type."""
    if item.get("type") == "custom_tool_call":
        name = item.get("name")
        return name if isinstance(name, str) and name else None
    return str(item.get("type"))


def client_arguments(item: Mapping[str, Any]) -> str:
    """The arguments of a client item as JSON: its argument fields (`CLIENT_CALLS`) that are present."""
    fields = CLIENT_CALLS[str(item.get("type"))]
    args = {f: item[f] for f in fields if item.get(f) is not None}
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


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
