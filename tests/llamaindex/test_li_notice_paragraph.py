"""Issue 11, LlamaIndex: `str(response)` shows the notice set off from the last sentence like a paragraph,
streaming or not, over the real SentenceGate (it was glued: "...nine.The rest of...")."""

from __future__ import annotations

import pytest
from li_fakes import ScriptedLLM
from llama_index.core import VectorStoreIndex, get_response_synthesizer
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import TextNode

from sluicegate import SentenceGate
from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer

NOTICE = SentenceGate([]).notice


@pytest.mark.parametrize("streaming", [True, False])
def test_str_of_a_stopped_response_separates_the_notice(streaming: bool) -> None:
    index = VectorStoreIndex(
        nodes=[TextNode(id_="n1", text="The library opens at nine.")], embed_model=MockEmbedding(embed_dim=8)
    )
    llm = ScriptedLLM(pieces=pieces_of("The library opens at nine [S1]. It closes at 11 [S1].", 4))
    inner = get_response_synthesizer(llm=llm, streaming=streaming, text_qa_template=GATED_QA_TEMPLATE)
    response = index.as_query_engine(llm=llm, response_synthesizer=GatedSynthesizer(inner)).query("When?")
    assert str(response) == "The library opens at nine.\n\n" + NOTICE
