"""A LlamaIndex query engine whose streamed answer passes the sluicegate SentenceGate, offline.

A VectorStoreIndex over three nodes with MockEmbedding, and a scripted LLM that streams the planted answer of
examples/_show.py in small pieces (one sentence cites a figure that is in no source). Prints what the reader
sees, how far the LLM got before the gate closed its stream, and the guard outcome on the response.

    pip install "sluicegate[llamaindex]"
    python examples/llamaindex_gate.py
"""

from __future__ import annotations

from typing import Any

from _show import PLANTED, QUESTION, SOURCES, pieces
from llama_index.core import VectorStoreIndex, get_response_synthesizer
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.schema import TextNode

from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer, UsageEventHandler

ANSWER = PLANTED  # its third sentence cites [S1] for a figure in no source


class ScriptedLLM(CustomLLM):
    """Streams ANSWER in 5-character pieces and counts them (a stand-in for a real provider)."""

    produced: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=4096, num_output=256, model_name="scripted")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
        return CompletionResponse(text=ANSWER)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponseGen:
        def gen() -> CompletionResponseGen:
            text = ""
            for piece in pieces(ANSWER, 5):
                self.produced += 1
                text += piece
                yield CompletionResponse(text=text, delta=piece)

        return gen()


nodes = [TextNode(id_=key, text=text) for key, text in zip(("a-hours", "b-fees", "c-desk"), SOURCES, strict=True)]
index = VectorStoreIndex(nodes=nodes, embed_model=MockEmbedding(embed_dim=8))  # fixed ids: stable order
llm = ScriptedLLM()
inner = get_response_synthesizer(llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE)
engine = index.as_query_engine(llm=llm, similarity_top_k=3, response_synthesizer=GatedSynthesizer(inner))

if __name__ == "__main__":
    usage = UsageEventHandler()
    get_dispatcher().add_event_handler(usage)
    response = engine.query(QUESTION)
    print("reader sees:")
    for chunk in response.response_gen:
        print(f"  {chunk!r}")
    print(f"LLM pieces produced: {llm.produced} of {len(pieces(ANSWER, 5))}")
    print(f"outcome: {response.guard.reason}, reasons: {response.guard.guard.reasons if response.guard.guard else ()}")
    print("sources:", [f"[S{i}] {n.node.node_id}" for i, n in enumerate(response.source_nodes, start=1)])
    for call in usage.calls:
        print(f"usage: {call.usage.output_tokens} output tokens ({call.usage.source}), call ended by {call.ended}")
