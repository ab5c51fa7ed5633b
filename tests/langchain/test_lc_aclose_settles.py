"""Issue 11, LangChain: the README chain read with `astream`, left after the first chunk with `aclose()`.

With `sluicegate_langchain.assign(answer=SourceGate(...))` the model is closed and the usage record and
`on_outcome` are settled when `aclose()` returns, with no asyncio error logged. LangChain's own
`RunnablePassthrough.assign` leaves its steps to the event loop's finaliser: pinned (it settles, later)."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from lc_fakes import ScriptedChatModel

from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate, UsageCallbackHandler, assign
from tests.support import SHOWN_NOTICE, toy_factory, wait_closed

PROMPT = ChatPromptTemplate.from_messages([("system", "Sources:\n{context}"), ("human", "{question}")])
SOURCES = ["Revenue was 5 million in 2018.", "Headcount was 42 in 2018."]
GOOD = "Revenue was 5 million in 2018 [S1]. " + "Headcount was 42 [S2]. " * 30
BAD = "Revenue was 5 million in 2018 [S1]. It fell in 2019 [S1]. " + "Headcount was 42 [S2]. " * 30
INPUT = {"question": "q", "sources": SOURCES}


def _errors(loop: asyncio.AbstractEventLoop) -> list[dict]:
    seen: list[dict] = []
    loop.set_exception_handler(lambda _loop, context: seen.append(context))
    return seen


@pytest.mark.parametrize("reads", [1, 2, 3])
async def test_aclose_of_the_readme_chain_closes_the_model_and_settles_the_record(reads: int) -> None:
    errors = _errors(asyncio.get_running_loop())
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 5), usage="none")
    handler, outcomes = UsageCallbackHandler(), []
    chain = assign(answer=SourceGate(PROMPT | model, filter_factory=toy_factory, on_outcome=outcomes.append))
    agen = chain.astream(INPUT, config={"callbacks": [handler]})
    got = 0
    async for chunk in agen:
        got += "answer" in chunk
        if got >= reads:
            break
    await agen.aclose()
    assert model.record.closed and not model.record.exhausted  # no loop turn needed
    (run,) = handler.runs
    assert run.ended == "error" and run.usage.output_tokens == len(model.record.produced_text.encode())
    assert [o.reason for o in outcomes] == ["cancelled"]
    for _ in range(50):
        await asyncio.sleep(0)
    assert errors == []


async def test_assign_streams_what_runnable_passthrough_assign_streams() -> None:
    def chain(wrap):
        model = ScriptedChatModel(pieces=pieces_of(BAD, 4), usage="none")
        return wrap(answer=SourceGate(PROMPT | model, filter_factory=toy_factory))

    ours = [c async for c in chain(assign).astream(INPUT)]
    stock = [c async for c in chain(RunnablePassthrough.assign).astream(INPUT)]
    assert ours == stock
    assert "".join(c.get("answer", "") for c in ours) == "Revenue was 5 million in 2018 [S1]. " + SHOWN_NOTICE
    assert chain(assign).invoke(INPUT) == chain(RunnablePassthrough.assign).invoke(INPUT)
    assert list(chain(assign).stream(INPUT)) == list(chain(RunnablePassthrough.assign).stream(INPUT))


async def test_stock_assign_leaves_the_close_to_the_loop_finaliser() -> None:
    """The blind spot `assign` fixes: with LangChain's own class the record comes some loop turns later."""
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 5), usage="none")
    handler = UsageCallbackHandler()
    chain = RunnablePassthrough.assign(answer=SourceGate(PROMPT | model, filter_factory=toy_factory))
    agen = chain.astream(INPUT, config={"callbacks": [handler]})
    async for chunk in agen:
        if "answer" in chunk:
            break
    await agen.aclose()
    assert not model.record.closed  # not yet: LangChain's generators are finalised by the loop
    assert await wait_closed(model.record) > 0
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(handler.runs) == 1


async def test_aclose_of_astream_events_closes_the_model_too() -> None:
    errors = _errors(asyncio.get_running_loop())
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 5), usage="none")
    handler = UsageCallbackHandler()
    chain = assign(answer=SourceGate(PROMPT | model, filter_factory=toy_factory))
    agen = chain.astream_events(INPUT, version="v2", config={"callbacks": [handler]})
    async for event in agen:
        if event["event"] == "on_chain_stream" and event["name"] == "SourceGate":
            break
    await agen.aclose()
    assert model.record.closed and len(handler.runs) == 1
    for _ in range(50):
        await asyncio.sleep(0)
    assert errors == []
