"""SourceGate with its default filter, the real SentenceGate (and the Redactor when asked).

The real gate strips [Si] markers before release, so exact texts are not pinned.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from lc_fakes import ScriptedChatModel

from sluicegate import Outcome
from sluicegate.sources import gate_factory
from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate
from tests.support import drawn_pieces, pieces_to_cover, wait_closed

PROMPT = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{question}")])
SOURCES = [Document(page_content="Revenue was 5 million in 2018."), "Headcount was 42 in 2018."]
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."
BAD_SENTENCE = "It fell to 3 million in 2019 [S1]. "
BAD = "Revenue was 5 million in 2018 [S1]. " + BAD_SENTENCE + "Headcount was 42 [S2]. Done [S2]."
# The violating sentence as the splitter sees it ends with its trailing space: its boundary is final only when
# the next non-space, non-marker character arrives (a marker could still follow and belong to it).
BAD_END = BAD.index(BAD_SENTENCE) + len(BAD_SENTENCE)
INPUT = {"question": "q", "sources": SOURCES}


def run(pieces: list[str], **kw: object) -> tuple[list[str], Outcome, ScriptedChatModel]:
    model = ScriptedChatModel(pieces=pieces)
    outcomes: list[Outcome] = []
    chain = RunnablePassthrough.assign(answer=SourceGate(PROMPT | model, on_outcome=outcomes.append, **kw))
    chunks = [c["answer"] for c in chain.stream(INPUT) if "answer" in c]
    return chunks, outcomes[0], model


def test_grounded_answer_streams_sentence_by_sentence() -> None:
    chunks, outcome, _ = run(pieces_of(GOOD, 3))
    assert len(chunks) == 2 and "Revenue was 5 million" in chunks[0] and "Headcount was 42" in chunks[1]
    assert "[S" not in "".join(chunks) and outcome.reason == "complete"


@pytest.mark.parametrize("size", [1, 3, 7])
def test_planted_value_never_reaches_the_reader(size: int) -> None:
    pieces = pieces_of(BAD, size)
    chunks, outcome, model = run(pieces)
    assert not any("2019" in c or "3 million" in c for c in chunks)
    assert outcome.reason == "stopped" and outcome.guard is not None and chunks[-1] == "\n\n" + outcome.guard.notice
    assert model.record.closed and not model.record.exhausted
    assert model.record.produced <= pieces_to_cover(pieces, BAD_END) + 1


async def test_planted_value_never_reaches_the_reader_async() -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 3))
    chunks = [c async for c in SourceGate(PROMPT | model).astream(INPUT)]
    assert not any("2019" in c for c in chunks)
    await wait_closed(model.record)
    assert not model.record.exhausted


@given(st.data(), st.sampled_from([GOOD, BAD]))
def test_chunkings_give_identical_reader_text(data: st.DataObject, text: str) -> None:
    got, _, _ = run(drawn_pieces(data, text))
    whole, _, _ = run([text])
    assert "".join(got) == "".join(whole)


def test_gate_then_redactor_pipeline() -> None:
    sources = ["Write to help@example.org for help."]
    model = ScriptedChatModel(pieces=pieces_of("Write to help@example.org [S1].", 4))
    gate = SourceGate(PROMPT | model, filter_factory=gate_factory(redact=True))
    out = "".join(gate.stream({"question": "q", "sources": sources}))
    assert "help@example.org" not in out
