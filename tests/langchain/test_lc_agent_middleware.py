"""`GateMiddleware` in a real `create_agent` agent (only the chat model is scripted): the gate and redactor on
every surface a user reads, byte-identical for every chunking; a stop closes the model stream and leaves the
withheld text in no event; tool calls only whole, after the terminal event, and only valid ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_surfaces import READERS, SURFACES
from hypothesis import given
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_core.tools import tool
from lc_agent_fakes import AgentScriptedModel, Turn, turn

from sluicegate import Outcome, Redactor, redact
from sluicegate_langchain import GateMiddleware
from tests.adapter_contract import chunked, oracle
from tests.call.helpers import PASSING, SOURCES, STOPPING, pieces

LONG_EMAIL = "a" * 60 + "." + "b" * 40 + "@" + "c" * 30 + ".example.com"  # 144 characters: past any 128 look-back
REDACTING = f"Write to jane.doe@example.com or to {LONG_EMAIL} for details. The rest is fine."
RAN: list[str] = []


@tool
def lookup(year: int) -> str:
    """Look up what happened in a year."""
    RAN.append(f"lookup {year}")
    return f"In {year} the notes were published [S1]."


def agent(turns: list[Turn], **gate: Any) -> tuple[Any, AgentScriptedModel]:
    model = AgentScriptedModel(turns=turns)
    gate.setdefault("sources", SOURCES)
    return create_agent(model, [lookup], middleware=[GateMiddleware(**gate)]), model


def redactor(_texts: Any) -> Redactor:
    return Redactor()


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("answer", [PASSING, STOPPING], ids=["passing", "stopping"])
@pytest.mark.parametrize("size", [1, 3, 16, 10_000])
def test_every_surface_shows_the_cores_text(surface: str, answer: str, size: int) -> None:
    a, _ = agent([turn(chunked(answer, size))])
    shown = READERS[surface](a)
    assert shown.text == oracle([answer])
    assert "2019" not in " ".join(shown.raw)


@given(cuts=st.lists(st.integers(1, len(STOPPING) - 1), unique=True, max_size=12).map(sorted))
def test_stopping_answer_byte_identical_for_any_chunking(cuts: list[int]) -> None:
    a, model = agent([turn(pieces(STOPPING, cuts))])
    shown = READERS["messages"](a)
    assert shown.text == oracle([STOPPING])
    assert "2019" not in " ".join(shown.raw)
    assert model.closed == [True] or len(cuts) < 3  # a stop before the last piece closed the model stream


@pytest.mark.parametrize("surface", SURFACES)
def test_redaction_has_no_look_back_limit(surface: str) -> None:
    expected = redact(REDACTING)
    assert "jane.doe" not in expected and LONG_EMAIL not in expected
    for split in (
        [REDACTING],
        chunked(REDACTING, 1),
        chunked(REDACTING, 7),
        pieces(REDACTING, [REDACTING.index(".co") + 3]),
    ):
        a, _ = agent([turn(split)], filter_factory=redactor)
        shown = READERS[surface](a)
        assert shown.text == expected, split[:3]
        raw = " ".join(shown.raw)
        assert "jane.doe" not in raw and "c" * 30 not in raw and "b" * 40 not in raw


@given(cuts=st.lists(st.integers(1, len(REDACTING) - 1), unique=True, max_size=20).map(sorted))
def test_redaction_byte_identical_for_any_chunking(cuts: list[int]) -> None:
    a, _ = agent([turn(pieces(REDACTING, cuts))], filter_factory=redactor)
    assert READERS["messages"](a).text == redact(REDACTING)


def test_a_stop_closes_the_model_stream() -> None:
    split = chunked(STOPPING, 2)
    a, model = agent([turn(split)])
    outcomes: list[Outcome] = []
    a, model = agent([turn(split)], on_outcome=outcomes.append)
    READERS["messages"](a)
    assert model.closed == [True]
    assert len(model.produced) < len(split) and "2019" in "".join(model.produced)  # it did generate it
    assert outcomes[0].reason == "stopped"


@pytest.mark.parametrize("surface", SURFACES)
def test_a_valid_tool_call_arrives_whole_after_the_terminal_event(surface: str) -> None:
    RAN.clear()
    a, model = agent([turn(chunked(PASSING, 5), [("lookup", {"year": 1843})], arg_size=3), turn(["Done [S1]."])])
    shown = READERS[surface](a)
    assert RAN == ["lookup 1843"] and model.bound == ["lookup"]
    calls = [c for c in shown.tool_chunks if c.get("name") or c.get("args")]
    assert calls, "the validated call is on the surface"
    for c in calls:  # never a fragment: each carries the whole, validated arguments (v3 sends the name apart)
        assert c.get("name", "lookup") == "lookup"
        if c.get("args"):
            assert (c["args"] if isinstance(c["args"], dict) else json.loads(c["args"])) == {"year": 1843}
    assert shown.text.startswith(oracle([PASSING]))


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize(
    "call",
    [
        ("lookup", {"year": "nineteen-sixty-six"}),
        ("delete_everything", {"confirm": True}),
        ("lookup", {"year": 1843, "as_root": 1}),
    ],
    ids=["bad_type", "unknown_tool", "extra_field"],
)
def test_an_invalid_tool_call_reaches_no_event(surface: str, call: tuple[str, dict[str, Any]]) -> None:
    RAN.clear()
    a, _ = agent([turn(chunked(PASSING, 5), [call], arg_size=3)])
    shown = READERS[surface](a)
    raw = " ".join(shown.raw)
    assert RAN == []
    assert shown.tool_chunks == [] or all(not c.get("name") and not c.get("args") for c in shown.tool_chunks)
    for fragment in ("nineteen", "delete_everything", "as_root"):
        assert fragment not in raw
    assert shown.text.startswith(oracle([PASSING]))


def test_sync_and_async_agents_show_the_same() -> None:
    a, _ = agent([turn(chunked(STOPPING, 4))])
    b, _ = agent([turn(chunked(STOPPING, 4))])
    assert READERS["final"](a).text == READERS["events_v2"](b).text == oracle([STOPPING])
