"""GateStep right after a chat model: sources from the constructor or config["configurable"]."""

from __future__ import annotations

import pytest
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from lc_fakes import ScriptedChatModel

from sluicegate.testing import pieces_of
from sluicegate_langchain import GateStep
from tests.support import NOTICE, SHOWN_NOTICE, import_error_without, toy_factory, wait_closed

PROMPT = ChatPromptTemplate.from_messages([("human", "{question}")])
SOURCES = ["Revenue was 5 million in 2018.", "Headcount was 42 in 2018."]
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."
BAD = "Revenue was 5 million in 2018 [S1]. It fell in 2019 [S1]. Headcount was 42 [S2]. More text follows here."
CUT = len("Revenue was 5 million in 2018 [S1]. It fell in 2019 [S1].")


def chain(model: ScriptedChatModel, sources: list[str] | None = SOURCES):
    return PROMPT | model | GateStep(sources, filter_factory=toy_factory)


def test_clean_answer_sentence_by_sentence() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    assert list(chain(model).stream({"question": "q"})) == [
        "Revenue was 5 million in 2018 [S1]. ",
        "Headcount was 42 [S2].",
    ]
    assert model.record.exhausted


def test_stop_closes_model_before_the_notice_sync() -> None:
    pieces = pieces_of(BAD, 3)
    model = ScriptedChatModel(pieces=pieces)
    seen = [(c, model.record.closed) for c in chain(model).stream({"question": "q"})]
    assert [c for c, _ in seen] == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    assert seen[-1][1] and not model.record.exhausted
    assert model.record.produced <= -(-CUT // 3) + 1


async def test_stop_closes_model_async() -> None:
    model = ScriptedChatModel(pieces=pieces_of(BAD, 3))
    got = [c async for c in chain(model).astream({"question": "q"})]
    assert got == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    await wait_closed(model.record)
    assert model.record.produced <= -(-CUT // 3) + 1 and not model.record.exhausted


def test_sources_from_configurable_override_the_constructor() -> None:
    model = ScriptedChatModel(pieces=pieces_of("Revenue was 7 million [S1].", 2))
    config = {"configurable": {"gate_sources": ["Revenue was 7 million."]}}
    assert chain(model).invoke({"question": "q"}, config=config) == "Revenue was 7 million [S1]."
    model = ScriptedChatModel(pieces=pieces_of("Revenue was 7 million [S1].", 2))
    assert chain(model).invoke({"question": "q"}) == NOTICE  # 7 is in none of the constructor's sources


def test_no_sources_anywhere_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="gate_sources"):
        chain(ScriptedChatModel(pieces=["x"]), sources=None).invoke({"question": "q"})


def test_guard_event_reaches_callbacks_through_the_chain() -> None:
    from langchain_core.callbacks import BaseCallbackHandler

    class Events(BaseCallbackHandler):
        def __init__(self) -> None:
            self.got: list[tuple[str, object]] = []

        def on_custom_event(self, name: str, data: object, **kw: object) -> None:
            self.got.append((name, data))

    h = Events()
    list(chain(ScriptedChatModel(pieces=pieces_of(BAD, 5))).stream({"question": "q"}, {"callbacks": [h]}))
    assert h.got == [("guard", {"reasons": ["forbidden_word"], "notice": NOTICE})]


def test_after_str_output_parser_still_gates_but_cannot_cancel_sync() -> None:
    # Documented limitation: the parser's wrapper drains the model after our stop. Output is still gated.
    model = ScriptedChatModel(pieces=pieces_of(BAD, 3))
    out = list(
        (PROMPT | model | StrOutputParser() | GateStep(SOURCES, filter_factory=toy_factory)).stream({"question": "q"})
    )
    assert out == ["Revenue was 5 million in 2018 [S1]. ", SHOWN_NOTICE]
    assert model.record.exhausted  # drained: the reason GateStep must sit directly after the model


@pytest.mark.parametrize("size", [1, 3, 7])
def test_piece_sizes_give_identical_text(size: int) -> None:
    whole = "".join(chain(ScriptedChatModel(pieces=[BAD])).stream({"question": "q"}))
    assert "".join(chain(ScriptedChatModel(pieces=pieces_of(BAD, size))).stream({"question": "q"})) == whole


def test_import_without_the_extra_names_it() -> None:
    assert 'pip install "sluicegate[langchain]"' in import_error_without("langchain_core", "sluicegate_langchain")
