"""GatedSynthesizer with its default filter, the real SentenceGate."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from li_fakes import ScriptedLLM, make_index
from llama_index.core import get_response_synthesizer

from sluicegate.testing import pieces_of
from sluicegate_llamaindex import GATED_QA_TEMPLATE, GatedSynthesizer
from tests.support import drawn_pieces, wait_closed

INDEX = make_index()  # n1 = revenue (S1), n2 = headcount (S2)
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."
BAD = "Revenue was 5 million in 2018 [S1]. It fell to 3 million in 2019 [S1]. Headcount was 42 [S2]. Done [S2]."


def engine(llm: ScriptedLLM):
    inner = get_response_synthesizer(
        llm=llm, streaming=True, response_mode="compact", text_qa_template=GATED_QA_TEMPLATE
    )
    return INDEX.as_query_engine(llm=llm, similarity_top_k=2, response_synthesizer=GatedSynthesizer(inner))


def test_grounded_answer() -> None:
    response = engine(ScriptedLLM(pieces=pieces_of(GOOD, 3))).query("q")
    chunks = list(response.response_gen)
    assert len(chunks) == 2 and "[S" not in "".join(chunks) and response.guard.reason == "complete"


@pytest.mark.parametrize("size", [1, 3, 7])
def test_planted_value_never_reaches_the_reader(size: int) -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, size))
    response = engine(llm).query("q")
    chunks = list(response.response_gen)
    assert not any("2019" in c or "3 million" in c for c in chunks)
    assert response.guard.reason == "stopped" and chunks[-1] == "\n\n" + response.guard.guard.notice
    assert llm.record.closed and not llm.record.exhausted


async def test_planted_value_never_reaches_the_reader_async() -> None:
    llm = ScriptedLLM(pieces=pieces_of(BAD, 3))
    response = await engine(llm).aquery("q")
    chunks = [c async for c in response.async_response_gen()]
    assert not any("2019" in c for c in chunks)
    await wait_closed(llm.record)
    assert not llm.record.exhausted


@given(st.data(), st.sampled_from([GOOD, BAD]))
def test_chunkings_give_identical_reader_text(data: st.DataObject, text: str) -> None:
    got = "".join(engine(ScriptedLLM(pieces=drawn_pieces(data, text))).query("q").response_gen)
    assert got == "".join(engine(ScriptedLLM(pieces=[text])).query("q").response_gen)
