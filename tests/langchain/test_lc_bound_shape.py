"""SourceGate refuses a `bound` that does not end at the model: anything after the model (a parser, a lambda)
would keep reading it after a sync stop, so the provider generates and bills the rest."""

from __future__ import annotations

import pytest
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda
from lc_fakes import ScriptedChatModel

from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate
from tests.support import toy_factory

PROMPT = ChatPromptTemplate.from_messages([("system", "Sources:\n{context}"), ("human", "{question}")])
SOURCES = ["Revenue was 5 million in 2018.", "Headcount was 42 in 2018."]
BAD = "Revenue was 5 million in 2018 [S1]. It fell to 3 million in 2019 [S1]. " + "Headcount was 42 [S2]. " * 30
INPUT = {"question": "q", "sources": SOURCES}


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(pieces=pieces_of(BAD, 5))


@pytest.mark.parametrize(
    "tail",
    [StrOutputParser(), RunnableLambda(lambda m: m)],
    ids=["str_output_parser", "lambda"],
)
def test_anything_after_the_model_is_refused(tail: object) -> None:
    with pytest.raises(TypeError, match="must end at the chat model"):
        SourceGate(PROMPT | _model() | tail, filter_factory=toy_factory)  # type: ignore[operator]


def test_a_bound_without_a_model_is_refused() -> None:
    with pytest.raises(TypeError, match="must end at the chat model"):
        SourceGate(PROMPT | RunnableLambda(lambda v: "x"), filter_factory=toy_factory)


def test_a_bare_model_is_accepted() -> None:
    SourceGate(_model(), filter_factory=toy_factory)


@pytest.mark.parametrize(
    "make",
    [
        lambda m: PROMPT | m,
        lambda m: PROMPT | m.bind(stop=["\n\n\n"]),
        lambda m: PROMPT | m.with_config(tags=["x"]),
        lambda m: PROMPT | m.with_fallbacks([ScriptedChatModel(pieces=["x"])]),
    ],
    ids=["prompt_model", "bind", "with_config", "with_fallbacks"],
)
def test_model_shapes_are_accepted_and_a_stop_closes_the_model(make) -> None:  # type: ignore[no-untyped-def]
    model = _model()
    out = list(SourceGate(make(model), filter_factory=toy_factory).stream(INPUT))
    assert not any("2019" in c for c in out)
    assert model.record.closed and not model.record.exhausted
