"""NeMo's real streaming path (LLMRails.stream_async, RollingBuffer, the output rail) with a scripted model.

Both designs: (a) the app owns the stream (`generator=`), (b) NeMo calls a GatedLLM. The reference is the
filter run on the whole string: the client must see exactly that, for every chunking.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nemoguardrails import LLMRails

import sluicegate_nemo as sn
from sluicegate.testing import pieces_of, run_filter
from tests.nemo.scripted import ScriptedModel, agen
from tests.support import BAD, BAD_RELEASED, GOOD, make_stop_filter

USER = [{"role": "user", "content": "What does the report cover?"}]


def visible(chunks: list[str]) -> str:
    """What a reader sees: the text chunks, without NeMo's closing error frame."""
    return "".join(c for c in chunks if sn.parse_error_frame(c) is None)


async def stream_app(rails: LLMRails, pieces: list[str], log: list[str] | None = None, messages=USER):
    s = sn.guarded_stream(rails, messages=messages, generator=agen(pieces, log))
    return [c async for c in s], s


async def stream_llm(rails: LLMRails, model: ScriptedModel, pieces: list[str], messages=USER):
    model.push(pieces)
    model.closed_early = False
    s = sn.guarded_stream(rails, messages=messages)
    return [c async for c in s], s


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_app_stream_good_text_is_byte_identical(app_rails: LLMRails, size: int) -> None:
    chunks, s = await stream_app(app_rails, pieces_of(GOOD, size))
    assert visible(chunks) == run_filter(make_stop_filter, [GOOD]).text == GOOD
    assert not s.blocked and s.outcome.reason == "complete"


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_app_stream_violation_ends_with_block_frame(app_rails: LLMRails, size: int) -> None:
    pulled: list[str] = []
    chunks, s = await stream_app(app_rails, pieces_of(BAD, size), pulled)
    assert visible(chunks) == run_filter(make_stop_filter, [BAD]).text == BAD_RELEASED
    assert sn.is_block_frame(chunks[-1]) and s.blocked
    assert not any("2019" in c or "covers" in c for c in chunks)  # nothing of the bad sentence
    assert s.outcome.reason == "stopped" and s.session.reasons == ("forbidden",)
    assert "".join(pulled) != BAD  # the model stream was closed at the stop, not drained


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_gated_llm_good_text_is_byte_identical(llm_rails: LLMRails, scripted: ScriptedModel, size: int) -> None:
    chunks, s = await stream_llm(llm_rails, scripted, pieces_of(GOOD, size))
    assert visible(chunks) == GOOD and not s.blocked


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_gated_llm_violation_ends_with_block_frame(
    llm_rails: LLMRails, scripted: ScriptedModel, size: int
) -> None:
    chunks, s = await stream_llm(llm_rails, scripted, pieces_of(BAD, size))
    assert visible(chunks) == BAD_RELEASED
    assert sn.is_block_frame(chunks[-1]) and s.blocked
    assert not any("2019" in c or "covers" in c for c in chunks)
    assert scripted.closed_early  # the provider stream was closed at the stop


def _pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@given(text=st.sampled_from([GOOD, BAD]), cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=15))
def test_hypothesis_chunkings_through_both_paths(
    app_rails: LLMRails, llm_rails: LLMRails, scripted: ScriptedModel, text: str, cuts: list[int]
) -> None:
    pieces = _pieces(text, cuts)
    expected = run_filter(make_stop_filter, [text])
    chunks_a, sa = asyncio.run(stream_app(app_rails, pieces))
    chunks_b, sb = asyncio.run(stream_llm(llm_rails, scripted, [p for p in pieces if p]))
    for chunks, s in ((chunks_a, sa), (chunks_b, sb)):
        assert visible(chunks) == expected.text
        assert s.blocked == expected.stopped == sn.is_block_frame(chunks[-1])


async def test_two_concurrent_streams_on_one_rails_are_isolated(app_rails: LLMRails) -> None:
    (good, gs), (bad, bs) = await asyncio.gather(
        stream_app(app_rails, pieces_of(GOOD, 2)), stream_app(app_rails, pieces_of(BAD, 2))
    )
    assert visible(good) == GOOD and not gs.blocked
    assert visible(bad) == BAD_RELEASED and bs.blocked


async def test_two_concurrent_gated_llm_streams_are_isolated(llm_rails: LLMRails, scripted: ScriptedModel) -> None:
    scripted.routes.update({"good question": pieces_of(GOOD, 2), "bad question": pieces_of(BAD, 2)})
    try:
        good_s = sn.guarded_stream(llm_rails, messages=[{"role": "user", "content": "good question"}])
        bad_s = sn.guarded_stream(llm_rails, messages=[{"role": "user", "content": "bad question"}])

        async def drain(s: sn.GuardedStream) -> list[str]:
            return [c async for c in s]

        good, bad = await asyncio.gather(drain(good_s), drain(bad_s))
    finally:
        scripted.routes.clear()
    assert visible(good) == GOOD and not good_s.blocked
    assert visible(bad) == BAD_RELEASED and bad_s.blocked


async def test_streamed_window_without_a_session_is_blocked(app_rails: LLMRails) -> None:
    """Fail closed: a stream that bypasses guarded_stream shows nothing but the block frame."""
    chunks = [c async for c in app_rails.stream_async(messages=USER, generator=agen(pieces_of(GOOD, 3)))]
    assert len(chunks) == 1 and sn.is_block_frame(chunks[0])


async def test_gated_llm_without_a_session_is_blocked(llm_rails: LLMRails, scripted: ScriptedModel) -> None:
    scripted.push(pieces_of(GOOD, 3))
    chunks = [c async for c in llm_rails.stream_async(messages=USER)]
    assert visible(chunks) == "" and sn.is_block_frame(chunks[-1])
    scripted.scripts.clear()  # the model was never called: drop its unused script


async def test_session_id_in_an_existing_context_message_is_merged(app_rails: LLMRails) -> None:
    messages = [{"role": "context", "content": {"topic": "reports"}}, *USER]
    chunks, s = await stream_app(app_rails, pieces_of(BAD, 4), messages=messages)
    assert visible(chunks) == BAD_RELEASED and s.blocked
    assert messages[0]["content"] == {"topic": "reports"}  # the caller's messages are not mutated


async def test_provider_failure_releases_validated_text_then_surfaces(app_rails: LLMRails) -> None:
    async def dying():
        yield "The report is ready. It cov"
        raise ConnectionError("provider went away")

    s = sn.guarded_stream(app_rails, messages=USER, generator=dying())
    seen: list[str] = []
    with pytest.raises(ConnectionError):
        async for c in s:
            seen.append(c)
    assert (
        "".join(seen) == "The report is ready. It cov"
    )  # validated sentence + the truncated tail, as flush(truncated=True) releases it
    assert s.outcome.reason == "truncated"
