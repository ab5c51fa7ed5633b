"""SSEParser: the WHATWG rules, and the same events for every way the bytes are cut."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sluicegate.sse import SSEEvent, SSEEventTooLarge, SSEParser

from .fixtures import FIXTURES

NAMES = sorted(FIXTURES)


def parse(chunks: list[bytes] | list[str], **kwargs: int) -> list[SSEEvent]:
    parser = SSEParser(**kwargs)
    events = [e for chunk in chunks for e in parser.feed(chunk)]
    return events + parser.close()


def chunk_at(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(cuts), len(data)]
    return [data[a:b] for a, b in pairwise(bounds)]


@pytest.mark.parametrize("name", NAMES)
def test_whole_stream_gives_the_fixture_events(name: str) -> None:
    data, expected = FIXTURES[name]
    assert parse([data]) == expected


@pytest.mark.parametrize("name", NAMES)
def test_every_single_split_gives_the_same_events(name: str) -> None:
    data, expected = FIXTURES[name]
    for i in range(len(data) + 1):
        assert parse([data[:i], data[i:]]) == expected, f"split at byte {i}"


@pytest.mark.parametrize("name", NAMES)
def test_every_pair_of_splits_and_one_byte_reads(name: str) -> None:
    data, expected = FIXTURES[name]
    assert parse([data[i : i + 1] for i in range(len(data))]) == expected
    for i in range(len(data) + 1):
        for j in range(i, len(data) + 1, 3):
            assert parse(chunk_at(data, [i, j])) == expected, f"splits at {i}, {j}"


@pytest.mark.parametrize("name", NAMES)
def test_random_chunkings_and_empty_reads(name: str) -> None:
    data, expected = FIXTURES[name]
    rng = random.Random(name)
    for _ in range(200):
        cuts = [rng.randint(0, len(data)) for _ in range(rng.randint(0, 8))]
        assert parse(chunk_at(data, cuts)) == expected


@given(st.sampled_from(NAMES), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_hypothesis_chunkings(name: str, cuts: list[int]) -> None:
    data, expected = FIXTURES[name]
    assert parse(chunk_at(data, [c % (len(data) + 1) for c in cuts])) == expected


@pytest.mark.parametrize("name", NAMES)
def test_text_input_gives_the_same_events(name: str) -> None:
    data, expected = FIXTURES[name]
    text = data.decode("utf-8")
    for i in range(len(text) + 1):
        assert parse([text[:i], text[i:]]) == expected


def test_cr_terminated_event_is_dispatched_without_waiting_for_the_next_read() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\r\r") == [SSEEvent(data="a")]  # httpx-sse holds this back
    assert parser.feed(b"\ndata: b\r\n") == []  # that LF belonged to the CR: no extra blank line, no dispatch
    assert parser.feed(b"\r\n") == [SSEEvent(data="b")]


def test_lf_after_cr_swallowed_even_after_empty_reads() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"") == []
    assert parser.feed(b"\n\n") == [SSEEvent(data="a")]


def test_events_come_out_as_soon_as_their_blank_line_arrives() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: one\n") == []
    assert parser.feed(b"\ndata: tw") == [SSEEvent(data="one")]
    assert parser.feed(b"o\n\n") == [SSEEvent(data="two")]


def test_retry_sets_reconnection_time_even_without_data() -> None:
    parser = SSEParser()
    assert parser.feed(b"retry: 3000\n\n") == []
    assert parser.reconnection_time == 3000
    parser.feed(b"retry: 1e3\n\n")
    assert parser.reconnection_time == 3000


def test_close_discards_an_unterminated_block_and_then_refuses_feeds() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: half") == []
    assert parser.close() == []
    with pytest.raises(ValueError, match="closed"):
        parser.feed(b"\n\n")


@pytest.mark.parametrize(
    "payload",
    [
        b"data: " + b"x" * 2000 + b"\n\n",  # one long data line
        b"data: x\n" * 600 + b"\n",  # many short data lines in one event
        b": " + b"c" * 2000,  # an endless comment line, never terminated
    ],
)
def test_bounded_buffer_gives_a_clear_error_at_every_split(payload: bytes) -> None:
    data = b"data: first\n\n" + payload
    for i in range(0, len(data) + 1, 7):
        parser = SSEParser(max_event_bytes=1024)
        seen: list[SSEEvent] = []
        with pytest.raises(SSEEventTooLarge, match="max_event_bytes=1024") as info:
            for chunk in (data[:i], data[i:]):
                seen += parser.feed(chunk)
        seen += info.value.events  # what the failing call had already completed is handed over, not lost
        assert seen == [SSEEvent(data="first")]


def test_events_within_the_bound_pass() -> None:
    body = "é" * 500  # 1000 bytes of data, plus the joining newline counted per line
    assert parse([f"data: {body}\n\n".encode()], max_event_bytes=1024) == [SSEEvent(data=body)]


def test_mixing_bytes_and_str_is_refused() -> None:
    parser = SSEParser()
    parser.feed(b"data: a")
    with pytest.raises(TypeError, match="mix"):
        parser.feed("\n\n")
    with pytest.raises(TypeError, match="bytes or str"):
        SSEParser().feed(None)  # type: ignore[arg-type]


def test_event_is_frozen() -> None:
    event = SSEEvent(data="x")
    with pytest.raises(AttributeError):
        event.data = "y"  # type: ignore[misc]
