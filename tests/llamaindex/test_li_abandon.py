"""A reader that stops early (`break`) while the Response lives: the LLM stream is closed, not left open."""

from __future__ import annotations

import gc

from li_fakes import ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer
from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse

from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer
from tests.support import toy_factory, wait_closed

INDEX = make_index()
SENTENCE = "Revenue was 5 million in 2018 [S1]. "
LONG = (SENTENCE + "Headcount was 42 [S2]. ") * 30
PIECES = pieces_of(LONG, 3)
BOUND = -(-(2 * len(SENTENCE) + 24) // 3) + 1  # the first sentence read, and at most the next one ahead


def engine(llm: ScriptedLLM):
    inner = get_response_synthesizer(
        llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
    )
    return INDEX.as_query_engine(
        llm=llm, similarity_top_k=2, response_synthesizer=GatedSynthesizer(inner, filter_factory=toy_factory)
    )


def _check(llm: ScriptedLLM, response) -> None:  # type: ignore[no-untyped-def]
    assert llm.record.closed and not llm.record.exhausted
    assert llm.record.produced <= BOUND < len(PIECES)
    assert response.guard.reason == "cancelled" and response.guard.usage is not None


def test_sync_break_on_response_gen_closes_the_llm() -> None:
    llm = ScriptedLLM(pieces=PIECES)
    response = engine(llm).query("q")
    assert isinstance(response, StreamingResponse)
    for text in response.response_gen:
        assert text == SENTENCE
        break
    _check(llm, response)  # the response is still referenced; nothing was garbage-collected
    assert list(response.response_gen) == []  # stopping is for good


def test_sync_full_read_through_llamaindex_helpers() -> None:
    llm = ScriptedLLM(pieces=pieces_of(SENTENCE * 3, 4))
    response = engine(llm).query("q")
    assert str(response) == SENTENCE * 3 and response.guard.reason == "complete" and llm.record.exhausted


async def test_async_break_on_async_response_gen_closes_the_llm() -> None:
    llm = ScriptedLLM(pieces=PIECES)
    response = await engine(llm).aquery("q")
    assert isinstance(response, AsyncStreamingResponse)
    async for text in response.async_response_gen():
        assert text == SENTENCE
        break
    await wait_closed(llm.record)  # the loop finalises the abandoned async generator
    _check(llm, response)


async def test_async_aclose_closes_the_llm() -> None:
    llm = ScriptedLLM(pieces=PIECES)
    response = await engine(llm).aquery("q")
    gen = response.async_response_gen()
    assert await gen.__anext__() == SENTENCE
    await gen.aclose()
    assert response.guard.reason == "cancelled"  # our side is closed at once; LlamaIndex's own wrappers around
    await wait_closed(llm.record)  # the LLM stream do not close through, so the LLM's closes when they are finalised
    _check(llm, response)
    assert (await response.get_response()).response == SENTENCE  # the lock was released: no deadlock


async def test_async_full_read_still_complete() -> None:
    llm = ScriptedLLM(pieces=pieces_of(SENTENCE * 3, 4))
    response = await engine(llm).aquery("q")
    assert "".join([t async for t in response.async_response_gen()]) == SENTENCE * 3
    gc.collect()
    assert response.guard.reason == "complete" and llm.record.exhausted
