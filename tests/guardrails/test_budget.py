"""sg.stream(..., cap=...) with a real Guard and a real SQLite store; only the model callable is scripted."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from guardrails import AsyncGuard, Guard

import sluicegate_guardrails as sg
from sluicegate._notices import notice
from sluicegate.budget import CallBudget, Price, SpendCap, SQLiteStore
from sluicegate.budget._bound import prompt_tokens_bound
from sluicegate.testing import pieces_of
from sluicegate_guardrails.capped import _Reserved
from tests.budget.helpers import SlowStore
from tests.support import BAD, BAD_SHOWN, GOOD

FILTER = "tests.support.make_stop_filter"
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What does the report cover?"}]
PRICE = Price("1", "2")
PROMPT_BOUND = prompt_tokens_bound(MESSAGES)[0]


class Model:
    def __init__(self, text: str) -> None:
        self.pieces = pieces_of(text, 4)
        self.produced: list[str] = []
        self.closed = False

    def __call__(self, *, messages=None, **kwargs):
        try:
            for piece in self.pieces:
                self.produced.append(piece)
                yield piece
        finally:
            self.closed = True

    async def acall(self, *, messages=None, **kwargs):
        async def gen():
            try:
                for piece in self.pieces:
                    await asyncio.sleep(0)
                    self.produced.append(piece)
                    yield piece
            finally:
                self.closed = True

        return gen()

    @property
    def received(self) -> int:
        return len("".join(self.produced).encode())


def budget(tmp_path: Path, monthly: str = "1") -> CallBudget:
    return CallBudget(SpendCap(SQLiteStore(tmp_path / "s.sqlite3"), monthly, {"m": PRICE}, language="fa"), "m", 256)


def guard() -> Guard:
    return Guard().use(sg.StreamGate(filter=FILTER, on_fail="fix"))


def test_refused_yields_the_notice_and_calls_nothing(tmp_path: Path) -> None:
    model = Model(GOOD)
    s = sg.stream(guard(), model, cap=budget(tmp_path, monthly="0"), messages=MESSAGES)
    assert list(s) == [notice("fa", "monthly_limit")] and model.produced == []
    assert s.outcome.reason == "refused" and s.outcome.violations == ("monthly_limit",) and s.violation is None


def test_complete_stream_settles_its_bytes(tmp_path: Path) -> None:
    model, cap = Model(GOOD), budget(tmp_path)
    assert "".join(sg.stream(guard(), model, cap=cap, messages=MESSAGES)) == GOOD
    assert cap.cap.totals().committed == PRICE.cost(PROMPT_BOUND, len(GOOD.encode()))
    assert cap.cap.totals().reserved == 0


def test_stopped_stream_settles_what_was_received(tmp_path: Path) -> None:
    model, cap = Model(BAD), budget(tmp_path)
    s = sg.stream(guard(), model, cap=cap, messages=MESSAGES)
    assert "".join(s) == BAD_SHOWN and s.violation is not None and model.closed
    assert model.received < len(BAD.encode())
    assert cap.cap.totals().committed == PRICE.cost(PROMPT_BOUND, model.received)


def test_a_reader_who_leaves_is_charged_for_what_was_generated(tmp_path: Path) -> None:
    model, cap = Model(GOOD * 10), budget(tmp_path)
    s = sg.stream(guard(), model, cap=cap, messages=MESSAGES)
    for _ in s:
        break
    assert model.closed and s.outcome.reason == "cancelled"
    assert cap.cap.totals().committed == PRICE.cost(PROMPT_BOUND, model.received) and cap.cap.totals().reserved == 0


async def test_async_stream_settles_and_async_refusal_calls_nothing(tmp_path: Path) -> None:
    model, cap = Model(BAD), budget(tmp_path)
    s = await sg.astream(
        AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix")), model.acall, cap=cap, messages=MESSAGES
    )
    assert "".join([t async for t in s]) == BAD_SHOWN
    assert cap.cap.totals().committed == PRICE.cost(PROMPT_BOUND, model.received)
    other = Model(GOOD)
    refused = await sg.astream(
        AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix")),
        other.acall,
        cap=budget(tmp_path, "0"),
        messages=MESSAGES,
    )
    assert [t async for t in refused] == [notice("fa", "monthly_limit")] and other.produced == []


async def test_async_reserve_does_not_block_the_event_loop(tmp_path: Path) -> None:
    """The store's calls are blocking I/O: on the loop, one slow reserve would freeze every other coroutine."""
    store = SlowStore(SQLiteStore(tmp_path / "s.sqlite3"), wait=5.0)
    cap = CallBudget(SpendCap(store, "1", {"m": PRICE}), "m", 256)
    model = Model(GOOD)

    async def releaser() -> None:
        await asyncio.to_thread(store.entered.wait, 5)
        store.release.set()  # runs only if the loop is free while reserve waits

    helper = asyncio.ensure_future(releaser())
    s = await sg.astream(
        AsyncGuard().use(sg.StreamGate(filter=FILTER, on_fail="fix")), model.acall, cap=cap, messages=MESSAGES
    )
    got = "".join([t async for t in s])
    await helper
    assert store.released == [True]
    assert got == GOOD and cap.cap.totals().reserved == 0


def test_an_unreserved_model_call_fails_closed(tmp_path: Path) -> None:
    cap = budget(tmp_path)
    reserved = _Reserved(cap, cap.reserve(MESSAGES), Model(GOOD))
    longer = [*MESSAGES, {"role": "user", "content": "and one more thing the reservation never saw"}]
    with pytest.raises(sg.UnreservedCall, match="exceeds"):
        reserved(messages=longer)
    list(reserved(messages=MESSAGES))
    with pytest.raises(sg.UnreservedCall, match="second model call"):
        reserved(messages=MESSAGES)


def test_cap_needs_messages_and_a_call_budget(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="messages"):
        sg.stream(guard(), Model(GOOD), cap=budget(tmp_path))
    with pytest.raises(TypeError, match="CallBudget"):
        sg.stream(guard(), Model(GOOD), cap=budget(tmp_path).cap, messages=MESSAGES)  # type: ignore[arg-type]
