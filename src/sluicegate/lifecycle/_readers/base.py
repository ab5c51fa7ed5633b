"""What every reader shares: turning a dict or a parsed SSE event into (event name, JSON payload)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..._errors import SluicegateError
from .._ops import Op

DONE_SENTINEL = "[DONE]"


class EventError(SluicegateError, ValueError):
    """The event could not be read (not JSON, not an object): the generation fails with `code`."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(code)


def coerce_event(event: object) -> tuple[str | None, Mapping[str, Any] | str]:
    """A provider event as (SSE event name or None, payload dict) — or the payload `"[DONE]"`.

    Accepts a dict (already decoded JSON), or anything with `.data` (a str, as an SSE parser yields) and an
    optional `.event` name (`sluicegate.sse.SSEEvent`, or any duck-typed equivalent); such an event may carry
    `.payload`, the dict its `.data` decodes to, so that a caller that decoded it already does not pay twice.
    """
    if isinstance(event, Mapping):
        return None, event
    data = getattr(event, "data", None)
    if not isinstance(data, str):
        raise EventError("unreadable_event")
    name = getattr(event, "event", None)
    name = name if isinstance(name, str) and name and name != "message" else None
    if data.strip() == DONE_SENTINEL:
        return name, DONE_SENTINEL
    parsed = getattr(event, "payload", None)
    if isinstance(parsed, dict):  # decoded once already by whoever read the event (the proxy's relay)
        return name, parsed
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the stack
        raise EventError("event_not_json") from None
    if not isinstance(payload, dict):
        raise EventError("event_not_object")
    return name, payload


class Reader:
    """Base of the three readers: one instance per generation (readers keep per-stream state)."""

    #: Does the generation's terminal also close every item (no per-item done event in the format)?
    closes_items_at_terminal = False
    #: A name for telemetry.
    provider = "unknown"

    def __init__(self) -> None:
        self._bound = False

    def bind(self) -> None:
        """Called by `Generation`: a reader holds one stream's state and must not be shared."""
        if self._bound:
            raise ValueError(f"{type(self).__name__} is already bound to a generation: make one reader per stream")
        self._bound = True

    def read(self, event: object) -> list[Op]:
        """The ops for one event (possibly none): a dict, or an SSE event with `.event` and `.data`."""
        name, payload = coerce_event(event)
        return self.read_payload(name, payload)

    def read_payload(self, name: str | None, payload: Mapping[str, Any] | str) -> list[Op]:
        """The ops for an already decoded payload (`"[DONE]"` for the Chat Completions sentinel)."""
        raise NotImplementedError

    def resumable(self, reason: str) -> bool:
        """Can a generation that ended incomplete for `reason` be continued (rather than started anew)?"""
        return False

    def state(self) -> dict[str, Any]:
        """Per-stream state a resumed reader needs besides its cursor (`Generation.checkpoint`)."""
        return {}

    def restore_state(self, state: Mapping[str, Any]) -> None:
        """Take back what `state()` returned (a reader rebuilt after a restart)."""

    def at_close(self) -> list[Op]:
        """Ops when the connection ends (e.g. events still held back for a sequence gap)."""
        return []

    @staticmethod
    def event_type(name: str | None, payload: Mapping[str, Any]) -> str:
        """The payload's `type`, checked against the SSE event name when both exist."""
        kind = payload.get("type")
        if not isinstance(kind, str):
            raise EventError("event_without_type")
        if name is not None and name != kind:
            raise EventError("event_name_mismatch")
        return kind
