"""The guardrail's stream hook in-process, over real `ModelResponseStream` chunks (litellm's own objects), for
Hypothesis chunkings: what it emits is byte-identical for every chunking and equal to the whole-answer hook's
result; a tool call comes out once, whole, after the terminal chunk. The proxy process is in test_proxy.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from litellm.types.utils import ModelResponse, ModelResponseStream

from sluicegate_litellm import SluicegateGuardrail
from tests.call.helpers import PASSING, SOURCES, STOPPING

from .test_proxy import TOOLS

GUARD = SluicegateGuardrail(guardrail_name="sluicegate", event_hook="post_call", default_on=True)
REDACT = "Mail jane.doe@example.com or call +41 44 668 18 00 today. Done."
ARGS = '{"city": "Bern"}'


def stream_chunks(pieces: list[str], args: list[str] | None = None) -> list[ModelResponseStream]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> ModelResponseStream:
        return ModelResponseStream(id="c1", model="m", choices=[{"index": 0, "delta": delta, "finish_reason": finish}])

    out = [chunk({"role": "assistant", "content": p}) for p in pieces]
    if args is not None:
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ""},
                        }
                    ]
                }
            )
        )
        out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": a}}]}) for a in args]
    out.append(chunk({}, "tool_calls" if args is not None else "stop"))
    return out


def run_stream(chunks: list[ModelResponseStream], data: dict[str, Any]) -> list[ModelResponseStream]:
    async def source() -> AsyncIterator[ModelResponseStream]:
        for c in chunks:
            yield c

    async def main() -> list[ModelResponseStream]:
        return [c async for c in GUARD.async_post_call_streaming_iterator_hook(None, source(), data)]

    return asyncio.run(main())


def shown(chunks: list[ModelResponseStream]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def whole(text: str, data: dict[str, Any], args: str | None = None) -> Any:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if args is not None:
        message["tool_calls"] = [
            {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": args}}
        ]
    response = ModelResponse(
        id="c1",
        model="m",
        choices=[{"index": 0, "message": message, "finish_reason": "tool_calls" if args else "stop"}],
    )
    return asyncio.run(GUARD.async_post_call_success_hook(data, None, response)).choices[0]


def cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:], strict=False) if b > a]


GATED = {"metadata": {"sluicegate": {"sources": SOURCES}}}
REDACTED = {"metadata": {"sluicegate": {}}}


@given(answer=st.sampled_from([PASSING, STOPPING, REDACT]), cuts=st.lists(st.integers(0, 200), max_size=12))
def test_the_stream_is_chunk_invariant_and_equals_the_whole_answer(answer: str, cuts: list[int]) -> None:
    data = GATED if answer != REDACT else REDACTED
    expected = whole(answer, data)
    out = run_stream(stream_chunks(cut(answer, cuts)), data)
    assert shown(out) == expected.message.content
    assert out[-1].choices[0].finish_reason == expected.finish_reason
    assert "jane.doe" not in shown(out) and "2019" not in shown(out)


def test_every_two_chunk_split_of_a_value_is_redacted() -> None:
    outs = {shown(run_stream(stream_chunks([REDACT[:i], REDACT[i:]]), REDACTED)) for i in range(1, len(REDACT))}
    assert len(outs) == 1 and "example.com" not in outs.pop()


@given(cuts=st.lists(st.integers(0, 40), max_size=6), text_cuts=st.lists(st.integers(0, 80), max_size=4))
def test_a_tool_call_is_released_once_whole_after_the_terminal_chunk(cuts: list[int], text_cuts: list[int]) -> None:
    data = {"tools": TOOLS, **REDACTED}
    out = run_stream(stream_chunks(cut("Fine text. ", text_cuts), cut(ARGS, cuts)), data)
    calls = [(i, c) for i, c in enumerate(out) if c.choices and c.choices[0].delta.tool_calls]
    assert len(calls) == 1
    index, chunk = calls[0]
    assert index == len(out) - 2 and out[-1].choices[0].finish_reason == "tool_calls"  # only the finish after it
    call = chunk.choices[0].delta.tool_calls[0]
    assert json.loads(call.function.arguments) == {"city": "Bern"}
    expected = whole("Fine text. ", data, ARGS)
    assert shown(out) == "Fine text. "
    assert json.loads(expected.message.tool_calls[0].function.arguments) == {"city": "Bern"}


def test_a_stream_cut_before_its_terminal_releases_no_tool_call() -> None:
    out = run_stream(stream_chunks(["Fine text. "], [ARGS])[:-1], {"tools": TOOLS, **REDACTED})
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in out)


def test_malformed_options_hold_the_answer_back() -> None:
    out = run_stream(stream_chunks([PASSING]), {"metadata": {"sluicegate": {"sources": "not a list"}}})
    assert [c.choices[0].finish_reason for c in out] == ["content_filter"] and "1843" not in shown(out)


def test_a_mode_without_post_call_is_refused_at_startup() -> None:
    with pytest.raises(ValueError, match="post_call"):
        SluicegateGuardrail(guardrail_name="sluicegate", event_hook="during_call")
    SluicegateGuardrail(guardrail_name="sluicegate", event_hook=["during_call", "post_call"])  # accepted


def test_a_length_cut_answer_releases_no_tool_call_and_says_length() -> None:
    chunks = stream_chunks(["Fine text. "], [ARGS])
    chunks[-1].choices[0].finish_reason = "length"
    out = run_stream(chunks, {"tools": TOOLS, **REDACTED})
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in out)
    assert out[-1].choices[0].finish_reason == "length"
