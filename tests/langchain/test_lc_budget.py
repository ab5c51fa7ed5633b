"""SourceGate(cap=...) in a real LCEL chain over a real SQLite store; only the chat model is scripted."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from lc_fakes import INPUT_TOKENS, ScriptedChatModel

from sluicegate._notices import notice
from sluicegate.budget import CallBudget, Price, SpendCap, SQLiteStore
from sluicegate.budget._bound import MESSAGE_OVERHEAD_TOKENS
from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate, UsageCallbackHandler
from tests.budget.helpers import SlowStore
from tests.support import toy_factory

PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer only from the numbered sources; cite them as [S1].\n\n{context}"), ("human", "{question}")]
)
SOURCES = ["Revenue was 5 million in 2018.", "Headcount was 42 in 2018."]
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]. Both figures are from 2018 [S1][S2]."
BAD = "Revenue was 5 million in 2018 [S1]. It fell to 3 million in 2019 [S1]. Headcount was 42 [S2]. Done [S2]."
INPUT = {"question": "How did the company do?", "sources": SOURCES}
PRICE = Price("2", "8")


def budget(tmp_path: Path, monthly: str = "1") -> CallBudget:
    return CallBudget(SpendCap(SQLiteStore(tmp_path / "spend.sqlite3"), monthly, {"m": PRICE}), "m", 400)


def chain(model: ScriptedChatModel, cap: CallBudget, **kw: object):
    return RunnablePassthrough.assign(answer=SourceGate(PROMPT | model, filter_factory=toy_factory, cap=cap, **kw))


def answer(chunks: list[dict]) -> str:
    return "".join(c["answer"] for c in chunks if "answer" in c)


def input_bound(prompt: str) -> int:
    """The bound of what the model received: its two messages' bytes, their roles, the framing."""
    return len(prompt.encode()) - 1 + len(b"system") + len(b"human") + 3 * MESSAGE_OVERHEAD_TOKENS


def test_refused_shows_the_notice_and_never_calls_the_model(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    outcomes: list = []
    cap = budget(tmp_path, monthly="0.0001")  # less than one call's bound
    cap.cap.language = "es"
    got = answer(list(chain(model, cap, on_outcome=outcomes.append).stream(INPUT)))
    assert got == notice("es", "monthly_limit")
    assert model.record.prompts == [] and model.record.produced == 0
    assert [(o.reason, o.violations) for o in outcomes] == [("refused", ("monthly_limit",))]
    assert cap.cap.totals().committed == 0 and cap.cap.totals().reserved == 0


def test_a_complete_answer_settles_the_providers_figures(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4), usage="final")
    cap = budget(tmp_path)
    assert answer(list(chain(model, cap).stream(INPUT))) == GOOD
    totals = cap.cap.totals()
    assert totals.reserved == 0 and totals.committed == PRICE.cost(INPUT_TOKENS, len(model.pieces))


def test_a_stopped_answer_settles_the_bytes_received_and_the_prompt_that_was_sent(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 5), usage="none")
    cap = budget(tmp_path)
    user_usage = UsageCallbackHandler()
    got = answer(list(chain(model, cap).stream(INPUT, config={"callbacks": [user_usage]})))
    assert "2019" not in got and not model.record.exhausted and model.record.closed
    received = len(model.record.produced_text.encode())
    assert received < len(BAD.encode())
    assert cap.cap.totals().committed == PRICE.cost(input_bound(model.record.prompts[0]), received)
    assert user_usage.runs[0].usage.output_tokens == received  # the app's own handler agrees


def test_a_reader_who_leaves_early_is_charged_for_what_was_generated(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 3), usage="none")
    cap = budget(tmp_path)
    stream = chain(model, cap).stream(INPUT)
    for chunk in stream:
        if "answer" in chunk:
            break
    stream.close()
    assert model.record.closed and not model.record.exhausted
    received = len(model.record.produced_text.encode())
    assert cap.cap.totals() == type(cap.cap.totals())(PRICE.cost(input_bound(model.record.prompts[0]), received), 0)


async def test_async_streams_settle_once_the_model_run_has_closed(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 5), usage="none")
    cap = budget(tmp_path)
    got = answer([c async for c in chain(model, cap).astream(INPUT)])
    assert "2019" not in got
    received = len(model.record.produced_text.encode())
    assert cap.cap.totals().committed == PRICE.cost(input_bound(model.record.prompts[0]), received)


async def test_async_refusal_never_calls_the_model(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    got = answer([c async for c in chain(model, budget(tmp_path, monthly="0")).astream(INPUT)])
    assert got == notice("en", "monthly_limit") and model.record.prompts == []


async def test_async_reserve_does_not_block_the_event_loop(tmp_path: Path) -> None:
    """The store's calls are blocking I/O (a busy SQLite file, a Redis timeout): on the loop, one slow reserve
    would freeze every other coroutine of the app. Here a coroutine on the same loop must run meanwhile."""
    store = SlowStore(SQLiteStore(tmp_path / "spend.sqlite3"), wait=5.0)
    cap = CallBudget(SpendCap(store, "1", {"m": PRICE}), "m", 400)
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4), usage="none")

    async def releaser() -> None:
        await asyncio.to_thread(store.entered.wait, 5)
        store.release.set()  # runs only if the loop is free while reserve waits

    helper = asyncio.ensure_future(releaser())
    got = answer([c async for c in chain(model, cap).astream(INPUT)])
    await helper
    assert store.released == [True]
    assert got == GOOD and cap.cap.totals().reserved == 0


class CappedFieldModel(ScriptedChatModel):
    max_tokens: int | None = None


def test_a_model_allowed_to_generate_more_than_the_cap_reserves_is_refused(tmp_path: Path) -> None:
    cap = budget(tmp_path)
    with pytest.raises(ValueError, match="max_tokens is None"):
        SourceGate(PROMPT | CappedFieldModel(pieces=["x"]), cap=cap)
    with pytest.raises(ValueError, match="max_tokens is 4096"):
        SourceGate(PROMPT | CappedFieldModel(pieces=["x"], max_tokens=4096), cap=cap)
    SourceGate(PROMPT | CappedFieldModel(pieces=["x"], max_tokens=400), cap=cap)
    with pytest.raises(TypeError, match="CallBudget"):
        SourceGate(PROMPT | ScriptedChatModel(pieces=["x"]), cap=cap.cap)  # type: ignore[arg-type]


def test_without_cap_it_is_the_plain_source_gate(tmp_path: Path) -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    chained = RunnablePassthrough.assign(answer=SourceGate(PROMPT | model, filter_factory=toy_factory))
    assert answer(list(chained.stream(INPUT))) == GOOD


def test_redis_killed_mid_stream_the_reader_still_gets_the_answer_and_no_exception(redis_server) -> None:
    from sluicegate.budget import RedisStore
    from tests.budget.helpers import redis_client

    cap = CallBudget(
        SpendCap(RedisStore(redis_client(redis_server.url), prefix="lc-kill"), "1", {"m": PRICE}), "m", 400
    )
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4), usage="final")
    shown = []
    try:
        for chunk in chain(model, cap).stream(INPUT):
            if "answer" in chunk:
                if not shown:
                    redis_server.stop()  # the store dies while the answer streams
                shown.append(chunk["answer"])
        assert "".join(shown) == GOOD  # the reader saw the whole answer, and no exception
        assert cap.cap.pending_settles == 1 and cap.cap.stats.settle_failures == 1
        assert not cap.reserve("next question").admitted  # and the next call is refused: fail closed
    finally:
        redis_server.start()
