"""A consumer that leaves early: NeMo would otherwise generate the model to the end (its generation task keeps
reading after the client is gone), and `aclose()` would wait for that. Both designs stop the model instead."""

from __future__ import annotations

import asyncio

import pytest
from nemoguardrails import LLMRails

import sluicegate_nemo as sn
from sluicegate.testing import pieces_of
from tests.nemo.scripted import ScriptedModel, agen
from tests.nemo.test_stream import USER
from tests.support import GOOD, cancel_consumer

LONG = GOOD * 20
PIECES = pieces_of(LONG, 3)
THIRD_END = LONG.index(". ", LONG.index(". ", LONG.index(". ") + 2) + 2) + 2
BOUND = -(-THIRD_END // 3) + 1  # the first sentence read, and at most two more read ahead


async def _ticks(n: int = 50) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def _check_llm(model: ScriptedModel, s: sn.GuardedStream) -> None:
    assert model.closed_early, "the model was generated to the end after the consumer left"
    assert model.pulled <= BOUND < len(PIECES)
    assert s.outcome.reason == "cancelled" and s.outcome.usage is not None
    assert s.outcome.usage.received_chars == len("".join(PIECES[: model.pulled]))


async def _first_then_leave(rails: LLMRails, model: ScriptedModel) -> sn.GuardedStream:
    model.pulled, model.closed_early = 0, False
    model.push(PIECES)
    s = sn.guarded_stream(rails, messages=USER)
    async for _ in s:
        break
    return s


async def test_gated_llm_aclose_stops_the_model(llm_rails: LLMRails, scripted: ScriptedModel) -> None:
    s = await _first_then_leave(llm_rails, scripted)
    await asyncio.wait_for(s.aclose(), timeout=5)
    _check_llm(scripted, s)


async def test_gated_llm_break_and_drop_stops_the_model(llm_rails: LLMRails, scripted: ScriptedModel) -> None:
    s = await _first_then_leave(llm_rails, scripted)
    await _ticks()  # `async for` leaves its iterator to the loop's async-generator finaliser
    _check_llm(scripted, s)


@pytest.mark.parametrize("in_body", [True, False], ids=["in_loop_body", "in_anext"])
async def test_gated_llm_cancelled_consumer_stops_the_model(
    llm_rails: LLMRails, scripted: ScriptedModel, in_body: bool
) -> None:
    """In `__anext__` (waiting for NeMo) matters most: NeMo's iterator then waits for its generation task."""
    scripted.pulled, scripted.closed_early = 0, False
    scripted.push(PIECES)
    s = sn.guarded_stream(llm_rails, messages=USER)
    await cancel_consumer(s, in_body=in_body)
    _check_llm(scripted, s)


async def test_app_stream_aclose_stops_the_generator(app_rails: LLMRails) -> None:
    pulled: list[str] = []
    s = sn.guarded_stream(app_rails, messages=USER, generator=agen(PIECES, pulled))
    async for _ in s:
        break
    await asyncio.wait_for(s.aclose(), timeout=5)
    assert len(pulled) <= BOUND and s.outcome.reason == "cancelled"
