"""Retrieval that finds nothing: the reader gets the gate's refusal, not LlamaIndex's "Empty Response", and
`response.guard` says so ("refused", no LLM call, zero usage)."""

from __future__ import annotations

import pytest
from li_fakes import ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer
from llama_index.core.postprocessor import SimilarityPostprocessor

from sluicegate import SentenceGate
from sluicegate.sources import gate_factory
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer

INDEX = make_index()
REFUSAL = SentenceGate([]).refusal_text


def engine(llm: ScriptedLLM, streaming: bool, **kw: object):
    inner = get_response_synthesizer(
        llm=llm, streaming=streaming, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
    )
    return INDEX.as_query_engine(
        llm=llm,
        similarity_top_k=2,
        response_synthesizer=GatedSynthesizer(inner, **kw),
        node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=2.0)],  # nothing passes the cutoff
    )


def _check(llm: ScriptedLLM, response, text: str, refusal: str = REFUSAL) -> None:  # type: ignore[no-untyped-def]
    assert text == refusal and "Empty Response" not in text
    assert response.guard.reason == "refused" and response.guard.released == refusal
    assert response.guard.usage is not None and response.guard.usage.output_tokens == 0
    assert llm.record.prompts == [] and response.source_nodes == []


@pytest.mark.parametrize("streaming", [True, False])
def test_sync_empty_retrieval_is_the_gates_refusal(streaming: bool) -> None:
    llm = ScriptedLLM(pieces=["The CEO said revenue hit 99 million in 2031."])
    response = engine(llm, streaming).query("q")
    text = "".join(response.response_gen) if streaming else response.response
    _check(llm, response, text)


@pytest.mark.parametrize("streaming", [True, False])
async def test_async_empty_retrieval_is_the_gates_refusal(streaming: bool) -> None:
    llm = ScriptedLLM(pieces=["The CEO said revenue hit 99 million in 2031."])
    response = await engine(llm, streaming).aquery("q")
    text = "".join([t async for t in response.async_response_gen()]) if streaming else response.response
    _check(llm, response, text)


def test_refusal_text_of_a_gate_inside_a_pipeline() -> None:
    llm = ScriptedLLM(pieces=["x"])
    factory = gate_factory(redact=True, refusal_text="Nothing in the library covers that.")
    response = engine(llm, True, filter_factory=factory).query("q")
    _check(llm, response, "".join(response.response_gen), "Nothing in the library covers that.")
