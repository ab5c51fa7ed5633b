"""The driver: gating an upstream, closing it on stop / consumer stop / upstream error, and the outcome."""

from __future__ import annotations

import asyncio
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sluicegate import Done, Guard, Pipeline, UsageMeter, adrive, drive
from sluicegate._driver import FALLBACK_NOTICE, NOTICE_SEPARATOR, Outcome, adrive_text, drive_text
from sluicegate._stream import Step
from sluicegate.scripted import ScriptedProvider
from sluicegate.testing import assert_chunk_invariant, chunkings, pieces_of
from tests.support import NOTICE, HoldUntilPeriod

CLEAN = "Revenue grew in 2018. Costs fell. Done."
BAD = ["Revenue grew", " in 2018", ". It", " fell in", " 2019", " sharply", ". Done", "."]


class Upstream:
    """A recording upstream: how many pieces it produced, whether it ran to the end, whether it was closed."""

    def __init__(self, pieces: list[str], fail_at: int | None = None) -> None:
        self.pieces = pieces
        self.fail_at = fail_at
        self.produced = 0
        self.exhausted = False
        self.closed = False

    def _check(self) -> None:
        if self.produced == self.fail_at:
            raise ConnectionError("provider went away")

    def __iter__(self):
        try:
            for piece in self.pieces:
                self._check()
                self.produced += 1
                yield piece
            self._check()
            self.exhausted = True
        finally:
            self.closed = True

    async def __aiter__(self):
        try:
            for piece in self.pieces:
                await asyncio.sleep(0)
                self._check()
                self.produced += 1
                yield piece
            self._check()
            self.exhausted = True
        finally:
            self.closed = True


def test_toy_filter_is_chunk_invariant() -> None:
    for text in (CLEAN, "".join(BAD), "One. 2019 two. Three", "a. . b. 2019"):
        assert_chunk_invariant(HoldUntilPeriod, text)
        assert_chunk_invariant(lambda: Pipeline(HoldUntilPeriod(), HoldUntilPeriod(("zzz",))), text, max_size=8)


# --- sync ---------------------------------------------------------------------------------------------------


def test_complete_stream_releases_everything_and_runs_upstream_to_the_end() -> None:
    up = Upstream(pieces_of(CLEAN, 3))
    out = Outcome()
    steps = list(drive(up, HoldUntilPeriod(), outcome=out))
    assert "".join(s.text for s in steps) == CLEAN
    assert all(s.text or s.events for s in steps)
    assert steps[-1].events == (Done("complete"),)
    assert (out.reason, out.released, out.error) == ("complete", CLEAN, None)
    assert up.exhausted and up.closed


def test_stop_closes_upstream_before_the_stop_is_handed_on() -> None:
    up = Upstream(BAD)
    out = Outcome()
    seen: list[tuple[Step, bool, int]] = []
    for step in drive(up, HoldUntilPeriod(), outcome=out):
        seen.append((step, up.closed, up.produced))
    stop_step, closed_then, produced_then = seen[-1]
    assert stop_step.stopped and closed_then
    # the stop is decided on ". Done" (piece #7): nothing past it was produced
    assert produced_then == 7 and up.produced == 7 and not up.exhausted
    released = "".join(s.text for s, _, _ in seen)
    assert released == "Revenue grew in 2018. " and "2019" not in released
    assert out.reason == "stopped" and out.stopped
    assert out.guard == Guard(("forbidden_word",), NOTICE)
    assert out.violations == ("2019",)
    assert out.usage is not None and out.usage.output_tokens == len("".join(BAD[:7]).encode())


def test_consumer_closing_early_closes_upstream_and_records_cancelled() -> None:
    up = Upstream(pieces_of(CLEAN, 2))
    out = Outcome()
    gen = drive(up, HoldUntilPeriod(), outcome=out)
    first = next(gen)
    assert first.text == "Revenue grew in 2018. " and not up.closed
    gen.close()
    assert up.closed and not up.exhausted
    assert out.reason == "cancelled"
    assert out.released == "Revenue grew in 2018. "
    assert out.usage is not None and out.usage.received_chars == up.produced * 2


def test_consumer_break_closes_upstream_when_the_driver_is_dropped() -> None:
    up = Upstream(pieces_of(CLEAN, 2))
    for _step in drive(up, HoldUntilPeriod()):
        break
    # CPython drops the generator at once; the driver's `finally` closes the upstream
    assert up.closed and not up.exhausted


def test_upstream_error_releases_validated_text_as_truncated_then_reraises() -> None:
    up = Upstream(pieces_of("First one. Second one. Third", 4), fail_at=6)
    out = Outcome()
    got: list[Step] = []
    with pytest.raises(ConnectionError):
        for step in drive(up, HoldUntilPeriod(), outcome=out):
            got.append(step)
    # 6 pieces of 4 = "First one. Second one. T": the held tail passes the filter at the truncating flush
    assert "".join(s.text for s in got) == "First one. Second one. T"
    assert got[-1].events[-1] == Done("truncated")
    assert out.reason == "truncated" and isinstance(out.error, ConnectionError)
    assert up.closed and up.produced == 6


def test_upstream_error_flush_goes_through_the_filter() -> None:
    # The tail held at the failure contains the forbidden word: the truncating flush must stop, not release.
    up = Upstream(["Fine. ", "It was 2019 when"], fail_at=2)
    out = Outcome()
    got: list[Step] = []
    with pytest.raises(ConnectionError):
        for step in drive(up, HoldUntilPeriod(), outcome=out):
            got.append(step)
    released = "".join(s.text for s in got)
    assert released == "Fine. " and "2019" not in released
    assert out.reason == "stopped" and isinstance(out.error, ConnectionError)


def test_filter_error_fails_closed_and_closes_upstream() -> None:
    up = Upstream(["Fine. ", "more"])
    out = Outcome()
    with pytest.raises(TypeError, match="str pieces"):
        list(drive(up, HoldUntilPeriod(), text_of=lambda item: item.encode(), outcome=out))
    assert up.closed and up.produced == 1
    assert out.reason == "cancelled" and isinstance(out.error, TypeError) and out.released == ""


def test_usage_of_reports_provider_figures() -> None:
    items = [("Fine. ", None), ("Done.", 7)]
    meter = UsageMeter()

    def usage_of(item: tuple[str, int | None], m: UsageMeter) -> None:
        if item[1] is not None:
            m.report(output_tokens=item[1], input_tokens=3)

    out = Outcome()
    list(drive(items, HoldUntilPeriod(), text_of=lambda i: i[0], usage_of=usage_of, meter=meter, outcome=out))
    assert out.usage is not None
    assert (out.usage.output_tokens, out.usage.input_tokens, out.usage.source) == (7, 3, "provider")
    assert out.usage.received_chars == len("Fine. Done.")


def test_drive_text_yields_notice_last_after_closing_and_calls_on_guard_first() -> None:
    up = Upstream(BAD)
    calls: list[tuple[bool, str | None]] = []
    out = Outcome()
    chunks: list[tuple[str, bool]] = []
    for text in drive_text(up, HoldUntilPeriod(), outcome=out, on_guard=lambda o: calls.append((up.closed, o.reason))):
        chunks.append((text, up.closed))
    assert [c for c, _ in chunks] == ["Revenue grew in 2018. ", NOTICE_SEPARATOR + NOTICE]
    assert chunks[-1][1] is True
    assert calls == [(True, "stopped")]


def test_drive_text_fallback_notice_when_filter_stops_without_guard() -> None:
    class Stopper:
        stopped = False

        def feed(self, piece: str) -> Step:
            self.stopped = True
            return Step("", True, (Done("stopped"),))

        def flush(self, *, truncated: bool = False) -> Step:
            return Step(stopped=self.stopped)

    assert list(drive_text(["x"], Stopper())) == [FALLBACK_NOTICE]
    assert list(drive_text(["x"], Stopper(), notice="[n]")) == ["[n]"]


def _reader_text(pieces: list[str]) -> str:
    return "".join(drive_text(Upstream(pieces), HoldUntilPeriod()))


@pytest.mark.parametrize("text", [CLEAN, "".join(BAD), "Ünïcödé 2018. 😀 ok. end"])
def test_drive_text_is_chunk_invariant(text: str) -> None:
    whole = _reader_text([text])
    for label, chunks in chunkings(text, max_size=10):
        assert _reader_text(chunks) == whole, label


@given(st.data())
def test_drive_text_is_chunk_invariant_hypothesis(data: st.DataObject) -> None:
    text = "".join(BAD) + " tail. more"
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    bounds = [0, *cuts, len(text)]
    chunks = [text[a:b] for a, b in pairwise(bounds)]
    assert _reader_text(chunks) == _reader_text([text])


# --- async --------------------------------------------------------------------------------------------------


async def test_async_complete() -> None:
    up = Upstream(pieces_of(CLEAN, 3))
    out = Outcome()
    steps = [s async for s in adrive(up, HoldUntilPeriod(), outcome=out)]
    assert "".join(s.text for s in steps) == CLEAN and out.reason == "complete"
    assert up.exhausted and up.closed


async def test_async_stop_closes_upstream_before_the_stop_is_handed_on() -> None:
    up = Upstream(BAD)
    out = Outcome()
    seen = [(s, up.closed) async for s in adrive(up, HoldUntilPeriod(), outcome=out)]
    assert seen[-1][0].stopped and seen[-1][1]
    assert up.produced == 7 and not up.exhausted
    assert "2019" not in "".join(s.text for s, _ in seen)
    assert out.reason == "stopped" and out.violations == ("2019",)


async def test_async_consumer_aclose_closes_upstream() -> None:
    up = Upstream(pieces_of(CLEAN, 2))
    out = Outcome()
    gen = adrive(up, HoldUntilPeriod(), outcome=out)
    await gen.__anext__()
    await gen.aclose()
    assert up.closed and not up.exhausted and out.reason == "cancelled"


async def test_async_task_cancel_closes_upstream() -> None:
    up = Upstream(pieces_of(CLEAN, 1))
    out = Outcome()
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in adrive(up, HoldUntilPeriod(), outcome=out):
            started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert up.closed and not up.exhausted and out.reason == "cancelled"


async def test_async_upstream_error_truncates_then_reraises() -> None:
    up = Upstream(["First one. ", "Second"], fail_at=2)
    out = Outcome()
    got: list[Step] = []
    with pytest.raises(ConnectionError):
        async for step in adrive(up, HoldUntilPeriod(), outcome=out):
            got.append(step)
    assert "".join(s.text for s in got) == "First one. Second"
    assert got[-1].events[-1] == Done("truncated")
    assert out.reason == "truncated" and up.closed


async def test_adrive_text_notice_last_and_async_on_guard() -> None:
    up = Upstream(BAD)
    calls: list[bool] = []

    async def on_guard(o: Outcome) -> None:
        calls.append(up.closed)

    chunks = [c async for c in adrive_text(up, HoldUntilPeriod(), on_guard=on_guard)]
    assert chunks == ["Revenue grew in 2018. ", NOTICE_SEPARATOR + NOTICE] and calls == [True]


async def test_adrive_text_matches_sync_for_every_chunking() -> None:
    text = "".join(BAD)
    whole = _reader_text([text])
    for label, chunks in chunkings(text, max_size=8, random_runs=5):
        got = "".join([c async for c in adrive_text(Upstream(chunks), HoldUntilPeriod())])
        assert got == whole, label


@pytest.mark.parametrize("bad", [b"hello ", None, 3])
def test_non_text_upstream_items_are_a_type_error_not_text(bad: object) -> None:
    """Review finding: bytes or None were turned into "b'hello '" / "None" and shown to the reader."""
    from sluicegate import Redactor
    from sluicegate._driver import drive_text

    with pytest.raises(TypeError, match="str"):
        list(drive_text(["hello ", bad, "world"], Redactor()))


async def test_adrive_is_cancelled_closes_the_upstream_and_bills_the_piece() -> None:
    """`is_cancelled` is asked as each item arrives: the reader left, so the item is billed, not fed."""
    provider = ScriptedProvider(["a ", "b ", "c ", "d "])
    asked: list[int] = []

    async def gone() -> bool:
        asked.append(provider.produced)
        return provider.produced == 2

    class Echo:
        stopped = False

        def feed(self, piece: str) -> Step:
            return Step(text=piece)

        def flush(self, *, truncated: bool = False) -> Step:
            return Step()

    out = Outcome()
    steps = [s async for s in adrive(provider.stream(), Echo(), outcome=out, is_cancelled=gone)]
    assert [s.text for s in steps] == ["a "]
    assert provider.closed and provider.produced == 2 and asked == [1, 2]
    assert out.reason == "cancelled" and out.usage is not None and out.usage.pieces == 2
