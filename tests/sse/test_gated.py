"""gated_events: real filters (gate + redactor) over a scripted provider, read back with the SSE parser."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import Outcome, Redactor, SentenceGate, Step
from sluicegate.scripted import ScriptedProvider
from sluicegate.sse import ERROR_MESSAGES, gated_events

from .support import GROUNDED, INVENTED, SOURCES, SPLIT_EMAIL, collect, delta_text, gate, parse_frames, payloads

USAGE_FIELDS = {"output_tokens", "input_tokens", "source", "received_chars", "received_bytes", "pieces"}


async def run(provider: ScriptedProvider, **kwargs: object) -> tuple[list[bytes], Outcome]:
    out = Outcome()
    frames = await collect(gated_events(provider.stream(), gate(), outcome=out, **kwargs))  # type: ignore[arg-type]
    return frames, out


async def test_grounded_answer_streams_sentence_deltas_then_one_done() -> None:
    provider = ScriptedProvider.of(GROUNDED, 5)
    frames, out = await run(provider)
    events = parse_frames(frames)
    assert [e.event for e in events][-1] == "done" and [e.event for e in events].count("done") == 1
    deltas = [json.loads(e.data)["text"] for e in events if e.event == "delta"]
    first = "The library opens at 9:00 on weekdays. "  # markers stripped; the redactor may hold a word's tail
    assert first.startswith(deltas[0]) and "".join(deltas).startswith(first)
    assert "".join(deltas) == "The library opens at 9:00 on weekdays. On Saturdays it opens at 10:00. " + (
        "Late fees were abolished in 2021."
    )
    assert len(deltas) >= 3
    done = json.loads(events[-1].data)
    assert done["reason"] == "complete" and set(done["usage"]) == USAGE_FIELDS
    assert done["usage"]["pieces"] == len(provider.pieces) and done["usage"]["received_chars"] == len(GROUNDED)
    assert provider.exhausted and provider.closed and out.reason == "complete"


async def test_invented_value_never_reaches_the_wire_and_the_upstream_is_closed() -> None:
    provider = ScriptedProvider.of(INVENTED, 4)
    frames, out = await run(provider)
    wire = b"".join(frames)
    assert b"2019" not in wire and b"nothing is owed" not in wire
    events = payloads(parse_frames(frames))
    names = [name for name, _ in events]
    assert set(names[:-2]) == {"delta"} and names[-2:] == ["guard", "done"]
    assert delta_text(parse_frames(frames)).strip() == "The library opens at 9:00 on weekdays."
    assert events[-2][1]["reasons"] == ["unsupported_value"] and events[-2][1]["notice"]
    assert events[-1][1]["reason"] == "stopped"
    assert provider.closed and not provider.exhausted
    assert provider.produced < len(provider.pieces)  # generation stopped at the stop
    assert events[-1][1]["usage"]["pieces"] == provider.produced  # what was generated is what is billed


async def test_split_email_is_redacted_before_the_wire() -> None:
    provider = ScriptedProvider(["You can write to jane.doe@exa", "mple.com for help. The desk answers within a day."])
    frames = await collect(gated_events(provider.stream(), Redactor()))
    assert b"jane.doe" not in b"".join(frames)
    assert (
        delta_text(parse_frames(frames)) == "You can write to <EMAIL_ADDRESS> for help. The desk answers within a day."
    )


async def test_provider_failure_after_first_byte_is_an_error_event_then_done_truncated() -> None:
    provider = ScriptedProvider.of(GROUNDED, 9, fail_at=7)
    frames, out = await run(provider)
    events = payloads(parse_frames(frames))
    names = [name for name, _ in events]
    assert names[-2:] == ["error", "done"] and names.count("error") == 1
    assert events[-2][1] == {"code": "upstream_error", "message": ERROR_MESSAGES["upstream_error"]}
    assert events[-1][1]["reason"] == "truncated"
    wire = b"".join(frames)
    assert b"Traceback" not in wire and b"connection reset" not in wire
    assert delta_text(parse_frames(frames)).strip() == "The library opens at 9:00 on weekdays."  # validated only
    assert isinstance(out.error, ConnectionError) and provider.closed


class Exploding:
    """A filter with a bug: it raises on its third piece."""

    def __init__(self) -> None:
        self.calls = 0
        self.stopped = False

    def feed(self, piece: str) -> Step:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("filter bug holding secret text")
        return Step(text=piece)

    def flush(self, *, truncated: bool = False) -> Step:
        return Step()


async def test_filter_failure_is_an_error_event_never_the_held_text() -> None:
    provider = ScriptedProvider(["one ", "two ", "three ", "four"])
    frames = await collect(gated_events(provider.stream(), Exploding()))
    events = payloads(parse_frames(frames))
    assert [n for n, _ in events] == ["delta", "delta", "error", "done"]
    assert events[2][1]["code"] == "filter_error"
    assert b"secret" not in b"".join(frames) and b"three" not in b"".join(frames)
    assert provider.closed and not provider.exhausted


async def test_ping_after_an_idle_interval_only() -> None:
    provider = ScriptedProvider(["The library opens at 9:00 on weekdays [S1]. ", "Bye [S1]."], delay=0.35)
    frames, _ = await run(provider, ping_interval=0.1)
    assert b": ping\n\n" in frames
    busy = ScriptedProvider.of(GROUNDED, 5, delay=0.001)
    frames, _ = await run(busy, ping_interval=5.0)
    assert b": ping\n\n" not in frames
    assert parse_frames(frames)[-1].event == "done"  # pings are comments: a reader never sees them


class Flag:
    """An `is_disconnected` the test flips, counting how often it was asked."""

    def __init__(self) -> None:
        self.gone = False
        self.asked = 0

    async def __call__(self) -> bool:
        self.asked += 1
        return self.gone


async def test_disconnect_seen_at_a_piece_closes_the_upstream_within_one_piece() -> None:
    flag = Flag()
    provider = ScriptedProvider.of(GROUNDED, 3, on_piece=lambda n: setattr(flag, "gone", flag.gone or n == 6))
    frames, out = await run(provider, is_disconnected=flag)
    assert provider.closed and not provider.exhausted and provider.produced == 6
    done = payloads(parse_frames(frames))[-1]
    assert done == ("done", {"reason": "cancelled", "usage": done[1]["usage"]})
    assert done[1]["usage"]["pieces"] == 6  # the piece that arrived after the reader left is still billed
    assert out.reason == "cancelled" and flag.asked == 6


async def test_disconnect_seen_at_a_ping_closes_an_idle_upstream() -> None:
    flag = Flag()
    provider = ScriptedProvider(["The library opens at 9:00 on weekdays [S1]. ", "never"], hold_at=1)
    stream = gated_events(provider.stream(), SentenceGate(SOURCES), ping_interval=0.05, is_disconnected=flag)
    frames = [await stream.__anext__(), await stream.__anext__()]  # a delta, then a ping while the provider idles
    assert frames[1] == b": ping\n\n" and not provider.closed
    flag.gone = True
    frames += [f async for f in stream]
    assert provider.closed and provider.produced == 1
    assert json.loads(parse_frames(frames)[-1].data)["reason"] == "cancelled"


async def test_consumer_closing_the_stream_closes_the_upstream() -> None:
    provider = ScriptedProvider.of(GROUNDED, 3, delay=0.001)
    out = Outcome()
    stream = gated_events(provider.stream(), gate(), outcome=out)
    assert (await stream.__anext__()).startswith(b"event: delta")
    await stream.aclose()
    assert provider.closed and not provider.exhausted and out.reason == "cancelled"
    assert out.usage is not None and out.usage.pieces == provider.produced


async def test_cancelling_the_writer_task_closes_the_upstream() -> None:
    """What a server does when it sees the client go: it cancels the task that writes the response."""
    provider = ScriptedProvider(["The library opens at 9:00 on weekdays [S1]. ", "x"], hold_at=1)
    out = Outcome()
    got: list[bytes] = []

    async def writer() -> None:
        async for frame in gated_events(provider.stream(), gate(), outcome=out, ping_interval=0.05):
            got.append(frame)

    task = asyncio.ensure_future(writer())
    while not got:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(provider.closed_event.wait(), 1.0)
    assert out.reason == "cancelled"


async def test_bad_ping_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="ping_interval"):
        await collect(gated_events(ScriptedProvider(["x"]).stream(), gate(), ping_interval=0))


async def _frames_for(pieces: list[str]) -> tuple[str, list[tuple[str, object]]]:
    frames = await collect(gated_events(ScriptedProvider(pieces).stream(), gate()))
    events = parse_frames(frames)
    others = [(n, p if n != "done" else p["reason"]) for n, p in payloads(events) if n != "delta"]
    return delta_text(events), others


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([GROUNDED, INVENTED, SPLIT_EMAIL]), st.lists(st.integers(0, 200), max_size=10))
def test_frames_are_chunk_invariant(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert asyncio.run(_frames_for(pieces)) == asyncio.run(_frames_for([text]))


async def aiter_of(items: list[str]) -> AsyncIterator[str]:
    for item in items:
        yield item


async def test_an_async_on_closed_hook_that_awaits_runs_to_its_end_on_a_complete_stream() -> None:
    """`on_closed` is where a spend cap is settled or usage written: an async hook awaits real I/O (a thread, a
    socket), and the writer must not cancel it once the stream has ended normally."""
    finished: list[str] = []

    async def on_closed(outcome: Outcome) -> None:
        await asyncio.to_thread(lambda: None)  # any real await: a settle in a worker thread
        await asyncio.sleep(0)
        finished.append(outcome.reason or "")

    frames, out = await run(ScriptedProvider.of(GROUNDED, 5), on_closed=on_closed)
    assert parse_frames(frames)[-1].event == "done" and out.reason == "complete"
    assert finished == ["complete"]
