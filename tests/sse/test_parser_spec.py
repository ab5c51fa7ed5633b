"""SSEParser against the spec's rules that a chunk-by-chunk reader gets wrong: when the last event ID is
committed, `retry` values no integer parser should see, invalid UTF-8, the event size bound, CR line ends.

Each rule is checked at every split position (and in 1-byte reads) as well as whole: the contract is that the
events, the last event ID and any error do not depend on where the bytes were cut."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.sse import SSEEvent, SSEEventTooLarge, SSEParser


def chunk_at(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(cuts), len(data)]
    return [data[a:b] for a, b in pairwise(bounds)]


def run(chunks: list[bytes], **kwargs: object) -> tuple[list[SSEEvent], str | None, str | None]:
    """(events, last_event_id after close, the error's class name or None): all of what a reader can see."""
    parser = SSEParser(**kwargs)  # type: ignore[arg-type]
    events: list[SSEEvent] = []
    try:
        for chunk in chunks:
            events += parser.feed(chunk)
        events += parser.close()
    except SSEEventTooLarge as exc:
        return events + exc.events, parser.last_event_id, type(exc).__name__
    return events, parser.last_event_id, None


def every_split(data: bytes, **kwargs: object) -> tuple[list[SSEEvent], str | None, str | None]:
    """The outcome of `data` whole, asserted equal at every single split and in 1-byte reads."""
    whole = run([data], **kwargs)
    for i in range(len(data) + 1):
        assert run([data[:i], data[i:]], **kwargs) == whole, f"split at byte {i}"
    assert run([data[i : i + 1] for i in range(len(data))], **kwargs) == whole, "1-byte reads"
    return whole


# a. the last event ID --------------------------------------------------------------------------------------


def test_an_id_in_a_block_cut_off_by_the_end_is_not_committed() -> None:
    events, last, _ = every_split(b"id: 1\ndata: a\n\nid: 2\ndata: b")
    assert events == [SSEEvent(data="a", id="1")]
    assert last == "1"  # a reconnecting client must ask for what follows 1, or it skips event 2


def test_the_id_is_committed_when_the_block_ends_not_when_the_line_is_read() -> None:
    parser = SSEParser()
    assert parser.feed(b"id: 7\ndata: x\n") == []
    assert parser.last_event_id is None
    assert parser.feed(b"\n") == [SSEEvent(data="x", id="7")]
    assert parser.last_event_id == "7"


def test_a_block_with_an_id_and_no_data_commits_the_id_without_an_event() -> None:
    assert every_split(b"id: 5\n\n") == ([], "5", None)  # the spec's dispatch step 1 comes before the data check
    assert every_split(b"id: 5\n\nid\n\n") == ([], "", None)  # an empty `id` resets it


def test_the_id_persists_across_events_and_nul_is_ignored() -> None:
    events, last, _ = every_split(b"id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\n")
    assert [e.id for e in events] == ["1", "1", "1"] and last == "1"


def test_a_seeded_last_event_id_is_carried_until_the_stream_sets_another() -> None:
    events, last, _ = every_split(b"data: a\n\nid: 9\ndata: b\n\n", last_event_id="8")
    assert [e.id for e in events] == ["8", "9"] and last == "9"
    assert SSEParser(last_event_id="8").last_event_id == "8"
    assert every_split(b"data: a", last_event_id="8") == ([], "8", None)


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\0b"])
def test_a_seed_no_stream_could_have_set_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="last_event_id"):
        SSEParser(last_event_id=bad)
    with pytest.raises(TypeError):
        SSEParser(last_event_id=3)  # type: ignore[arg-type]


# b. retry ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        b"9" * 5000,  # past Python's 4300-digit int() limit
        b"1" + b"0" * 19,  # past MAX_RETRY_MS
        b"99999999999999999999",
        b"1e3",
        b" 100",  # the one stripped space leaves " 100": not all digits
        b"-1",
        b"",
        "١٢٣".encode(),  # Arabic-Indic digits are digits to str.isdigit, not to the spec
        b"\xff",
    ],
)
def test_an_unusable_retry_is_ignored_and_the_rest_of_the_read_is_kept(value: bytes) -> None:
    data = b"retry: 2000\ndata: a\n\nretry: " + value + b"\ndata: b\n\ndata: c\n\n"
    events, _, error = every_split(data)
    assert error is None
    assert events == [SSEEvent(data="a", retry=2000), SSEEvent(data="b"), SSEEvent(data="c")]
    parser = SSEParser()
    parser.feed(data)
    assert parser.reconnection_time == 2000  # the last usable value stays in force


def test_usable_retry_values_with_leading_zeros_and_at_the_bound() -> None:
    events, _, _ = every_split(b"retry: 000\ndata: a\n\nretry: 0009223372036854775807\ndata: b\n\n")
    assert [e.retry for e in events] == [0, (1 << 63) - 1]


# c. invalid UTF-8 -------------------------------------------------------------------------------------------


def test_invalid_utf8_becomes_replacement_characters_whatever_the_cut() -> None:
    # the case: before, `feed(b"data: a\n\n\xff")` returned nothing, and the same bytes in two reads `a`
    assert every_split(b"data: a\n\n\xff") == ([SSEEvent(data="a")], None, None)
    events, _, _ = every_split(b"data: ok\n\ndata: bad \xff here\n\ndata: \xe2\x82\n\n")
    assert events == [SSEEvent(data="ok"), SSEEvent(data="bad \ufffd here"), SSEEvent(data="\ufffd")]


def test_a_character_cut_off_at_the_end_is_dropped_with_its_unterminated_line() -> None:
    data = "data: سلام\n\nدا".encode()[:-1]
    assert every_split(data) == ([SSEEvent(data="سلام")], None, None)


def test_replacement_follows_the_maximal_subpart_rule() -> None:
    # WHATWG's decoder (as Python's): one U+FFFD per maximal ill-formed subsequence, so a truncated 3-byte
    # sequence is one replacement and an encoded surrogate (ED A0 80) is three
    data = b"data: \xe2\x82X|\xed\xa0\x80|\xf0\x9f\x98|\xc0\xaf|\xf4\x90\x80\x80\n\n"
    (event,), _, _ = every_split(data)
    assert event.data == "\ufffdX|\ufffd\ufffd\ufffd|\ufffd|\ufffd\ufffd|\ufffd\ufffd\ufffd\ufffd"


# bytes that hit every branch of a UTF-8 decoder: ASCII, line ends, continuation bytes, each lead-byte range
UTF8_BYTES = st.sampled_from(
    [b"a", b"\n", b"\r", b":", b" ", b"\x80", b"\xbf", b"\xc2", b"\xc0", b"\xe0", b"\xed", b"\xa0", b"\xf0"]
    + [b"\xf4", b"\x90", b"\xff", b"\xef\xbb\xbf", "é".encode(), "😀".encode(), b"data:", b"id:"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(UTF8_BYTES, max_size=40).map(b"".join), st.lists(st.integers(0, 400), max_size=8))
def test_any_bytes_give_the_same_outcome_at_any_chunking(data: bytes, cuts: list[int]) -> None:
    whole = run([data])
    assert run(chunk_at(data, [c % (len(data) + 1) for c in cuts])) == whole
    assert run([data[i : i + 1] for i in range(len(data))]) == whole


@settings(max_examples=300, deadline=None)
@given(st.lists(UTF8_BYTES, max_size=40).map(b"".join))
def test_bytes_read_as_the_text_the_whole_stream_decodes_to(data: bytes) -> None:
    text = data.decode("utf-8", "replace")  # the oracle: one decode of the whole stream, U+FFFD per subpart
    text_parser = SSEParser()
    assert run([data]) == (text_parser.feed(text) + text_parser.close(), text_parser.last_event_id, None)


# d. max_event_bytes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "block",
    [
        b": " + b"c" * 3000 + b"\n\n",  # a comment line that arrives whole in one read
        b"event: " + b"e" * 3000 + b"\ndata: x\n\n",  # an event name
        b"id: " + b"i" * 3000 + b"\ndata: x\n\n",
        b"whatever: " + b"w" * 3000 + b"\n\n",  # an unknown field
        b"data: " + b"x" * 3000 + b"\n\n",
        b"data: x\n" * 600 + b"\n",  # many short data lines
        b"data: " + b"x" * 1000 + b"\n: " + b"c" * 100 + b"\n\n",  # a comment on top of the data
    ],
)
def test_the_bound_does_not_depend_on_read_sizes(block: bytes) -> None:
    data = b"data: first\n\n" + block + b"data: after\n\n"
    events, _, error = every_split(data, max_event_bytes=1024)
    assert error == "SSEEventTooLarge" and events == [SSEEvent(data="first")]
    for size in (1, 7, 64, 1000, 4096):
        assert run([data[i : i + size] for i in range(0, len(data), size)], max_event_bytes=1024) == (
            events,
            None,
            error,
        )


def test_a_large_line_passes_neither_whole_nor_in_pieces() -> None:
    line = b": " + b"c" * (1 << 20) + b"\n\ndata: after\n\n"  # the case, scaled to the default 1 MiB
    whole = run([line])
    assert whole[2] == "SSEEventTooLarge"
    assert run([line[i : i + 65536] for i in range(0, len(line), 65536)]) == whole


def test_the_bound_is_exact_and_counts_utf8_bytes() -> None:
    # data "é"*500 is 1000 bytes; the line "data: " + it is 1006: fits 1006, not 1005
    data = ("data: " + "é" * 500 + "\n\n").encode()
    assert every_split(data, max_event_bytes=1006)[2] is None
    assert every_split(data, max_event_bytes=1005)[2] == "SSEEventTooLarge"


def test_comments_between_events_do_not_add_up() -> None:
    data = (b": keep-alive\n\n" + b"data: x\n\n") * 200
    assert len(every_split(data, max_event_bytes=64)[0]) == 200


LINES = st.sampled_from([b"data: abc\n", b": cc\n", b"\n", b"event: e\n", b"data\r\n", b"x\r", "é".encode()])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(LINES).map(b"".join),
    st.integers(1, 40),
    st.lists(st.integers(0, 400), max_size=8),
)
def test_the_bound_gives_the_same_outcome_at_any_chunking(data: bytes, limit: int, cuts: list[int]) -> None:
    whole = run([data], max_event_bytes=limit)
    assert run(chunk_at(data, [c % (len(data) + 1) for c in cuts]), max_event_bytes=limit) == whole
    assert run([data[i : i + 1] for i in range(len(data))], max_event_bytes=limit) == whole


# f. CR line ends --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"data: a\r\r", b"data: a\r\n\r", b"data: a\n\r", b"\xef\xbb\xbfdata: a\r\r", b"data: a\rdata: b\r\r"],
)
def test_a_cr_terminated_event_is_dispatched_by_the_read_that_ends_it(data: bytes) -> None:
    for i in range(len(data) + 1):
        parser = SSEParser()
        seen = parser.feed(data[:i])
        seen += parser.feed(data[i:])
        assert seen and seen[-1].data in ("a", "a\nb"), f"split at {i}"  # no third read needed
        assert parser.feed(b"\n") == []  # the LF starting the next read belongs to the CR: not a blank line
        assert parser.feed(b"data: c\n\n") == [SSEEvent(data="c")]


def test_an_lf_that_starts_the_next_read_is_ignored_only_right_after_a_cr() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\n") == []  # CRLF across reads: one line end
    assert parser.feed(b"\n") == [SSEEvent(data="a")]  # a second LF is a blank line
