"""A sans-I/O Server-Sent Events parser that gives the same events for every way the bytes are cut.

Why our own: the two reference Python parsers (httpx-sse, and the OpenAI SDK's decoder copied from it) dispatch
a block that has no `data` line (`event: ping` arrives as an event with `data=""`), hold a CR-terminated event
until the next read arrives, and buffer without bound; the OpenAI one also misses a mixed `\\n\\r\\n` blank line.
This one follows the WHATWG rules: a buffer across reads (a chunk is not a message), dispatch on a blank line,
comments ignored, `data` lines joined with `\\n`, CRLF/LF/CR line ends (a CR ends its line at once; an LF that
follows it, even in the next read, is swallowed), one space stripped after the colon, a leading BOM dropped,
`retry` only when all digits, an `id` with NUL ignored. Bytes go through the streaming `Utf8Decoder`, so a
character split across reads stays whole and invalid UTF-8 is an error. Memory is bounded by `max_event_bytes`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..decode import Utf8Decoder

DEFAULT_MAX_EVENT_BYTES = 1 << 20  # 1 MiB: far above any answer's frame, far below a memory problem

_EOL = re.compile(r"\r\n|\r|\n")
_DIGITS = re.compile(r"[0-9]+")
_BOM = "\ufeff"


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event. `id` is the last event ID in force (it persists across events, as in the spec)."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


class SSEEventTooLarge(ValueError):
    """One event (or one unterminated line) grew past `max_event_bytes`. `events` holds what the same `feed`
    call had already dispatched, so nothing that arrived whole before the oversized event is lost."""

    def __init__(self, message: str, events: list[SSEEvent]) -> None:
        super().__init__(message)
        self.events = events


class SSEParser:
    """`feed(bytes | str) -> list[SSEEvent]`, `close() -> list[SSEEvent]`.

    Feed either bytes (decoded as UTF-8, strictly) or already-decoded text, not a mix. After an error the parser
    is unusable (every call raises): a stream that went wrong once is not trusted to be back in step.
    """

    def __init__(self, *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if max_event_bytes < 1:
            raise ValueError("max_event_bytes must be >= 1")
        self.max_event_bytes = max_event_bytes
        self._decoder = Utf8Decoder()
        self._mode: type | None = None  # bytes or str, fixed by the first feed
        self._started = False  # a first character was seen (the BOM check is done)
        self._line = ""  # the unterminated line carried across reads
        self._line_bytes = 0
        self._skip_lf = False  # the last read ended on CR: an LF starting the next one belongs to it
        self._data: list[str] = []
        self._data_bytes = 0
        self._event = ""
        self._retry: int | None = None
        self._failed: str | None = None
        self._closed = False
        self.last_event_id: str | None = None
        self.reconnection_time: int | None = None  # the last valid `retry`, in ms (whether or not dispatched)

    def feed(self, data: bytes | bytearray | memoryview | str) -> list[SSEEvent]:
        """Parse one read; return the events it completed (possibly none)."""
        self._check_usable()
        text = self._decode(data)
        try:
            return self._parse(text)
        except SSEEventTooLarge as exc:
            self._failed = str(exc)
            raise

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated block is discarded (the spec's rule); a cut-off character is an error."""
        self._check_usable()
        self._closed = True
        if self._mode is bytes:
            try:
                self._decoder.flush()
            except ValueError as exc:
                self._failed = str(exc)
                raise
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
        if self._mode is None:
            self._mode = mode
        elif self._mode is not mode:
            raise TypeError("SSEParser.feed: do not mix bytes and str in one stream")
        if isinstance(data, str):
            text = data
        else:
            try:
                text = self._decoder.feed(bytes(data))
            except ValueError as exc:
                self._failed = str(exc)
                raise
        if not self._started and text:
            self._started = True
            if text.startswith(_BOM):
                text = text[1:]
        return text

    def _parse(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if self._skip_lf and text:
            self._skip_lf = False
            if text.startswith("\n"):
                text = text[1:]
        pos = 0
        for match in _EOL.finditer(text):
            line = text[pos : match.start()]
            if self._line:
                line = self._line + line
                self._line, self._line_bytes = "", 0
            pos = match.end()
            self._line_end(line, events)
        rest = text[pos:]
        if rest:
            self._line += rest
            self._line_bytes += _utf8_len(rest)
            self._check_size(events)
        elif text.endswith("\r"):
            self._skip_lf = True
        return events

    def _line_end(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line.startswith(":"):
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_bytes += _utf8_len(value) + 1
            self._check_size(events)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_event_id = value
        elif name == "retry" and _DIGITS.fullmatch(value):
            self._retry = self.reconnection_time = int(value)
        # any other field is ignored, as the spec says

    def _dispatch(self, events: list[SSEEvent]) -> None:
        if self._data:  # a block without a data line is not an event (an empty `data:` line is)
            events.append(SSEEvent(self._event or "message", "\n".join(self._data), self.last_event_id, self._retry))
        self._data, self._data_bytes, self._event, self._retry = [], 0, "", None

    def _check_size(self, events: list[SSEEvent]) -> None:
        size = self._data_bytes + self._line_bytes
        if size > self.max_event_bytes:
            raise SSEEventTooLarge(
                f"SSE event larger than max_event_bytes={self.max_event_bytes} (at least {size} bytes buffered)",
                events,
            )


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
