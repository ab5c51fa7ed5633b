"""SourceGate's async path waits for the model run to close before it finishes, so a usage handler has the
stopped run's record as soon as the consumer's loop ends (not some loop turns later)."""

from __future__ import annotations

import pytest
from langchain_core.prompts import ChatPromptTemplate
from lc_fakes import INPUT_TOKENS, ScriptedChatModel

from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate, UsageCallbackHandler
from tests.support import toy_factory

PROMPT = ChatPromptTemplate.from_messages([("system", "Sources:\n{context}"), ("human", "{question}")])
SOURCES = ["Revenue was 5 million in 2018.", "Headcount was 42 in 2018."]
BAD = "Revenue was 5 million in 2018 [S1]. It fell to 3 million in 2019 [S1]. " + "Headcount was 42 [S2]. " * 30
GOOD = "Revenue was 5 million in 2018 [S1]. " + "Headcount was 42 [S2]. " * 30
INPUT = {"question": "q", "sources": SOURCES}


def _expected(model: ScriptedChatModel, usage: str) -> tuple[int, str]:
    if usage == "each":
        return model.record.produced, "provider"
    return len(model.record.produced_text.encode()), "estimate"


@pytest.mark.parametrize("usage", ["each", "final", "none"])
async def test_stopped_astream_is_recorded_when_the_loop_ends(usage: str) -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 5), usage=usage)
    handler, outcomes = UsageCallbackHandler(), []
    gate = SourceGate(PROMPT | model, filter_factory=toy_factory, on_outcome=outcomes.append)
    chunks = [c async for c in gate.astream(INPUT, config={"callbacks": [handler]})]
    assert not any("2019" in c for c in chunks)
    (run,) = handler.runs  # no waiting, no polling
    assert run.ended == "error" and not model.record.exhausted
    assert (run.usage.output_tokens, run.usage.source) == _expected(model, usage)
    assert (outcomes[0].usage.output_tokens, outcomes[0].usage.source) == _expected(model, usage)
    if usage == "each":
        assert run.usage.input_tokens == INPUT_TOKENS


async def test_consumer_aclose_is_recorded_when_aclose_returns() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 5), usage="none")
    handler = UsageCallbackHandler()
    stream = SourceGate(PROMPT | model, filter_factory=toy_factory).astream(INPUT, config={"callbacks": [handler]})
    assert await stream.__anext__()
    await stream.aclose()
    (run,) = handler.runs
    assert run.ended == "error" and run.usage.output_tokens == len(model.record.produced_text.encode())
