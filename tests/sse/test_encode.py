"""encode_event: frames the parser reads back exactly, and no way to inject a field through data or a name."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sluicegate.sse import SSE_HEADERS, SSEEvent, SSEParser, encode_comment, encode_event


def roundtrip(frame: bytes) -> list[SSEEvent]:
    parser = SSEParser()
    return parser.feed(frame) + parser.close()


def test_mapping_is_compact_json_in_one_data_line() -> None:
    frame = encode_event("delta", {"text": "Line one.\nLine two — سلام"})
    assert frame == 'event: delta\ndata: {"text":"Line one.\\nLine two — سلام"}\n\n'.encode()
    (event,) = roundtrip(frame)
    assert event.event == "delta" and json.loads(event.data) == {"text": "Line one.\nLine two — سلام"}


@pytest.mark.parametrize(
    "data",
    ["a\nid: 666", "a\r\n\r\nevent: done\ndata: forged", "x\rretry: 1", "\n\n", "data: nested", ""],
)
def test_newlines_in_string_data_cannot_inject_fields(data: str) -> None:
    events = roundtrip(encode_event("delta", data))
    assert len(events) == 1
    assert events[0].event == "delta" and events[0].id is None and events[0].retry is None
    assert events[0].data == data.replace("\r\n", "\n").replace("\r", "\n")


@pytest.mark.parametrize("name", ["delta\nevent: done", "a\rb", "x\r\n", "a\0b"])
def test_line_ends_in_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="must not contain"):
        encode_event(name, "x")
    with pytest.raises(ValueError, match="must not contain"):
        encode_event("delta", "x", id=name)


def test_empty_name_and_bad_data_types_are_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        encode_event("", "x")
    with pytest.raises(TypeError):
        encode_event("delta", 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        encode_event("delta", {"x": float("nan")})  # not JSON


def test_id_field_round_trips() -> None:
    assert roundtrip(encode_event("delta", "x", id="42")) == [SSEEvent("delta", "x", "42")]


def test_comment_is_ignored_by_readers() -> None:
    assert encode_comment("ping") == b": ping\n\n"
    assert roundtrip(encode_comment("ping") + encode_event("done", "{}")) == [SSEEvent("done", "{}")]
    with pytest.raises(ValueError):
        encode_comment("a\nb")


def test_headers_preset() -> None:
    assert dict(SSE_HEADERS) == {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-store, no-transform",
        "X-Accel-Buffering": "no",
    }
    with pytest.raises(TypeError):
        SSE_HEADERS["X"] = "y"  # type: ignore[index]


names = st.text(st.characters(blacklist_characters="\r\n\0", blacklist_categories=("Cs",)), min_size=1)
texts = st.text(st.characters(blacklist_categories=("Cs",)))


@given(st.lists(st.tuples(names, texts), max_size=5), st.lists(st.integers(min_value=0), max_size=6))
def test_any_sequence_of_frames_parses_back_at_any_chunking(frames: list[tuple[str, str]], cuts: list[int]) -> None:
    stream = b"".join(encode_event(n, d) for n, d in frames)
    bounds = [0, *sorted(c % (len(stream) + 1) for c in cuts), len(stream)]
    parser = SSEParser()
    events = [e for a, b in pairwise(bounds) for e in parser.feed(stream[a:b])] + parser.close()
    assert [(e.event, e.data) for e in events] == [(n, d.replace("\r\n", "\n").replace("\r", "\n")) for n, d in frames]


def test_any_mapping_is_json_including_nested_read_only_ones() -> None:
    from types import MappingProxyType

    frame = encode_event("delta", MappingProxyType({"text": "a", "meta": MappingProxyType({"n": 1})}))
    (event,) = roundtrip(frame)
    assert json.loads(event.data) == {"text": "a", "meta": {"n": 1}}
    with pytest.raises(TypeError):
        encode_event("delta", {"x": object()})  # still not JSON


def test_a_frame_the_default_parser_would_refuse_is_never_written() -> None:
    from sluicegate.sse import DEFAULT_MAX_EVENT_BYTES, SSEEventTooLarge

    overhead = len(encode_event("delta", ""))
    fits = encode_event("delta", "x" * (DEFAULT_MAX_EVENT_BYTES - overhead))
    assert len(fits) == DEFAULT_MAX_EVENT_BYTES
    assert roundtrip(fits)[0].data == "x" * (DEFAULT_MAX_EVENT_BYTES - overhead)
    with pytest.raises(ValueError, match="max_event_bytes"):
        encode_event("delta", "x" * (DEFAULT_MAX_EVENT_BYTES - overhead + 1))
    with pytest.raises(ValueError, match="max_event_bytes"):
        encode_event("delta", {"text": "\0" * (DEFAULT_MAX_EVENT_BYTES // 6)})  # JSON escapes count
    # and what the parser refuses at its default limit, the encoder refuses too (the same constant)
    with pytest.raises(SSEEventTooLarge):
        SSEParser().feed(b"data: " + b"x" * DEFAULT_MAX_EVENT_BYTES + b"\n\n")


@given(
    st.lists(st.text(st.sampled_from("ab\né\r"), max_size=12), min_size=1, max_size=4),
    st.one_of(st.none(), st.text(st.sampled_from("i7"), max_size=6)),
    st.integers(8, 80),
)
def test_the_encoder_and_the_parser_share_one_limit(datas: list[str], id: str | None, limit: int) -> None:
    """Whatever fits the encoder's `max_event_bytes` is read back by a parser with the same limit."""
    for data in datas:
        try:
            frame = encode_event("e", data, id=id, max_event_bytes=limit)
        except ValueError:
            continue
        assert len(frame) <= limit
        parser = SSEParser(max_event_bytes=limit)
        (event,) = parser.feed(frame)
        assert event.data == data.replace("\r\n", "\n").replace("\r", "\n")


def _httpx_sse_events(stream: bytes) -> list[tuple[str, str, str]]:
    """httpx-sse's decoders (the OpenAI SDK's copy reads the same way) on our bytes."""
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    lines, decoder = SSELineDecoder(), SSEDecoder()
    found = [*lines.decode(stream.decode("utf-8")), *lines.flush()]
    return [(e.event, e.data, e.id) for e in (decoder.decode(line) for line in found) if e is not None]


@given(st.lists(st.tuples(names, texts, st.one_of(st.none(), names)), max_size=5))
def test_our_frames_read_back_exactly_in_httpx_sse(frames: list[tuple[str, str, str | None]]) -> None:
    stream = b"".join(encode_event(n, d, id=i) for n, d, i in frames)
    expected, last = [], ""
    for n, d, i in frames:
        last = i if i is not None else last
        expected.append((n, d.replace("\r\n", "\n").replace("\r", "\n"), last))
    assert _httpx_sse_events(stream) == expected
