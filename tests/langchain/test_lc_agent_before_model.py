"""`GateMiddleware`'s layers before the model in a real `create_agent` agent (only the chat model is scripted):
the refusal rules and the evidence threshold (`preflight=`) and the spend cap (`cap=`, on a real SQLite store).
A refusal is the model call's whole text on every surface and the model is never called; allowed, the model is
sent the passages found, numbered; every model call of a turn with a tool reserves once and settles once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agent_surfaces import READERS, SURFACES
from langchain.agents import create_agent
from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from lc_agent_fakes import AgentScriptedModel, turn

from sluicegate import Outcome
from sluicegate.evidence import EvidenceGate, Preflight, RefusalRules
from sluicegate.host import notice
from sluicegate_langchain import GateMiddleware, stream_agent
from tests.call.helpers import (
    PASSING,
    QUESTION,
    REFUSED_QUESTION,
    SOURCES,
    budget,
    preflight,
    retriever,
    settled_once,
)


class RecordingModel(AgentScriptedModel):
    """The scripted model that also keeps the messages each call was sent."""

    sent: list[list[BaseMessage]] = []

    def _stream(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> Any:
        self.sent.append(list(messages))
        yield from super()._stream(messages, *args, **kw)

    async def _astream(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> Any:
        self.sent.append(list(messages))
        async for chunk in super()._astream(messages, *args, **kw):
            yield chunk


@tool
def year_of(event: str) -> str:
    """The year an event happened."""
    return "1843 [S1]."


def asked(question: str) -> dict[str, Any]:
    return {"messages": [("user", question)]}


@pytest.mark.parametrize("surface", SURFACES)
def test_a_refusal_rule_is_the_whole_text_on_every_surface_and_no_model_call(surface: str) -> None:
    model = RecordingModel(turns=[turn([PASSING])], sent=[])
    outcomes: list[Outcome] = []
    gate = GateMiddleware(preflight=preflight(), on_outcome=outcomes.append)
    seen = READERS[surface](create_agent(model, [], middleware=[gate]), asked(REFUSED_QUESTION))
    assert model.calls == 0 and model.sent == []
    assert seen.text == outcomes[0].released and seen.text  # the rules' fixed text, nothing of the answer
    assert "1843" not in seen.text and "1843" not in " ".join(seen.raw)
    assert outcomes[0].reason == "refused"


@pytest.mark.parametrize("surface", ["messages", "events_v2"])
def test_allowed_the_model_is_sent_the_passages_found_numbered(surface: str) -> None:
    model = RecordingModel(turns=[turn([PASSING])], sent=[])
    agent = create_agent(model, [], middleware=[GateMiddleware(preflight=preflight())])
    seen = READERS[surface](agent, asked(QUESTION))
    assert seen.text.startswith("She published her notes in 1843.")
    first = model.sent[0][0]
    assert isinstance(first, SystemMessage) and f"[S1] {SOURCES[0]}" in first.text


@pytest.mark.parametrize("surface", ["messages", "events_v2", "final"])
def test_a_full_cap_is_the_whole_text_and_reserves_nothing(tmp_path: Path, surface: str) -> None:
    cap, store = budget(tmp_path, monthly_cap="0")
    model = RecordingModel(turns=[turn([PASSING])], sent=[])
    seen = READERS[surface](create_agent(model, [], middleware=[GateMiddleware(SOURCES, cap=cap)]))
    assert seen.text == notice("en", "monthly_limit")
    assert model.calls == 0 and store.reserved_ids == [] and not store.asked


def test_each_model_call_of_a_tool_turn_reserves_and_settles_once(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    model = RecordingModel(turns=[turn([], [("year_of", {"event": "notes"})]), turn([PASSING])], sent=[])
    outcomes: list[Outcome] = []
    gate = GateMiddleware(SOURCES, cap=cap, on_outcome=outcomes.append)
    state = create_agent(model, [year_of], middleware=[gate]).invoke(asked(QUESTION))
    assert state["messages"][-1].text.startswith("She published her notes in 1843.")
    assert model.calls == 2 and len(store.reserved_ids) == 2 and settled_once(store)
    assert [o.reason for o in outcomes] == ["complete", "complete"]


async def test_async_reserves_and_settles_off_the_loop(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    model = RecordingModel(turns=[turn([PASSING])], sent=[])
    agent = create_agent(model, [], middleware=[GateMiddleware(preflight=preflight(), cap=cap)])
    text = "".join([m.text async for m, meta in agent.astream(asked(QUESTION), stream_mode="messages")])
    assert text.startswith("She published her notes in 1843.")
    assert store.reserved_ids and settled_once(store)


def test_a_model_allowed_more_than_the_cap_reserves_fails_closed(tmp_path: Path) -> None:
    cap, store = budget(tmp_path)
    model = ChatOpenAI(model="m", base_url="http://127.0.0.1:9/v1", api_key="test", max_retries=0)  # type: ignore[arg-type]
    agent = create_agent(model, [], middleware=[GateMiddleware(SOURCES, cap=cap)])
    with pytest.raises(ValueError, match="max_tokens"):
        agent.invoke(asked(QUESTION))
    assert store.reserved_ids == []


def test_stream_agent_keeps_the_callers_config() -> None:
    model = RecordingModel(turns=[turn([PASSING])], sent=[])
    agent = create_agent(model, [], middleware=[GateMiddleware(SOURCES)], checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1"}}
    text = "".join(m.text for m, _ in stream_agent(agent, asked(QUESTION), config, stream_mode="messages"))
    assert text.startswith("She published her notes in 1843.")
    assert agent.get_state(config).values["messages"][-1].text == text


def test_a_follow_up_to_a_refused_question_is_refused_with_no_model_call() -> None:
    """The question before it in the thread (a checkpointer keeps the conversation) joins the rules' check."""
    fees = RefusalRules(entries={"fees": {"en": [r"\b(?:fees?|rates?|charges?)\b"]}})
    model = RecordingModel(turns=[turn([PASSING])], sent=[])
    flight = Preflight(retriever(), rules=fees, gate=EvidenceGate())
    outcomes: list[Outcome] = []
    gate = GateMiddleware(preflight=flight, on_outcome=outcomes.append)
    agent = create_agent(model, [], middleware=[gate], checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "fees"}}
    assert not fees.check("And for next year?", language="en").refused  # alone, nothing to refuse
    agent.invoke(asked("What is her consulting fee?"), config)
    state = agent.invoke(asked("And for next year?"), config)
    assert model.calls == 0 and [o.reason for o in outcomes] == ["refused", "refused"]
    assert state["messages"][-1].text == outcomes[1].released
