"""Shared pieces of the SSE tests: the demo's sources and answers, and reading frames back with our parser."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

from sluicegate import Pipeline, Redactor, SentenceGate, StreamFilter
from sluicegate.sse import SSEEvent, SSEParser

SOURCES = [
    "The Riverside Library opens at 9:00 on weekdays and at 10:00 on Saturdays.",
    "Late fees were abolished in 2021. Questions: desk@riverside.example.",
]
GROUNDED = (
    "The library opens at 9:00 on weekdays [S1]. On Saturdays it opens at 10:00 [S1]. "
    "Late fees were abolished in 2021 [S2]."
)
INVENTED = "The library opens at 9:00 on weekdays [S1]. Late fees were abolished in 2019 [S2]. So nothing is owed [S2]."
SPLIT_EMAIL = "You can write to jane.doe@example.com for help. The desk answers within a day."


def gate() -> Pipeline:
    return Pipeline(SentenceGate(SOURCES, language="en"), Redactor())


def parse_frames(chunks: Iterable[bytes]) -> list[SSEEvent]:
    parser = SSEParser()
    events = [e for c in chunks for e in parser.feed(c)]
    return events + parser.close()


async def collect(frames: AsyncIterable[bytes]) -> list[bytes]:
    return [f async for f in frames]


def payloads(events: list[SSEEvent]) -> list[tuple[str, Any]]:
    return [(e.event, json.loads(e.data)) for e in events]


def delta_text(events: list[SSEEvent]) -> str:
    return "".join(json.loads(e.data)["text"] for e in events if e.event == "delta")


class Eager:
    """An upstream that never suspends: every piece is ready at once, as when an SDK iterates events already in
    its buffer after a network burst. `pulled` counts the pieces taken so far; `closed` is set on close."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces
        self.pulled = 0
        self.closed = False

    async def stream(self) -> AsyncIterator[str]:
        try:
            for piece in self.pieces:
                self.pulled += 1
                yield piece
        finally:
            self.closed = True


def release_points(pieces: list[str], filt: StreamFilter) -> list[int]:
    """For each step with text that `filt` makes over `pieces`, the number of pieces it had seen then (the
    flush counts as after the last piece): where a writer that runs in step with the filter writes it."""
    points = [i + 1 for i, piece in enumerate(pieces) if filt.feed(piece).text]
    return points + ([len(pieces)] if filt.flush().text else [])
