"""gated_events in step with its reader: an upstream that never suspends must not let the pump run ahead.

The upstream here yields every piece without awaiting anything (an SDK iterating events already in its buffer),
so nothing but gated_events' own pacing stops the pump from pulling the whole answer before the writer runs.
Each test measures, for every written frame, how many upstream pieces had been pulled then, and compares it
with where the filter made that step (the same filter driven piece by piece, by hand)."""

from __future__ import annotations

import asyncio
import json

import pytest

from sluicegate import Outcome, SentenceGate, Step
from sluicegate.sse import DEFAULT_MAX_EVENT_BYTES, SSEParser, gated_events

from .support import GROUNDED, SOURCES, Eager, gate, parse_frames, release_points

TEXT = " ".join([GROUNDED] * 4)
PIECES = [TEXT[i : i + 3] for i in range(0, len(TEXT), 3)]


async def pulled_at_each_delta(eager: Eager, filt: object, **kwargs: object) -> list[int]:
    seen = []
    async for frame in gated_events(eager.stream(), filt, **kwargs):  # type: ignore[arg-type]
        if frame.startswith(b"event: delta"):
            seen.append(eager.pulled)
    return seen


@pytest.mark.parametrize("make", [lambda: SentenceGate(SOURCES), gate], ids=["gate", "gate+redactor"])
async def test_each_step_is_written_before_the_next_piece_is_pulled(make: object) -> None:
    expected = release_points(PIECES, make())  # type: ignore[operator]
    eager = Eager(PIECES)
    seen = await pulled_at_each_delta(eager, make())  # type: ignore[operator]
    assert len(expected) >= 8  # enough steps that a queue of 8 would have shown
    assert seen == expected  # each frame is written when the piece that made its step was the last pulled


async def test_the_first_sentence_reaches_the_reader_when_it_is_releasable() -> None:
    """The issue's measurement: a first sentence releasable after 9 pieces reached the client after 73."""
    pieces = [GROUNDED[i : i + 5] for i in range(0, len(GROUNDED), 5)] * 6
    first = release_points(pieces, SentenceGate(SOURCES))[0]
    eager = Eager(pieces)
    stream = gated_events(eager.stream(), SentenceGate(SOURCES))
    frame = await stream.__anext__()
    assert frame.startswith(b"event: delta") and eager.pulled == first
    await stream.aclose()


class Flag:
    def __init__(self) -> None:
        self.gone = False

    async def __call__(self) -> bool:
        return self.gone


async def test_after_a_disconnect_seen_by_is_disconnected_at_most_one_more_piece_is_pulled() -> None:
    for k in range(1, 6):
        eager, flag, out = Eager(PIECES), Flag(), Outcome()
        deltas, pulled_then = 0, 0
        async for frame in gated_events(eager.stream(), SentenceGate(SOURCES), is_disconnected=flag, outcome=out):
            if frame.startswith(b"event: delta"):
                deltas += 1
                if deltas == k:
                    flag.gone, pulled_then = True, eager.pulled
        assert eager.closed and out.reason == "cancelled"
        assert eager.pulled - pulled_then <= 1, (k, pulled_then, eager.pulled)


async def test_after_the_reader_closes_the_stream_at_most_one_more_piece_is_pulled() -> None:
    for k in range(1, 6):
        eager, out = Eager(PIECES), Outcome()
        stream = gated_events(eager.stream(), SentenceGate(SOURCES), outcome=out)
        deltas = 0
        while deltas < k:
            deltas += (await stream.__anext__()).startswith(b"event: delta")
        pulled_then = eager.pulled
        await stream.aclose()
        assert eager.closed and out.reason == "cancelled"
        assert eager.pulled - pulled_then <= 1, (k, pulled_then, eager.pulled)


async def test_after_the_writer_task_is_cancelled_at_most_one_more_piece_is_pulled() -> None:
    eager, out = Eager(PIECES), Outcome()
    pulled: list[int] = []
    gone = asyncio.Event()

    async def writer() -> None:
        async for frame in gated_events(eager.stream(), SentenceGate(SOURCES), outcome=out):
            if frame.startswith(b"event: delta"):
                pulled.append(eager.pulled)
                if len(pulled) == 2:
                    gone.set()
                    await asyncio.Event().wait()  # the server's send, blocked until the task is cancelled

    task = asyncio.ensure_future(writer())
    await gone.wait()
    for _ in range(10):
        await asyncio.sleep(0)  # while the send is held up the pump may make one more step, and then waits
    pulled_when_gone = eager.pulled
    assert pulled_when_gone == release_points(PIECES, SentenceGate(SOURCES))[2]  # the next step made, no more
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(10):
        await asyncio.sleep(0)
    assert eager.closed and out.reason == "cancelled"
    assert eager.pulled - pulled_when_gone <= 1


class Releasing:
    """A filter that releases each piece as it comes (the writer's side sees one step per piece)."""

    stopped = False

    def feed(self, piece: str) -> Step:
        return Step(text=piece)

    def flush(self, *, truncated: bool = False) -> Step:
        return Step()


async def test_one_step_per_piece_is_written_piece_by_piece() -> None:
    eager = Eager([f"{i} " for i in range(200)])
    assert await pulled_at_each_delta(eager, Releasing()) == list(range(1, 201))


async def test_a_step_too_large_for_one_frame_goes_out_as_several_deltas_a_reader_accepts() -> None:
    text = "x\0" * DEFAULT_MAX_EVENT_BYTES  # 2 Mi characters, and every NUL is 6 bytes of JSON
    frames = [f async for f in gated_events(Eager([text]).stream(), Releasing())]
    assert all(len(f) <= DEFAULT_MAX_EVENT_BYTES for f in frames)
    parser = SSEParser()  # the default limit
    events = [e for f in frames for e in parser.feed(f)]
    assert "".join(json.loads(e.data)["text"] for e in events if e.event == "delta") == text
    assert parse_frames(frames)[-1].event == "done"
