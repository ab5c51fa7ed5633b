"""A consumer that stops reading: the model is closed at once, not drained (Guardrails' telemetry tees the
sync stream and would read it to the end), and the outcome says "cancelled" with the usage received so far."""

from __future__ import annotations

import asyncio

import pytest
from guardrails import AsyncGuard, Guard

import sluicegate_guardrails as sg
from sluicegate.testing import pieces_of
from tests.support import GOOD, cancel_consumer

FILTER = "tests.support.make_stop_filter"
MESSAGES = [{"role": "user", "content": "What does the report cover?"}]
LONG = GOOD * 20
PIECES = pieces_of(LONG, 3)
# The consumer reads the first sentence; the runner and the filter may read up to two more sentences ahead.
THIRD_END = LONG.index(". ", LONG.index(". ", LONG.index(". ") + 2) + 2) + 2
BOUND = -(-THIRD_END // 3) + 1


class Model:
    """A scripted model callable that records how many pieces it produced and whether it was closed."""

    def __init__(self) -> None:
        self.produced = 0
        self.closed = False

    def __call__(self, *, messages=None, **kwargs):
        try:
            for piece in PIECES:
                self.produced += 1
                yield piece
        finally:
            self.closed = True

    async def acall(self, *, messages=None, **kwargs):
        async def gen():
            try:
                for piece in PIECES:
                    await asyncio.sleep(0)
                    self.produced += 1
                    yield piece
            finally:
                self.closed = True

        return gen()


def _check(model: Model, s: sg.GuardedStream) -> None:
    assert model.closed, "the model stream is still open after the consumer stopped"
    assert model.produced <= BOUND < len(PIECES)
    assert s.outcome.reason == "cancelled"
    assert s.outcome.usage is not None and s.outcome.usage.received_chars == len("".join(PIECES[: model.produced]))


def test_sync_break_closes_the_model_at_once() -> None:
    guard = Guard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))
    model = Model()
    s = sg.stream(guard, model, messages=MESSAGES)
    for text in s:
        assert text
        break
    _check(model, s)  # s is still referenced: no garbage collection involved


def test_sync_explicit_close_of_the_iterator() -> None:
    guard = Guard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))
    model = Model()
    s = sg.stream(guard, model, messages=MESSAGES)
    it = iter(s)
    next(it)
    it.close()
    _check(model, s)


async def test_async_aclose_closes_the_model() -> None:
    guard = AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))
    model = Model()
    s = await sg.astream(guard, model.acall, messages=MESSAGES)
    it = s.__aiter__()
    await it.__anext__()
    await it.aclose()
    _check(model, s)


async def test_async_break_closes_the_model_promptly() -> None:
    guard = AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))
    model = Model()
    s = await sg.astream(guard, model.acall, messages=MESSAGES)
    async for _ in s:
        break
    for _ in range(20):  # the event loop finalises the abandoned async generator in a task of its own
        await asyncio.sleep(0)
    _check(model, s)


@pytest.mark.parametrize("in_body", [True, False], ids=["in_loop_body", "in_anext"])
async def test_async_cancelled_task_closes_the_model(in_body: bool) -> None:
    guard = AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))
    model = Model()
    s = await sg.astream(guard, model.acall, messages=MESSAGES)
    await cancel_consumer(s, in_body=in_body)
    _check(model, s)
