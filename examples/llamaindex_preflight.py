"""LlamaIndex, offline: PreflightQueryEngine over a QueryFusionRetriever (dense + raw keyword legs), reading
each leg's own score before fusion; the gated synthesizer's LLM is scripted and counts its calls.

    pip install "sluicegate[llamaindex]"
    python examples/llamaindex_preflight.py
"""

from __future__ import annotations

from typing import Any

from _preflight_show import ANSWER, QUESTIONS, SOURCES
from _show import pieces
from llama_index.core import VectorStoreIndex, get_response_synthesizer
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.llms.types import CompletionResponse, LLMMetadata
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from sluicegate.evidence import HashingEmbedding
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer, PreflightQueryEngine, ScoredLeg


class HashingEmbed(BaseEmbedding):
    def _get_query_embedding(self, query: str) -> list[float]:
        return HashingEmbedding(2048).embed(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return HashingEmbedding(2048).embed(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class KeywordLeg(BaseRetriever):
    """A keyword leg with raw, unbounded scores, as BM25 reports them (never usable as evidence)."""

    def __init__(self, nodes: list[TextNode]) -> None:
        self.nodes = nodes
        super().__init__()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        words = set(query_bundle.query_str.lower().split())
        hits = [(sum(w in n.text.lower() for w in words) * 2.5, n) for n in self.nodes]
        return [NodeWithScore(node=n, score=s) for s, n in hits if s > 0]


class ScriptedLLM(CustomLLM):
    calls: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4096, num_output=64, model_name="scripted")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.calls += 1
        return CompletionResponse(text=ANSWER)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
        self.calls += 1
        text = ""

        def gen():
            nonlocal text
            for piece in pieces(ANSWER, 5):
                text += piece
                yield CompletionResponse(text=text, delta=piece)

        return gen()


nodes = [TextNode(id_=f"s{i}", text=t) for i, t in enumerate(SOURCES, start=1)]
index = VectorStoreIndex(nodes=nodes, embed_model=HashingEmbed())
llm = ScriptedLLM()
legs = [ScoredLeg(index.as_retriever(similarity_top_k=3), kind="cosine"), ScoredLeg(KeywordLeg(nodes), kind="bm25_raw")]
fusion = QueryFusionRetriever(legs, mode="reciprocal_rerank", num_queries=1, use_async=False, llm=llm)
inner = get_response_synthesizer(llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE)
engine = PreflightQueryEngine(fusion, GatedSynthesizer(inner))

if __name__ == "__main__":
    for label, question in QUESTIONS:
        before = llm.calls
        response = engine.query(question)
        shown = "".join(response.response_gen)
        decision = response.decision
        print(f"{label}: {question!r}")
        print(f"  reader sees: {shown!r}")
        print(f"  decision: {decision.log()}")
        print(f"  LLM calls: {llm.calls - before}")
