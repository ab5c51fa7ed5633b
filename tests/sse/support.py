"""Shared pieces of the SSE tests: the demo's sources and answers, and reading frames back with our parser."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Iterable
from typing import Any

from sluicegate import Pipeline, Redactor, SentenceGate
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
