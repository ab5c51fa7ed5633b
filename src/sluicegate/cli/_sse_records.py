"""`--format sse`: a record carries the SSE bytes it was recorded with, read by read; we re-parse them with
`sluicegate.sse.SSEParser` and take the answer's text pieces in their recorded chunking (one per text event).

Why from the bytes: a capture keeps what the answer text loses — where the provider cut its events, and whether
the stream ended with its terminal event. A stream without one (or ended for `max_tokens`/`length`, or with an
`error` event) was cut short by the provider, and is replayed as a truncation, not judged as a finished answer.

Dialects read (the text events and the terminal event of each):
- OpenAI Chat Completions: `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}` … a
  `finish_reason`, or `data: [DONE]`;
- OpenAI Responses: `event: response.output_text.delta` `{"delta":…}` … `response.completed`;
- Anthropic Messages: `event: content_block_delta` `{"delta":{"type":"text_delta","text":…}}` … `message_stop`;
- sluicegate's own frames: `event: delta` `{"text":…}` … `event: done` `{"reason":…}`;
- plain: `data: <text>` lines, ended by `data: [DONE]`.
Anything else (pings, `message_start`, tool-call deltas) carries no answer text and is skipped.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from ..sse import SSEParser
from ._records import RecordError

# Ends of stream that mean "the model was cut off", although the provider ended the stream properly.
_CUT_FINISH = {"length", "max_tokens", "max_output_tokens", "content_filter"}


def _reads(obj: Mapping[str, Any]) -> list[bytes]:
    if "sse" in obj:
        value = obj["sse"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RecordError("'sse' must be a list of strings (the recorded reads)")
        return [v.encode("utf-8") for v in value]
    if "sse_b64" in obj:
        value = obj["sse_b64"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RecordError("'sse_b64' must be a list of base64 strings (the recorded reads)")
        try:
            return [base64.b64decode(v, validate=True) for v in value]
        except (binascii.Error, ValueError):
            raise RecordError("'sse_b64' holds a read that is not valid base64") from None
    raise RecordError("missing field 'sse' (or 'sse_b64'): the recorded SSE reads")


class _Reader:
    """Turns SSE events into answer text pieces and notices how the stream ended."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.ended = False  # a terminal event was seen
        self.cut = False  # the stream says the answer was cut off

    def take(self, event: str, data: str) -> None:
        if self.ended:
            return
        if data == "[DONE]":
            self.ended = True
            return
        try:
            payload: Any = json.loads(data)
        except ValueError:
            payload = None
        except RecursionError:  # nesting deeper than the stack: not a provider event, and not to be guessed at
            raise RecordError("the recorded SSE stream cannot be parsed: an event's JSON nests too deep") from None
        if not isinstance(payload, dict):
            if event == "message":  # a plain text stream: the data is the text
                self.pieces.append(data)
            elif event == "error":
                self.ended = self.cut = True
            return
        self._json(event, payload)

    def _json(self, event: str, p: dict[str, Any]) -> None:
        if event in ("error", "response.failed"):
            self.ended = self.cut = True
        elif "choices" in p:  # OpenAI Chat Completions: the first choice is the answer (n > 1 is not replayed)
            choices = p["choices"] if isinstance(p["choices"], list) else []
            for choice in choices:
                if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                    continue
                delta = choice.get("delta")
                text = delta.get("content") if isinstance(delta, dict) else None
                if isinstance(text, str):
                    self.pieces.append(text)
                finish = choice.get("finish_reason")
                if finish is not None:  # the answer is over (a usage chunk or [DONE] may follow)
                    self.ended = True
                    self.cut = finish in _CUT_FINISH
        elif event == "response.output_text.delta" and isinstance(p.get("delta"), str):
            self.pieces.append(p["delta"])
        elif event in ("response.completed", "response.incomplete"):
            self.ended = True
            self.cut = event == "response.incomplete"
        elif event == "content_block_delta":
            delta = p.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                self.pieces.append(delta["text"])
        elif event == "message_delta":
            delta = p.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason") in _CUT_FINISH:
                self.cut = True
        elif event == "message_stop":
            self.ended = True
        elif event == "delta" and isinstance(p.get("text"), str):
            self.pieces.append(p["text"])
        elif event == "done":
            self.ended = True
            self.cut = p.get("reason") in ("truncated", "cancelled")


def extract_sse(obj: Mapping[str, Any]) -> tuple[list[str], bool]:
    """(text pieces in recorded order, cut short by the provider?) for one `--format sse` record."""
    reads = _reads(obj)
    parser = SSEParser()
    reader = _Reader()
    try:
        for read in reads:
            for ev in parser.feed(read):
                reader.take(ev.event, ev.data)
        for ev in parser.close():
            reader.take(ev.event, ev.data)
    except ValueError as exc:  # an oversized event (SSEEventTooLarge); invalid UTF-8 reads as U+FFFD
        raise RecordError(f"the recorded SSE stream cannot be parsed: {exc}") from None
    return reader.pieces, reader.cut or not reader.ended
