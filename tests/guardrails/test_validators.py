"""Guardrails AI's real streaming runners (Guard / AsyncGuard, fix path) with a scripted model callable."""

from __future__ import annotations

import asyncio

import pytest
from guardrails import AsyncGuard, Guard
from hypothesis import given
from hypothesis import strategies as st

import sluicegate_guardrails as sg
from sluicegate.testing import pieces_of, run_filter
from tests.support import BAD, BAD_RELEASED, BAD_SHOWN, GOOD, import_error_without, make_stop_filter, shown_text

FILTER = "tests.support.make_stop_filter"
MESSAGES = [{"role": "user", "content": "What does the report cover?"}]


def scripted_llm(*, messages=None, pieces=(), pulled=None, **kwargs):
    """The model: a sync callable guardrails calls with stream=True (its **kwargs are required)."""
    for piece in pieces:
        if pulled is not None:
            pulled.append(piece)
        yield piece


async def scripted_allm(*, messages=None, pieces=(), **kwargs):
    async def gen():
        for piece in pieces:
            await asyncio.sleep(0)
            yield piece

    return gen()


@pytest.fixture(scope="module")
def guard() -> Guard:
    return Guard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))


@pytest.fixture(scope="module")
def aguard() -> AsyncGuard:
    return AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))


def run_sync(guard: Guard, pieces: list[str], pulled: list[str] | None = None) -> tuple[str, sg.GuardedStream]:
    s = sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces, pulled=pulled)
    return "".join(s), s


async def run_async(guard: AsyncGuard, pieces: list[str]) -> tuple[str, sg.GuardedStream]:
    s = await sg.astream(guard, scripted_allm, messages=MESSAGES, pieces=pieces)
    return "".join([t async for t in s]), s


@pytest.mark.parametrize("size", [1, 3, 7])
def test_sync_guard_good_text_is_byte_identical(guard: Guard, size: int) -> None:
    text, s = run_sync(guard, pieces_of(GOOD, size))
    assert text == run_filter(make_stop_filter, [GOOD]).text == GOOD
    assert s.violation is None and s.outcome.reason == "complete"


@pytest.mark.parametrize("size", [1, 3, 7])
def test_sync_guard_violation_fails_and_withholds_the_bad_sentence(guard: Guard, size: int) -> None:
    pulled: list[str] = []
    text, s = run_sync(guard, pieces_of(BAD, size), pulled)
    assert text == BAD_SHOWN
    assert "2019" not in text and "covers" not in text
    assert s.violation == "sluicegate stopped the stream: forbidden"
    assert "".join(pulled) != BAD  # the model stream was closed at the stop
    # guardrails itself records our FailResult in the validator logs, while validation_passed says True
    logs = guard.history.last.iterations.last.outputs.validator_logs
    assert any(log.validation_result.outcome == "fail" for log in logs)
    assert all(vo.validation_passed for vo in s.raw_outcomes)  # why we do not rely on it


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_async_guard_matches_the_whole_string_filter(aguard: AsyncGuard, size: int) -> None:
    good, gs = await run_async(aguard, pieces_of(GOOD, size))
    bad, bs = await run_async(aguard, pieces_of(BAD, size))
    assert (good, gs.violation) == (GOOD, None)
    assert bad == BAD_SHOWN and bs.violation is not None


def _pieces(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@given(text=st.sampled_from([GOOD, BAD]), cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=15))
def test_hypothesis_chunkings_through_both_runners(
    guard: Guard, aguard: AsyncGuard, text: str, cuts: list[int]
) -> None:
    pieces = _pieces(text, cuts)
    expected = run_filter(make_stop_filter, [text])
    shown = shown_text(make_stop_filter, text)
    got_sync, s1 = run_sync(guard, pieces)
    got_async, s2 = asyncio.run(run_async(aguard, pieces))
    assert got_sync == got_async == shown
    assert (s1.violation is not None) == (s2.violation is not None) == expected.stopped


async def test_two_concurrent_async_streams_are_isolated(aguard: AsyncGuard) -> None:
    (good, gs), (bad, bs) = await asyncio.gather(
        run_async(aguard, pieces_of(GOOD, 2)), run_async(aguard, pieces_of(BAD, 2))
    )
    assert (good, gs.violation) == (GOOD, None)
    assert bad == BAD_SHOWN and bs.violation is not None


def test_interleaved_sync_streams_on_one_guard_are_isolated(guard: Guard) -> None:
    a = iter(sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(GOOD, 2)))
    b = iter(sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(BAD, 2)))
    first_a = next(a)
    first_b = next(b)
    assert first_a + "".join(a) == GOOD
    assert first_b + "".join(b) == BAD_SHOWN


def test_aborted_stream_does_not_leak_into_the_next(guard: Guard) -> None:
    s = iter(sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(GOOD, 2)))
    next(s)  # the consumer walks away mid-stream
    text, later = run_sync(guard, pieces_of(GOOD, 5))
    assert text == GOOD and later.violation is None


def test_plain_guard_call_without_the_adapter_fails_closed(guard: Guard) -> None:
    outs = list(guard(scripted_llm, messages=MESSAGES, pieces=pieces_of(GOOD, 3), stream=True))
    assert "".join(o.validated_output or "" for o in outs) == ""


def test_whole_string_validate(guard: Guard) -> None:
    good = sg.validate(guard, GOOD)
    bad = sg.validate(guard, BAD)
    assert (good.validated_output, good.violation) == (GOOD, None)
    assert bad.validated_output == BAD_RELEASED and bad.violation == "sluicegate stopped the stream: forbidden"
    assert (good.text, bad.text) == (GOOD, BAD_SHOWN)  # what to show: the notice after a stop


def test_guard_from_rail_spec_and_dict_roundtrip(guard: Guard) -> None:
    rail = (
        '<rail version="0.1"><output type="string" validators="sluicegate/stream_gate: '
        f'{FILTER}" on-fail-sluicegate_stream_gate="fix"/></rail>'
    )
    from_rail = Guard.for_rail_string(rail)
    as_dict = guard.to_dict()
    assert as_dict["validators"] == [
        {"id": "sluicegate/stream_gate", "on": "$", "onFail": "fix", "kwargs": {"filter": FILTER}}
    ]
    from_dict = Guard.from_dict(as_dict)
    for g in (from_rail, from_dict):
        text, s = run_sync(g, pieces_of(BAD, 4))
        assert text == BAD_SHOWN and s.violation is not None


def test_a_second_validator_on_the_output_is_refused() -> None:
    g = Guard().use(sg.StreamGate(filter=FILTER), sg.StreamGate(filter=FILTER))
    with pytest.raises(ValueError, match="exactly one validator"):
        sg.stream(g, scripted_llm, messages=MESSAGES, pieces=[GOOD])


def test_import_without_the_extra_names_it() -> None:
    assert 'pip install "sluicegate[guardrails]"' in import_error_without("guardrails", "sluicegate_guardrails")
