"""The adapter contract for LlamaIndex: `PreflightQueryEngine(retriever, GatedSynthesizer(inner, cap=...))` over a
real VectorStoreIndex, sync (`query` -> `response_gen`) and async (`aquery` -> `async_response_gen()`); only
the LLM is scripted."""

from __future__ import annotations

from typing import Any

from li_fakes import ScriptedLLM
from llama_index.core import VectorStoreIndex, get_response_synthesizer
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import TextNode

from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer, PreflightQueryEngine
from tests.adapter_contract import AdapterContract, Case, Ran, aread, read
from tests.call.helpers import SOURCES

INDEX = VectorStoreIndex(
    nodes=[TextNode(id_=f"n{i}", text=t) for i, t in enumerate(SOURCES, start=1)],
    embed_model=MockEmbedding(embed_dim=8),
)


class FailingLLM(ScriptedLLM):
    """The scripted LLM, whose provider connection resets instead of piece `fail_at`."""

    fail_at: int | None = None

    def _responses(self) -> Any:
        for i, item in enumerate(super()._responses()):
            if i == self.fail_at:
                raise ConnectionError("provider went away")
            yield item


def _engine(case: Case) -> tuple[Any, FailingLLM]:
    llm = FailingLLM(pieces=case.pieces, fail_at=case.fail_at)
    inner = get_response_synthesizer(
        llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
    )
    synth = GatedSynthesizer(inner, cap=case.budget)
    if case.question is None:
        return INDEX.as_query_engine(llm=llm, response_synthesizer=synth), llm
    retriever = INDEX.as_retriever(similarity_top_k=1)
    return PreflightQueryEngine(retriever, synth), llm


def _ran(shown: str, llm: FailingLLM) -> Ran:
    return Ran(shown, len(llm.record.prompts), llm.record.closed, llm.record.produced)


class TestLlamaIndexContract(AdapterContract):
    supports_preflight = True

    def run(self, case: Case) -> Ran:
        engine, llm = _engine(case)
        return _ran(read(engine.query(case.question or "q").response_gen, case), llm)


class TestLlamaIndexAsyncContract(AdapterContract):
    supports_preflight = True

    def run(self, case: Case) -> Ran:
        engine, llm = _engine(case)

        async def open_chunks() -> Any:
            return (await engine.aquery(case.question or "q")).async_response_gen()

        return _ran(aread(open_chunks, case), llm)
