"""SourceGate in a real LCEL RAG chain; only the chat model is scripted.

The plumbing tests use the toy grounding filter from tests/sg_toyfilter.py (it stops on a number found in
none of the numbered sources); tests/langchain/test_lc_sentence_gate.py runs the same chain over the real
SentenceGate.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableGenerator, RunnableLambda, RunnablePassthrough
from lc_fakes import INPUT_TOKENS, Record, ScriptedChatModel

from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate, UsageCallbackHandler
from tests.support import NOTICE, SHOWN_NOTICE, drawn_pieces, pieces_to_cover, toy_factory, wait_closed

PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer only from the numbered sources; cite them as [S1].\n\n{context}"), ("human", "{question}")]
)
SOURCES = [Document(page_content="Revenue was 5 million in 2018."), "Headcount was 42 in 2018."]
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]. Both figures are from 2018 [S1][S2]."
BAD_SENTENCE = "It fell to 3 million in 2019 [S1]. "
BAD = "Revenue was 5 million in 2018 [S1]. " + BAD_SENTENCE + "Headcount was 42 [S2]. Done [S2]."
INPUT = {"question": "How did the company do?", "sources": SOURCES}


def rag(model: ScriptedChatModel, **kw: object):
    gate = SourceGate(PROMPT | model, filter_factory=toy_factory, **kw)
    return RunnablePassthrough.assign(answer=gate)


def answer_chunks(chunks: list[dict]) -> list[str]:
    return [c["answer"] for c in chunks if "answer" in c]


BAD_END = BAD.index(BAD_SENTENCE) + len(BAD_SENTENCE.rstrip())


def test_not_built_on_draining_shapes() -> None:
    gate = SourceGate(PROMPT | ScriptedChatModel(pieces=["x"]), filter_factory=toy_factory)
    assert not isinstance(gate, (RunnableGenerator, BaseTransformOutputParser))


def test_grounded_answer_streams_sentence_by_sentence_and_prompt_is_numbered() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 3))
    chunks = list(rag(model).stream(INPUT))
    assert answer_chunks(chunks) == [
        "Revenue was 5 million in 2018 [S1]. ",
        "Headcount was 42 [S2]. ",
        "Both figures are from 2018 [S1][S2].",
    ]
    prompt = model.record.prompts[0]
    assert "[S1] Revenue was 5 million in 2018.\n\n[S2] Headcount was 42 in 2018." in prompt
    assert model.record.exhausted and model.record.closed


@pytest.mark.parametrize("size", [1, 3, 7])
def test_stop_sync_withholds_planted_value_and_closes_model_at_once(size: int) -> None:
    pieces = pieces_of(BAD, size)
    model = ScriptedChatModel(pieces=pieces)
    received: list[tuple[str, bool, int]] = []
    for chunk in rag(model).stream(INPUT):
        if "answer" in chunk:
            received.append((chunk["answer"], model.record.closed, model.record.produced))
    texts = [t for t, _, _ in received]
    assert texts == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    assert not any("2019" in t or "3 million" in t for t in texts)
    notice_closed, notice_produced = received[-1][1], received[-1][2]
    assert notice_closed, "the model stream must be closed before the notice reaches the consumer"
    assert notice_produced == model.record.produced <= pieces_to_cover(pieces, BAD_END) + 1
    assert not model.record.exhausted


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_stop_async_withholds_planted_value_and_closes_model_promptly(size: int) -> None:
    pieces = pieces_of(BAD, size)
    model = ScriptedChatModel(pieces=pieces)
    texts = [c["answer"] async for c in rag(model).astream(INPUT) if "answer" in c]
    assert texts == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    await wait_closed(model.record)
    assert model.record.produced <= pieces_to_cover(pieces, BAD_END) + 1
    assert not model.record.exhausted


def test_invoke_and_batch() -> None:
    good, bad = ScriptedChatModel(pieces=pieces_of(GOOD, 5)), ScriptedChatModel(pieces=pieces_of(BAD, 5))
    gate_good = SourceGate(PROMPT | good, filter_factory=toy_factory)
    assert gate_good.invoke(INPUT) == GOOD
    gate_bad = SourceGate(PROMPT | bad, filter_factory=toy_factory)
    assert gate_bad.invoke(INPUT) == "Revenue was 5 million in 2018 [S1]. " + SHOWN_NOTICE
    # invoke streams underneath, so the stop cancelled the generation here too
    assert bad.record.produced <= pieces_to_cover(pieces_of(BAD, 5), BAD_END) + 1 and not bad.record.exhausted
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    out = rag(model).batch([INPUT, {**INPUT, "question": "again"}])
    assert [o["answer"] for o in out] == [GOOD, GOOD]


async def test_ainvoke_and_abatch() -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 4))
    gate = SourceGate(PROMPT | model, filter_factory=toy_factory)
    assert await gate.ainvoke(INPUT) == "Revenue was 5 million in 2018 [S1]. " + SHOWN_NOTICE
    out = await rag(ScriptedChatModel(pieces=pieces_of(GOOD, 4))).abatch([INPUT, INPUT])
    assert [o["answer"] for o in out] == [GOOD, GOOD]


def test_consumer_break_closes_model_sync() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 2))
    stream = rag(model).stream(INPUT)
    for chunk in stream:
        if "answer" in chunk:
            break
    stream.close()
    assert model.record.closed and not model.record.exhausted


async def test_astream_events_gate_output_is_clean_and_guard_event_fires() -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 3))
    events = [e async for e in rag(model).astream_events(INPUT, version="v2")]
    gate_out = [e["data"]["chunk"] for e in events if e["event"] == "on_chain_stream" and e["name"] == "SourceGate"]
    assert gate_out == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    guards = [e for e in events if e["event"] == "on_custom_event" and e["name"] == "guard"]
    assert len(guards) == 1 and guards[0]["data"] == {"reasons": ["forbidden_word"], "notice": NOTICE}
    raw = [e for e in events if e["event"] == "on_chat_model_stream"]
    # documented blind spot: raw tokens still reach on_chat_model_stream, tagged so a UI can drop them
    assert "2019" in "".join(e["data"]["chunk"].text for e in raw)
    assert all("gate:unverified" in e["tags"] for e in raw)
    await wait_closed(model.record)


def test_missing_or_bad_sources_are_clear_errors() -> None:
    gate = SourceGate(PROMPT | ScriptedChatModel(pieces=["x"]), filter_factory=toy_factory)
    with pytest.raises(ValueError, match="sources"):
        gate.invoke({"question": "q"})
    with pytest.raises(TypeError, match="source must be"):
        gate.invoke({"question": "q", "sources": [42]})


def test_outcome_is_reported() -> None:
    seen = []
    model = ScriptedChatModel(pieces=pieces_of(BAD, 6), usage="none")
    SourceGate(PROMPT | model, filter_factory=toy_factory, on_outcome=seen.append).invoke(INPUT)
    (outcome,) = seen
    assert outcome.reason == "stopped" and outcome.violations == ("3",)  # "3 million" is in no source
    assert outcome.usage.source == "estimate"
    assert outcome.usage.output_tokens == len(model.record.produced_text.encode())


# --- usage of stopped streams ---------------------------------------------------------------------------------


@pytest.mark.parametrize("usage", ["each", "final", "none"])
def test_stopped_stream_usage_is_provider_figure_or_byte_estimate(usage: str) -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 3), usage=usage)
    handler = UsageCallbackHandler()
    outcomes = []
    gate = SourceGate(PROMPT | model, filter_factory=toy_factory, on_outcome=outcomes.append)
    list(gate.stream(INPUT, config={"callbacks": [handler]}))
    assert not model.record.exhausted
    (run,) = handler.runs
    assert run.ended == "error"  # LangChain ends a stopped model run with on_llm_error(GeneratorExit)
    if usage == "each":  # the provider reported one token per piece, and input tokens once
        expected = (model.record.produced, "provider", INPUT_TOKENS)
    else:  # the final usage chunk never came: one token per UTF-8 byte of what was generated
        expected = (len(model.record.produced_text.encode()), "estimate", None)
    assert (run.usage.output_tokens, run.usage.source, run.usage.input_tokens) == expected
    assert (outcomes[0].usage.output_tokens, outcomes[0].usage.source) == expected[:2]
    assert handler.output_tokens == expected[0]


def test_completed_stream_usage_is_the_provider_figure() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 3), usage="final")
    handler = UsageCallbackHandler()
    list(SourceGate(PROMPT | model, filter_factory=toy_factory).stream(INPUT, config={"callbacks": [handler]}))
    (run,) = handler.runs
    assert (run.ended, run.usage.output_tokens, run.usage.source) == ("end", len(model.pieces), "provider")


def test_usage_handler_counts_plain_invoke() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 3), usage="none")
    handler = UsageCallbackHandler()
    (PROMPT | model).invoke({"question": "q", "context": ""}, config={"callbacks": [handler]})
    (run,) = handler.runs
    assert (run.usage.output_tokens, run.usage.source) == (len(GOOD.encode()), "estimate")


async def test_stopped_astream_usage() -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 3), usage="final")
    handler = UsageCallbackHandler()
    _ = [
        c async for c in SourceGate(PROMPT | model, filter_factory=toy_factory).astream(INPUT, {"callbacks": [handler]})
    ]
    await wait_closed(model.record)
    for _ in range(500):  # the model run's on_llm_error lands when its generator is finalized (eventually)
        if handler.runs:
            break
        await __import__("asyncio").sleep(0.01)
    (run,) = handler.runs
    assert (run.usage.output_tokens, run.usage.source) == (len(model.record.produced_text.encode()), "estimate")


# --- chunk invariance through the adapter ---------------------------------------------------------------------


def reader_text(pieces: list[str]) -> str:
    return "".join(SourceGate(PROMPT | ScriptedChatModel(pieces=pieces), filter_factory=toy_factory).stream(INPUT))


async def areader_text(pieces: list[str]) -> str:
    gate = SourceGate(PROMPT | ScriptedChatModel(pieces=pieces), filter_factory=toy_factory)
    return "".join([c async for c in gate.astream(INPUT)])


@pytest.mark.parametrize("text", [GOOD, BAD])
async def test_model_piece_sizes_give_identical_reader_text(text: str) -> None:
    whole = reader_text([text])
    for size in (1, 3, 7):
        assert reader_text(pieces_of(text, size)) == whole
        assert await areader_text(pieces_of(text, size)) == whole


def _chunking(data: st.DataObject, text: str) -> list[str]:
    return drawn_pieces(data, text, max_cuts=25)


@given(st.data(), st.sampled_from([GOOD, BAD]))
def test_hypothesis_chunkings_give_identical_reader_text(data: st.DataObject, text: str) -> None:
    assert reader_text(_chunking(data, text)) == reader_text([text])


def test_record_helper_is_honest() -> None:
    # the fake's counters are what the closure assertions rely on: check them against a plain full stream
    model = ScriptedChatModel(pieces=["a", "b", "c"])
    list(RunnableLambda(lambda x: x) | model).__class__  # noqa: B018 - building the chain must not call the model
    assert model.record == Record()
    list(model.stream("hi"))
    assert (model.record.produced, model.record.exhausted, model.record.closed) == (3, True, True)
