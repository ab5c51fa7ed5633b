"""SSE frames out: one function that cannot be made to inject a field, and the header preset for the stream.

A newline inside data would end the `data:` line and let the rest pose as a field (`id:`, `event:`, or a blank
line that dispatches early), so data is split on every SSE line end (CRLF, LF, CR) into several `data:` lines,
which the reader joins back with LF; names and ids are single-line by contract and are refused otherwise.

One limit for both ends: a frame is at most `max_event_bytes` (the parser's `DEFAULT_MAX_EVENT_BYTES`, 1 MiB,
unless given), and a parser with the same limit accepts every frame that fits (what it counts, data plus the
line being read, is never more than the frame's length). A larger frame is refused here rather than written
for a reader to drop.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ._parser import _EOL, DEFAULT_MAX_EVENT_BYTES

# The seed's set: no-transform because a proxy that recompresses the body can coalesce frames; X-Accel-Buffering
# because nginx buffers proxied responses by default; no-store so no cache (or service worker) holds the stream.
SSE_HEADERS: Mapping[str, str] = MappingProxyType(
    {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-store, no-transform",
        "X-Accel-Buffering": "no",
    }
)


def _single_line(kind: str, value: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"SSE {kind} must be a str, got {type(value).__name__}")
    if "\r" in value or "\n" in value:
        raise ValueError(f"SSE {kind} must not contain CR or LF: {value!r}")
    if "\0" in value:
        raise ValueError(f"SSE {kind} must not contain NUL")
    return value


def _json_default(value: object) -> object:
    if isinstance(value, Mapping):  # a read-only mapping (MappingProxyType) is as much JSON as a dict
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def encode_event(
    event: str,
    data: str | Mapping[str, Any],
    *,
    id: str | None = None,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> bytes:
    """One SSE frame: `event:`, `data:` line(s), optional `id:`, blank line. A mapping is sent as compact JSON.

    CR and CRLF inside string data reach the reader as LF (the format has no way to carry them). A frame over
    `max_event_bytes` is a `ValueError`: a parser at that limit (the default one, by default) would refuse it.
    """
    name = _single_line("event name", event)
    if not name:
        raise ValueError("SSE event name must not be empty (an unnamed event is 'message')")
    if isinstance(data, Mapping):
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_default)
    elif isinstance(data, str):
        body = data
    else:
        raise TypeError(f"SSE data must be a str or a mapping, got {type(data).__name__}")
    lines = [f"event: {name}"]
    lines += [f"data: {line}" for line in _EOL.split(body)]
    if id is not None:
        lines.append(f"id: {_single_line('id', id)}")
    frame = ("\n".join(lines) + "\n\n").encode("utf-8")
    if len(frame) > max_event_bytes:
        raise ValueError(
            f"SSE frame of {len(frame)} bytes is over max_event_bytes={max_event_bytes}: a reader would refuse it"
        )
    return frame


def encode_comment(text: str = "") -> bytes:
    """A comment line (`: text`), which every reader ignores: the keep-alive ping."""
    return f": {_single_line('comment', text)}\n\n".encode() if text else b":\n\n"
