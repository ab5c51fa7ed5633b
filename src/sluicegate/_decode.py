"""Bytes to text for byte-oriented transports: a character split across chunks is kept whole.

Providers and SSE relays hand out bytes cut anywhere, including inside a multi-byte character. Decoding each
chunk on its own turns a split Persian or Chinese character into replacement characters (or raises); the
incremental decoder holds the incomplete tail until the rest arrives.
"""

from __future__ import annotations

import codecs

from ._errors import SluicegateError


class InvalidUtf8Error(SluicegateError, ValueError):
    """The byte stream is not valid UTF-8. Raised instead of guessing, so no text is silently altered."""


class Utf8Decoder:
    """Incremental strict UTF-8 decoder: `feed(bytes) -> str`, `flush() -> str`."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._offset = 0

    def feed(self, data: bytes) -> str:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Utf8Decoder.feed takes bytes, got {type(data).__name__}")
        return self._decode(bytes(data), final=False)

    def flush(self) -> str:
        """End of stream: an incomplete character left over is an error, never dropped silently."""
        return self._decode(b"", final=True)

    def _decode(self, data: bytes, *, final: bool) -> str:
        try:
            text = self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            raise InvalidUtf8Error(
                f"invalid UTF-8 at byte {self._offset + exc.start} of the stream: {exc.reason}"
            ) from None
        self._offset += len(data)
        return text
