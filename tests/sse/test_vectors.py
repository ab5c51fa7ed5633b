"""Other parsers' published test vectors (tests/sse/vectors/, origins in its README), run through SSEParser whole,
in the suite's own reads, at every split position and in 1-byte reads; httpx-sse as an oracle beside it.

A vector lists the reads (`chunks`, text sent as UTF-8, or `chunks_hex` for raw bytes) and what the suite asserts,
put in our terms: the dispatched events (`event`, `data`, and `id`/`retry` where the suite checks them), the
last event ID and reconnection time after the stream (where given), and `too_large` where the suite expects its
buffer limit to trip at `max_event_bytes`. Where a suite's own expectation departs from the spec, the vector
keeps the spec's in `events` and the suite's in `suite_expects`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

from sluicegate.sse import SSEEvent, SSEEventTooLarge, SSEParser

VECTORS = Path(__file__).parent / "vectors"
SUITES = {path.stem: json.loads(path.read_text("utf-8")) for path in sorted(VECTORS.glob("*.json"))}
CASES = [(suite, vector) for suite, doc in SUITES.items() for vector in doc["vectors"]]
IDS = [f"{suite}:{vector['name']}" for suite, vector in CASES]


def reads(vector: dict[str, Any]) -> list[bytes]:
    if "chunks_hex" in vector:
        return [bytes.fromhex(c) for c in vector["chunks_hex"]]
    return [c.encode("utf-8") for c in vector["chunks"]]


Outcome = tuple[list[SSEEvent], str | None, int | None, bool]


def run(vector: dict[str, Any], chunks: list[bytes]) -> Outcome:
    """(events, last_event_id, reconnection_time, whether the size limit tripped) for these reads."""
    kwargs: dict[str, Any] = {}
    if "max_event_bytes" in vector:
        kwargs["max_event_bytes"] = vector["max_event_bytes"]
    if "seed_last_event_id" in vector:
        kwargs["last_event_id"] = vector["seed_last_event_id"]
    parser = SSEParser(**kwargs)
    events: list[SSEEvent] = []
    try:
        for chunk in chunks:
            events += parser.feed(chunk)
        events += parser.close()
    except SSEEventTooLarge as exc:
        return events + exc.events, parser.last_event_id, parser.reconnection_time, True
    return events, parser.last_event_id, parser.reconnection_time, False


def check(vector: dict[str, Any], outcome: Outcome) -> None:
    events, last_event_id, reconnection_time, too_large = outcome
    expected = vector["events"]
    assert len(events) == len(expected), [e.data for e in events]
    for got, want in zip(events, expected, strict=True):
        assert {key: getattr(got, key) for key in want} == want
    if "last_event_id" in vector:
        assert last_event_id == vector["last_event_id"]
    if "reconnection_time" in vector:
        assert reconnection_time == vector["reconnection_time"]
    assert too_large == vector.get("too_large", False)


def test_the_vectors_are_there() -> None:
    assert len(SUITES) == 9 and len(CASES) >= 150
    for doc in SUITES.values():
        assert doc["repo"] and doc["license"] and doc["commit"]


@pytest.mark.parametrize(("suite", "vector"), CASES, ids=IDS)
def test_whole_and_in_the_suites_own_reads(suite: str, vector: dict[str, Any]) -> None:
    chunks = reads(vector)
    check(vector, run(vector, chunks))
    check(vector, run(vector, [b"".join(chunks)]))


@pytest.mark.parametrize(("suite", "vector"), CASES, ids=IDS)
def test_at_every_split_and_in_one_byte_reads(suite: str, vector: dict[str, Any]) -> None:
    data = b"".join(reads(vector))
    whole = run(vector, [data])
    for i in range(len(data) + 1):
        assert run(vector, [data[:i], data[i:]]) == whole, f"split at byte {i}"
    assert run(vector, [data[i : i + 1] for i in range(len(data))]) == whole


def httpx_sse(chunks: list[bytes]) -> list[SSEEvent]:
    """httpx-sse's decoders fed the reads as text (decoding is httpx's job: it uses an incremental decoder)."""
    import codecs

    decoder, lines, sse, out = codecs.getincrementaldecoder("utf-8")("replace"), SSELineDecoder(), SSEDecoder(), []
    texts = [decoder.decode(c) for c in chunks] + [decoder.decode(b"", True)]
    found = [line for text in texts if text for line in lines.decode(text)] + lines.flush()
    for line in found:
        event = sse.decode(line)
        if event is not None:
            out.append(SSEEvent(event.event or "message", event.data, event.id or None, event.retry))
    return out


# Where httpx-sse (0.4.x) gives other events than the spec, and why; everything else must agree with it.
HTTPX_SSE_DEPARTS = {
    # it dispatches a block without a data line (an `id`, `retry` or `event` alone), with data ""
    "openai-python:event missing data",
    "openai-python:multiple events",
    "eventsource-parser:id from a block without data",
    "eventsource-parser:id from a block without data, committed",
    "eventsource-parser:id from a block using CR line endings",
    "eventsource-parser:id from a block using CRLF line endings",
    "eventsource-parser:incorrect retry fields",
    "eventsource-eventsource:counter, first connection",
    "eventsource-eventsource:counter, reconnected with Last-Event-ID",
    "eventsource-eventsource:counter, unnamed events",
    "eventsource-eventsource:identified listeners",
    # it leaves a BOM to the decoder, and decoding keeps it: the first field name is "\ufeffdata"
    "eventsource-parser:leading bom",
    "eventsource-parser:byte-order mark in multiple places",
    "eventsource-parser:BOM then two data lines",
    "launchdarkly-sse-contract-tests:BOM at start of stream is stripped",
    "launchdarkly-sse-contract-tests:BOM stripped before first event with type and ID",
    "launchdarkly-sse-contract-tests:BOM stripped with multiple messages",
    "web-platform-tests:format-bom",
    "undici:Remove BOM from the beginning of the stream",
}


def comparable(events: list[SSEEvent]) -> list[tuple[str, str]]:
    return [(e.event, e.data) for e in events]


def test_httpx_sse_as_an_oracle_agrees_everywhere_but_where_it_departs_from_the_spec() -> None:
    departs = set()
    for (_suite, vector), name in zip(CASES, IDS, strict=True):
        if vector.get("too_large"):
            continue  # httpx-sse has no bound
        chunks = reads(vector)
        ours = comparable(run(vector, chunks)[0])
        if comparable(httpx_sse(chunks)) != ours:
            departs.add(name)
    assert departs == HTTPX_SSE_DEPARTS


def test_suite_expectations_that_depart_from_the_spec_are_httpx_sses() -> None:
    """The OpenAI SDK's decoder was copied from httpx-sse: its tests' no-data events are httpx-sse's output."""
    for _suite, vector in CASES:
        if "suite_expects" in vector:
            assert comparable(httpx_sse(reads(vector))) == [(e["event"], e["data"]) for e in vector["suite_expects"]]
