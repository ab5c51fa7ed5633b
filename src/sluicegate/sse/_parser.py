"""A sans-I/O Server-Sent Events parser that gives the same events for every way the bytes are cut.

Why our own: the two reference Python parsers (httpx-sse, and the OpenAI SDK's decoder copied from it) dispatch
a block that has no `data` line (`event: ping` arrives as an event with `data=""`), hold a CR-terminated event
until the next read arrives, and buffer without bound; the OpenAI one also misses a mixed `\\n\\r\\n` blank line.
This one follows the WHATWG rules: a buffer across reads (a chunk is not a message), dispatch on a blank line,
comments ignored, `data` lines joined with `\\n`, CRLF/LF/CR line ends (a CR ends its line at once; an LF that
follows it, even in the next read, is swallowed), one space stripped after the colon, a leading BOM dropped,
`retry` only when all digits, an `id` with NUL ignored, the last event ID committed when a block ends (a block
cut off by the end of the stream leaves it as it was). Bytes are decoded as the spec says, incrementally, with
U+FFFD for invalid UTF-8 (so a character split across reads stays whole, and the replacement does not depend on
where the bytes were cut). Memory is bounded by `max_event_bytes`, counted the same whatever the read sizes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from .._errors import SluicegateError

DEFAULT_MAX_EVENT_BYTES = 1 << 20  # 1 MiB: far above any answer's frame, far below a memory problem
# `retry` above this (ms, about 292 million years) is not a reconnection time anyone means: ignored, as a value
# that is not all digits is. It also keeps int() away from Python's 4300-digit limit.
MAX_RETRY_MS = (1 << 63) - 1

_EOL = re.compile(r"\r\n|\r|\n")
_BOM = "\ufeff"


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event. `id` is the last event ID in force (it persists across events, as in the spec)."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


class SSEEventTooLarge(SluicegateError, ValueError):
    """One event grew past `max_event_bytes`. `events` holds what the same `feed` call had already dispatched,
    so nothing that arrived whole before the oversized event is lost."""

    def __init__(self, message: str, events: list[SSEEvent]) -> None:
        super().__init__(message)
        self.events = events


def _retry_ms(value: str) -> int | None:
    """The spec's rule (ASCII digits only, base ten), and a bound: anything else is ignored, never an error."""
    if not value or not value.isascii() or not value.isdigit():
        return None
    digits = value.lstrip("0") or "0"
    if len(digits) > 19:  # more digits than MAX_RETRY_MS has: over it, whatever they are
        return None
    ms = int(digits)
    return ms if ms <= MAX_RETRY_MS else None


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class SSEParser:
    """`feed(bytes | str) -> list[SSEEvent]`, `close() -> list[SSEEvent]`.

    Feed either bytes (decoded as UTF-8, invalid sequences as U+FFFD) or already-decoded text, not a mix.
    `last_event_id` seeds the last event ID when reconnecting (what the client sent as `Last-Event-ID`): events
    carry it until the stream sets another. After an error the parser is unusable (every call raises): a stream
    that went wrong once is not trusted to be back in step.

    `max_event_bytes` bounds what one event holds: its data (UTF-8 bytes of each `data` value, plus one per line
    for the joining LF) plus the line being read (any line: a comment, an unknown field, counted in full
    whether it came in one read or many). Past it, `SSEEventTooLarge`.
    """

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES, last_event_id: str | None = None) -> None:
        if max_event_bytes < 1:
            raise ValueError("max_event_bytes must be >= 1")
        if last_event_id is not None:
            if not isinstance(last_event_id, str):
                raise TypeError(f"last_event_id must be a str, got {type(last_event_id).__name__}")
            if any(c in last_event_id for c in "\0\r\n"):
                raise ValueError("last_event_id must not contain NUL, CR or LF (no stream could have set it)")
        self.max_event_bytes = max_event_bytes
        self._pending = b""  # the start of a character cut off by the end of the last read (at most 3 bytes)
        self._mode: type | None = None  # bytes or str, fixed by the first feed
        self._started = False  # a first character was seen (the BOM check is done)
        self._parts: list[str] = []  # the unterminated line carried across reads, in pieces (joined once)
        self._line_bytes = 0
        self._skip_lf = False  # the last read ended on CR: an LF starting the next one belongs to it
        self._data: list[str] = []
        self._data_bytes = 0
        self._event = ""
        self._retry: int | None = None
        self._id_buffer = last_event_id  # the spec's "last event ID buffer": set by `id`, committed at dispatch
        self._failed: str | None = None
        self._closed = False
        self.last_event_id: str | None = last_event_id  # committed when a block ends, as the spec says
        self.reconnection_time: int | None = None  # the last valid `retry`, in ms (whether or not dispatched)

    def feed(self, data: bytes | bytearray | memoryview | str) -> list[SSEEvent]:
        """Parse one read; return the events it completed (possibly none)."""
        if self._failed is not None or self._closed:
            self._check_usable()
        if self._mode is bytes and type(data) is bytes:  # the usual read: no type dispatch, no copy
            text = self._utf8(data)
            if not self._started:
                text = self._start(text)
        else:
            text = self._decode(data)
        if not text:
            return []
        try:
            if self._skip_lf:
                self._skip_lf = False
                if text[0] == "\n":
                    text = text[1:]
            if "\n" not in text and "\r" not in text:  # a small read inside a line: no scan, no join
                events: list[SSEEvent] = []
                self._hold(text, events)
                return events
            return self._parse(text)
        except SSEEventTooLarge as exc:
            self._failed = str(exc)
            raise

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated block is discarded, its `id` not committed (the spec's rule)."""
        self._check_usable()
        self._closed = True
        self._pending = b""  # a cut-off character would be a U+FFFD in a line that is discarded anyway
        return []

    def _check_usable(self) -> None:
        if self._failed is not None:
            raise ValueError(f"SSEParser is unusable after an earlier error: {self._failed}")
        if self._closed:
            raise ValueError("SSEParser is closed")

    def _decode(self, data: bytes | bytearray | memoryview | str) -> str:
        if isinstance(data, str):
            mode: type = str
        elif isinstance(data, (bytes, bytearray, memoryview)):
            mode = bytes
        else:
            raise TypeError(f"SSEParser.feed takes bytes or str, got {type(data).__name__}")
        if self._mode is not mode:
            if self._mode is not None:
                raise TypeError("SSEParser.feed: do not mix bytes and str in one stream")
            self._mode = mode
        text = data if isinstance(data, str) else self._utf8(bytes(data))
        return self._start(text) if not self._started else text

    def _utf8(self, data: bytes) -> str:
        """Incremental UTF-8 with U+FFFD per maximal ill-formed subsequence (the WHATWG decoder's output): the
        C codec directly, holding a cut-off character's bytes for the next read, as codecs' incremental
        decoder does, minus its Python-level wrapper call (a little cheaper for 1-byte reads)."""
        if self._pending:
            data = self._pending + data
        text, used = codecs.utf_8_decode(data, "replace", False)
        self._pending = data[used:]
        return text

    def _start(self, text: str) -> str:
        """The first characters of the stream: drop one leading BOM (the spec's UTF-8 decode does)."""
        if not text:
            return text
        self._started = True
        return text[1:] if text[0] == _BOM else text

    def _parse(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        # Line ends by str.find (memchr), each of LF and CR looked up again only once passed: linear, and
        # several times faster than a regex scan over a long line.
        pos, size = 0, len(text)
        lf, cr = text.find("\n"), text.find("\r")
        while lf >= 0 or cr >= 0:
            if cr < 0 or 0 <= lf < cr:
                end = lf
                pos_next = lf + 1
            else:
                end = cr
                pos_next = cr + 2 if cr + 1 < size and text[cr + 1] == "\n" else cr + 1
            line = text[pos:end]
            if self._parts:
                self._parts.append(line)
                line = "".join(self._parts)
                self._parts, self._line_bytes = [], 0
            pos = pos_next
            if 0 <= lf < pos:
                lf = text.find("\n", pos)
            if 0 <= cr < pos:
                cr = text.find("\r", pos)
            self._line_end(line, events)
        if pos < size:
            self._hold(text[pos:], events)
        elif text[-1] == "\r":
            self._skip_lf = True
        return events

    def _hold(self, rest: str, events: list[SSEEvent]) -> None:
        if not rest:
            return
        self._parts.append(rest)
        self._line_bytes += _utf8_len(rest)
        if self._data_bytes + self._line_bytes > self.max_event_bytes:
            self._too_large(self._data_bytes + self._line_bytes, events)

    def _line_end(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        size = self._data_bytes + _utf8_len(line)
        if size > self.max_event_bytes:
            self._too_large(size, events)
        if line[0] == ":":
            return
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_bytes += _utf8_len(value) + 1
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id_buffer = value
        elif name == "retry":
            retry = _retry_ms(value)
            if retry is not None:
                self._retry = self.reconnection_time = retry
        # any other field is ignored, as the spec says

    def _dispatch(self, events: list[SSEEvent]) -> None:
        self.last_event_id = self._id_buffer  # committed even by a block without data (the spec's step 1)
        if self._data:  # a block without a data line is not an event (an empty `data:` line is)
            events.append(SSEEvent(self._event or "message", "\n".join(self._data), self.last_event_id, self._retry))
        self._data, self._data_bytes, self._event, self._retry = [], 0, "", None

    def _too_large(self, size: int, events: list[SSEEvent]) -> None:
        raise SSEEventTooLarge(
            f"SSE event larger than max_event_bytes={self.max_event_bytes} (at least {size} bytes)", events
        )
