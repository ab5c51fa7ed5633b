"""Reading answer pieces out of recorded SSE streams (`--format sse`), in process."""

from __future__ import annotations

import base64
import json

import pytest

from sluicegate.cli._records import RecordError
from sluicegate.cli._sse_records import extract_sse
from tests.cli.support import EXAMPLES


def chat(*pieces: str, finish: str | None = "stop", done: bool = True) -> str:
    frames = [json.dumps({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}) for p in pieces]
    if finish is not None:
        frames.append(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    if done:
        frames.append("[DONE]")
    return "".join(f"data: {f}\n\n" for f in frames)


def test_every_split_of_the_recorded_bytes_gives_the_same_answer_and_end() -> None:
    for line in (EXAMPLES / "replay" / "answers_sse.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        pieces, cut = extract_sse(record)
        if "sse" in record:
            data = "".join(record["sse"]).encode("utf-8")
        else:
            data = b"".join(base64.b64decode(r) for r in record["sse_b64"])
        for at in range(0, len(data) + 1, 7):
            split = {"sse_b64": [base64.b64encode(data[:at]).decode(), base64.b64encode(data[at:]).decode()]}
            again, cut_again = extract_sse(split)
            assert ("".join(again), cut_again) == ("".join(pieces), cut), (record["id"], at)


def test_the_persian_example_really_cuts_a_character_between_reads() -> None:
    record = next(
        json.loads(line)
        for line in (EXAMPLES / "replay" / "answers_sse.jsonl").read_text("utf-8").splitlines()
        if '"responses-fa-split-bytes"' in line
    )
    reads = [base64.b64decode(r) for r in record["sse_b64"]]
    undecodable = 0
    for read in reads:
        try:
            read.decode("utf-8")
        except UnicodeDecodeError:
            undecodable += 1
    assert undecodable >= 1


@pytest.mark.parametrize(
    ("stream", "cut"),
    [
        (chat("It opens [S1]."), False),
        (chat("It opens [S1].", done=False), False),  # finish_reason "stop" ends the answer, [DONE] or not
        (chat("It opens", finish=None, done=False), True),  # neither: cut short
        (chat("It opens", finish="length"), True),
        (chat("It opens", finish="content_filter"), True),
        ('event: error\ndata: {"error": "overloaded"}\n\n', True),
        ("data: plain text\n\ndata: [DONE]\n\n", False),
    ],
)
def test_how_the_stream_ended_decides_truncation(stream: str, cut: bool) -> None:
    assert extract_sse({"sse": [stream]})[1] is cut


def test_only_the_first_choice_is_the_answer() -> None:
    two = json.dumps(
        {"choices": [{"index": 1, "delta": {"content": "other"}}, {"index": 0, "delta": {"content": "A"}}]}
    )
    pieces, _ = extract_sse({"sse": [f"data: {two}\n\n", chat("B")]})
    assert "".join(pieces) == "AB"


def test_non_text_events_are_skipped() -> None:
    stream = (
        'event: message_start\ndata: {"type":"message_start"}\n\n: ping\n\n'
        'event: content_block_delta\ndata: {"delta":{"type":"input_json_delta","partial_json":"{"}}\n\n'
        'event: content_block_delta\ndata: {"delta":{"type":"text_delta","text":"Hi."}}\n\n'
        'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    assert extract_sse({"sse": [stream]}) == (["Hi."], False)


def test_a_record_without_sse_reads_is_an_error() -> None:
    with pytest.raises(RecordError, match="'sse'"):
        extract_sse({"answer": "x"})
