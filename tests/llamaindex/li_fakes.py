"""A scripted streaming LLM (the only fake in the LlamaIndex tests) and a small offline index.

The LLM records its prompts, how many pieces it produced, whether its generator ran to the end and whether it
was closed. usage="each": `raw` carries a running provider total on every piece; "final": only on a last empty
piece (which a stopped stream never reaches); "none": never.
"""

from __future__ import annotations

from typing import Any, Literal

from llama_index.core import VectorStoreIndex
from llama_index.core.base.llms.types import (
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.schema import TextNode

from tests.support import Record

PROMPT_TOKENS = 17
NODES = {
    "n1": "Revenue was 5 million in 2018.",
    "n2": "Headcount was 42 in 2018.",
}


class ScriptedLLM(CustomLLM):
    pieces: list[str]
    usage: Literal["each", "final", "none"] = "none"
    context_window: int = 4096
    record: Any = None

    def model_post_init(self, __context: Any) -> None:
        self.record = Record()

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=64, model_name="scripted")

    def _raw(self, n: int) -> dict[str, Any] | None:
        return {"usage": {"completion_tokens": n, "prompt_tokens": PROMPT_TOKENS}}

    def _responses(self):
        text = ""
        for i, piece in enumerate(self.pieces, start=1):
            text += piece
            raw = self._raw(i) if self.usage == "each" else None
            yield piece, CompletionResponse(text=text, delta=piece, raw=raw)
        if self.usage == "final":
            yield None, CompletionResponse(text=text, delta="", raw=self._raw(len(self.pieces)))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.record.prompts.append(prompt)
        self.record.produced = len(self.pieces)
        self.record.texts = list(self.pieces)
        self.record.exhausted = self.record.closed = True
        return CompletionResponse(
            text="".join(self.pieces), raw=self._raw(len(self.pieces)) if self.usage != "none" else None
        )

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        self.record.prompts.append(prompt)
        return self.record.stream(self._responses())

    @llm_completion_callback()
    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseAsyncGen:
        self.record.prompts.append(prompt)
        return self.record.astream(self._responses())


def make_index() -> VectorStoreIndex:
    """Fixed node ids: MockEmbedding ties every similarity, and ties are broken on node ids."""
    nodes = [TextNode(id_=node_id, text=text) for node_id, text in NODES.items()]
    return VectorStoreIndex(nodes=nodes, embed_model=MockEmbedding(embed_dim=8))
