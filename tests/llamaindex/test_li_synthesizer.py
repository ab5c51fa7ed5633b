"""GatedSynthesizer through real LlamaIndex query engines over a VectorStoreIndex; only the LLM is scripted.

The plumbing tests use the toy grounding filter from tests/sg_toyfilter.py (it stops on a number found in
none of the numbered sources); test_li_sentence_gate.py runs the same engine over the real SentenceGate.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from li_fakes import NODES, PROMPT_TOKENS, ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer
from llama_index.core.base.response.schema import AsyncStreamingResponse, Response, StreamingResponse
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer, MultiCallModeError, UsageEventHandler
from sluicegate_llamaindex.synthesizer import GuardEvent
from tests.support import (
    NOTICE,
    SHOWN_NOTICE,
    drawn_pieces,
    import_error_without,
    pieces_to_cover,
    toy_factory,
    wait_closed,
)

INDEX = make_index()
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."
BAD_SENTENCE = "It fell to 3 million in 2019 [S1]. "
BAD = "Revenue was 5 million in 2018 [S1]. " + BAD_SENTENCE + "Headcount was 42 [S2]. Done [S2]."
BAD_END = BAD.index(BAD_SENTENCE) + len(BAD_SENTENCE.rstrip())
QUESTION = "How did the company do?"


def synth(llm: ScriptedLLM, *, streaming: bool = True, mode: str = "compact") -> GatedSynthesizer:
    inner = get_response_synthesizer(
        llm=llm, streaming=streaming, response_mode=mode, text_qa_template=GATED_QA_TEMPLATE
    )
    return GatedSynthesizer(inner, filter_factory=toy_factory)


def engine(llm: ScriptedLLM, *, via: str = "as_query_engine", **kw: object):
    if via == "retriever":
        return RetrieverQueryEngine(
            retriever=INDEX.as_retriever(similarity_top_k=2), response_synthesizer=synth(llm, **kw)
        )
    return INDEX.as_query_engine(llm=llm, similarity_top_k=2, response_synthesizer=synth(llm, **kw))


class Events(BaseEventHandler):
    got: list = []

    def handle(self, event, **kw):  # type: ignore[no-untyped-def]
        if isinstance(event, GuardEvent):
            self.got.append(event)


@pytest.fixture
def guard_events():
    handler = Events(got=[])
    root = get_dispatcher()
    root.add_event_handler(handler)
    yield handler.got
    root.event_handlers.remove(handler)


@pytest.mark.parametrize("via", ["retriever", "as_query_engine"])
def test_grounded_answer_sentence_by_sentence_with_numbered_prompt(via: str) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3))
    response = engine(llm, via=via).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    assert list(response.response_gen) == ["Revenue was 5 million in 2018 [S1]. ", "Headcount was 42 [S2]."]
    # source_nodes are the original nodes (no label), and [Si] in the prompt is source_nodes[i-1]
    ids = [n.node.node_id for n in response.source_nodes]
    assert sorted(ids) == ["n1", "n2"]
    prompt = llm.record.prompts[0]
    for i, node in enumerate(response.source_nodes, start=1):
        assert node.node.get_content() == NODES[node.node.node_id]
        assert f"[S{i}] {NODES[node.node.node_id]}" in prompt
    assert response.guard.reason == "complete" and llm.record.exhausted


@pytest.mark.parametrize("size", [1, 3, 7])
def test_stop_sync_withholds_planted_value_and_closes_llm(size: int, guard_events: list) -> None:
    pieces = pieces_of(BAD, size)
    llm = ScriptedLLM(pieces=pieces)
    response = engine(llm).query(QUESTION)
    seen = [(chunk, llm.record.closed) for chunk in response.response_gen]
    assert [c for c, _ in seen] == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    assert not any("2019" in c or "3 million" in c for c, _ in seen)
    assert seen[-1][1], "the LLM stream must be closed before the notice reaches the consumer"
    assert llm.record.produced <= pieces_to_cover(pieces, BAD_END) + 1 and not llm.record.exhausted
    assert response.guard.reason == "stopped" and response.guard.violations == ("3",)
    assert [(e.reasons, e.notice) for e in guard_events] == [(["forbidden_word"], NOTICE)]
    assert len(response.source_nodes) == 2


@pytest.mark.parametrize("size", [1, 3, 7])
async def test_stop_async_withholds_planted_value_and_closes_llm(size: int) -> None:
    pieces = pieces_of(BAD, size)
    llm = ScriptedLLM(pieces=pieces)
    response = await engine(llm, via="retriever").aquery(QUESTION)
    assert isinstance(response, AsyncStreamingResponse)
    chunks = [c async for c in response.async_response_gen()]
    assert chunks == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    await wait_closed(llm.record)
    assert llm.record.produced <= pieces_to_cover(pieces, BAD_END) + 1 and not llm.record.exhausted
    assert response.guard.reason == "stopped"


async def test_async_clean_answer() -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 4))
    response = await engine(llm).aquery(QUESTION)
    assert [c async for c in response.async_response_gen()] == [
        "Revenue was 5 million in 2018 [S1]. ",
        "Headcount was 42 [S2].",
    ]
    assert response.guard.reason == "complete"


def test_consumer_closing_response_gen_closes_llm() -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 2))
    response = engine(llm).query(QUESTION)
    assert next(response.response_gen) == "Revenue was 5 million in 2018 [S1]. "
    response.response_gen.close()
    assert llm.record.closed and not llm.record.exhausted and response.guard.reason == "cancelled"


def test_non_streaming_inner_is_gated_whole() -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 3))
    response = engine(llm, streaming=False).query(QUESTION)
    assert isinstance(response, Response)
    assert response.response == "Revenue was 5 million in 2018 [S1]. " + SHOWN_NOTICE


def test_simple_summarize_mode() -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 3))
    response = engine(llm, mode="simple_summarize").query(QUESTION)
    assert "".join(response.response_gen) == "Revenue was 5 million in 2018 [S1]. " + SHOWN_NOTICE


def test_multi_call_modes_are_refused() -> None:
    llm = ScriptedLLM(pieces=["x"])
    for mode in ("tree_summarize", "accumulate", "compact_accumulate", "generation"):
        with pytest.raises(MultiCallModeError, match="single-call"):
            GatedSynthesizer(get_response_synthesizer(llm=llm, response_mode=mode, streaming=True))
    # compact whose texts do not fit one prompt would refine over several calls: refused before any call
    small = ScriptedLLM(pieces=["x"], context_window=1000)
    long_nodes = [NodeWithScore(node=TextNode(id_=f"L{i}", text="Revenue was 5 million. " * 150)) for i in range(2)]
    with pytest.raises(MultiCallModeError, match="would make"):
        synth(small).synthesize(QUESTION, nodes=long_nodes)
    assert small.record.prompts == []
    assert "".join(synth(small, mode="simple_summarize").synthesize(QUESTION, nodes=long_nodes).response_gen) == "x"
    with pytest.raises(MultiCallModeError, match="would make"):
        engine(ScriptedLLM(pieces=["x"]), mode="refine").query(QUESTION)  # refine: one call per node


# --- usage of stopped streams through instrumentation ---------------------------------------------------------


@pytest.fixture
def usage_handler():
    handler = UsageEventHandler()
    root = get_dispatcher()
    root.add_event_handler(handler)
    yield handler
    root.event_handlers.remove(handler)


@pytest.mark.parametrize("usage", ["each", "final", "none"])
def test_stopped_stream_usage_is_provider_figure_or_byte_estimate(usage: str, usage_handler: UsageEventHandler) -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 3), usage=usage)
    response = engine(llm).query(QUESTION)
    assert "".join(response.response_gen).endswith(NOTICE)
    assert not llm.record.exhausted
    (call,) = usage_handler.calls
    assert call.ended == "error"  # the LLM span ends with ExceptionEvent(GeneratorExit) on a stop
    if usage == "each":  # running provider total: one token per piece produced so far
        expected = (llm.record.produced, "provider", PROMPT_TOKENS)
    else:
        expected = (len(llm.record.produced_text.encode()), "estimate", None)
    assert (call.usage.output_tokens, call.usage.source, call.usage.input_tokens) == expected
    guard_usage = response.guard.usage
    assert (guard_usage.output_tokens, guard_usage.source, guard_usage.input_tokens) == expected


def test_completed_stream_usage_is_provider_figure(usage_handler: UsageEventHandler) -> None:
    llm = ScriptedLLM(pieces=pieces_of(GOOD, 3), usage="final")
    response = engine(llm).query(QUESTION)
    "".join(response.response_gen)
    (call,) = usage_handler.calls
    assert (call.ended, call.usage.output_tokens, call.usage.source) == ("end", len(llm.pieces), "provider")


async def test_stopped_async_stream_usage(usage_handler: UsageEventHandler) -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 3), usage="each")
    response = await engine(llm).aquery(QUESTION)
    _ = [c async for c in response.async_response_gen()]
    await wait_closed(llm.record)
    assert (response.guard.usage.output_tokens, response.guard.usage.source) == (llm.record.produced, "provider")


# --- chunk invariance through the engine ----------------------------------------------------------------------


def reader_text(pieces: list[str]) -> str:
    return "".join(engine(ScriptedLLM(pieces=pieces)).query(QUESTION).response_gen)


async def areader_text(pieces: list[str]) -> str:
    response = await engine(ScriptedLLM(pieces=pieces)).aquery(QUESTION)
    return "".join([c async for c in response.async_response_gen()])


@pytest.mark.parametrize("text", [GOOD, BAD])
async def test_piece_sizes_give_identical_reader_text(text: str) -> None:
    whole = reader_text([text])
    for size in (1, 3, 7):
        assert reader_text(pieces_of(text, size)) == whole
        assert await areader_text(pieces_of(text, size)) == whole


@given(st.data(), st.sampled_from([GOOD, BAD]))
def test_hypothesis_chunkings_give_identical_reader_text(data: st.DataObject, text: str) -> None:
    assert reader_text(drawn_pieces(data, text, max_cuts=25)) == reader_text([text])


def test_import_without_the_extra_names_it() -> None:
    assert 'pip install "sluicegate[llamaindex]"' in import_error_without("llama_index.core", "sluicegate_llamaindex")
