"""GatedSynthesizer(cap=...) through a real LlamaIndex query engine over a real SQLite store; only the LLM is
scripted."""

from __future__ import annotations

import asyncio
from pathlib import Path

from li_fakes import PROMPT_TOKENS, ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer

from sluicegate._notices import notice
from sluicegate.budget import CallBudget, Price, SpendCap, SQLiteStore
from sluicegate.budget._bound import MESSAGE_OVERHEAD_TOKENS
from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer
from tests.budget.helpers import SlowStore
from tests.support import toy_factory

INDEX = make_index()
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."
BAD = "Revenue was 5 million in 2018 [S1]. It fell to 3 million in 2019 [S1]. Headcount was 42 [S2]. Done [S2]."
QUESTION = "How did the company do?"
PRICE = Price("1", "4")


def budget(tmp_path: Path, monthly: str = "1", language: str = "en") -> CallBudget:
    cap = SpendCap(SQLiteStore(tmp_path / "spend.sqlite3"), monthly, {"scripted": PRICE}, language=language)
    return CallBudget(cap, "scripted", 64)


def engine(llm: ScriptedLLM, cap: CallBudget, *, streaming: bool = True):
    inner = get_response_synthesizer(
        llm=llm, streaming=streaming, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
    )
    synth = GatedSynthesizer(inner, filter_factory=toy_factory, cap=cap)
    return INDEX.as_query_engine(llm=llm, similarity_top_k=2, response_synthesizer=synth)


def test_refused_is_the_notice_and_the_llm_is_never_called(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3))
    cap = budget(tmp_path, monthly="0", language="ru")
    response = engine(llm, cap).query(QUESTION)
    assert "".join(response.response_gen) == notice("ru", "monthly_limit")
    assert llm.record.prompts == [] and response.guard.reason == "refused"
    assert response.guard.violations == ("monthly_limit",)
    assert len(response.source_nodes) == 2  # retrieval still ran; only the LLM call was refused


def test_a_complete_stream_settles_the_providers_figures(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3), usage="each")
    cap = budget(tmp_path)
    response = engine(llm, cap).query(QUESTION)
    assert "".join(response.response_gen) == GOOD
    assert cap.cap.totals().committed == PRICE.cost(PROMPT_TOKENS, len(llm.pieces)) and cap.cap.totals().reserved == 0


def test_a_stopped_stream_settles_the_bytes_received_over_a_bound_that_covered_the_prompt(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 4), usage="none")
    cap = budget(tmp_path)
    response = engine(llm, cap).query(QUESTION)
    shown = "".join(response.response_gen)
    assert "2019" not in shown and response.guard.reason == "stopped" and not llm.record.exhausted
    received = len(llm.record.produced_text.encode())
    sent = len(llm.record.prompts[0].encode())
    charged_input = input_charged(cap.cap.totals().committed, received)
    # the input charged is the reservation's bound: never below what was sent (+ one message's framing and the
    # reply primer), and above it only by the join separators the bound assumes
    assert sent + 2 * MESSAGE_OVERHEAD_TOKENS <= charged_input <= sent + 2 * MESSAGE_OVERHEAD_TOKENS + 4


def input_charged(committed: int, received: int) -> int:
    """Invert the price (1 and 4 per million: 1000 and 4000 nano-units per token) for the input tokens charged."""
    input_nano = committed - 4000 * received
    assert input_nano % 1000 == 0
    return input_nano // 1000


def test_a_reader_who_stops_reading_is_charged_for_what_was_generated(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3), usage="none")
    cap = budget(tmp_path)
    response = engine(llm, cap).query(QUESTION)
    for _ in response.response_gen:
        break
    assert llm.record.closed and not llm.record.exhausted
    received = len(llm.record.produced_text.encode())
    assert input_charged(cap.cap.totals().committed, received) > 0 and cap.cap.totals().reserved == 0


async def test_async_streams_settle_when_they_end(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 4), usage="none")
    cap = budget(tmp_path)
    response = await engine(llm, cap).aquery(QUESTION)
    shown = "".join([t async for t in response.async_response_gen()])
    assert "2019" not in shown
    assert cap.cap.totals().committed > 0 and cap.cap.totals().reserved == 0


async def test_async_refusal(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3))
    response = await engine(llm, budget(tmp_path, monthly="0")).aquery(QUESTION)
    assert "".join([t async for t in response.async_response_gen()]) == notice("en", "monthly_limit")
    assert llm.record.prompts == []


async def test_async_reserve_does_not_block_the_event_loop(tmp_path: Path) -> None:
    """The store's calls are blocking I/O: on the loop, one slow reserve would freeze every other coroutine."""
    store = SlowStore(SQLiteStore(tmp_path / "spend.sqlite3"), wait=5.0)
    cap = CallBudget(SpendCap(store, "1", {"scripted": PRICE}), "scripted", 64)
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3), usage="none")

    async def releaser() -> None:
        await asyncio.to_thread(store.entered.wait, 5)
        store.release.set()  # runs only if the loop is free while reserve waits

    helper = asyncio.ensure_future(releaser())
    response = await engine(llm, cap).aquery(QUESTION)
    shown = "".join([t async for t in response.async_response_gen()])
    await helper
    assert store.released == [True]
    assert shown == GOOD and cap.cap.totals().reserved == 0


def test_non_streaming_settles_at_once(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3), usage="none")
    cap = budget(tmp_path)
    response = engine(llm, cap, streaming=False).query(QUESTION)
    assert str(response) == GOOD and cap.cap.totals().reserved == 0 and cap.cap.totals().committed > 0


def test_the_bound_covers_the_prompt_sent_with_llamaindexs_default_selector_template(tmp_path: Path) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3), usage="none")
    cap = budget(tmp_path)
    inner = get_response_synthesizer(llm=llm, streaming=True, response_mode="compact")  # default templates
    engine = INDEX.as_query_engine(
        llm=llm, similarity_top_k=2, response_synthesizer=GatedSynthesizer(inner, filter_factory=toy_factory, cap=cap)
    )
    "".join(engine.query(QUESTION).response_gen)
    received = len(llm.record.produced_text.encode())
    sent = len(llm.record.prompts[0].encode())
    assert input_charged(cap.cap.totals().committed, received) >= sent + 2 * MESSAGE_OVERHEAD_TOKENS
