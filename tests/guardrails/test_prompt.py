"""Without `messages=`, a guardrails call sends sluicegate's prompt for the gate that checks the answer."""

from __future__ import annotations

from typing import Any

import pytest
from guardrails import AsyncGuard, Guard

import sluicegate_guardrails as sg
from sluicegate.budget import CallBudget, Price, SpendCap, SQLiteStore
from sluicegate.prompts import PromptSettings, system_prompt
from sluicegate.sources import gate_from
from sluicegate.testing import pieces_of

SOURCES = ["The library opens at nine on weekdays.", "Late fees were abolished in 2021."]
ANSWER = "The library opens at nine [S1]. "
META = {"sources": SOURCES, "question": "Quand ouvre-t-elle ?"}


def _recording(sent: list[Any]):
    def llm(*args: Any, messages: Any = None, **kwargs: Any):
        sent.append(messages)
        yield from pieces_of(ANSWER, 4)

    return llm


def test_the_default_messages_are_the_gates_prompt() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources", language="fr", refusal_token="AUCUNE")))
    sent: list[Any] = []
    assert "".join(sg.stream(guard, _recording(sent), metadata=META)) == "The library opens at nine."
    system, user = sent[0]
    assert system == {"role": "system", "content": system_prompt(settings=PromptSettings("fr", "AUCUNE", 2))}
    assert "[S1] The library opens at nine on weekdays." in user["content"] and "Quand ouvre-t-elle" in user["content"]


def test_messages_the_caller_passes_win_and_no_question_means_none() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources")))
    sent: list[Any] = []
    own = [{"role": "user", "content": "mine"}]
    "".join(sg.stream(guard, _recording(sent), messages=own, metadata=META))
    assert sent[0] == own
    assert sg.default_messages(guard, {"sources": SOURCES}) is None


def test_the_cap_reserves_the_default_prompt(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cap = CallBudget(SpendCap(SQLiteStore(tmp_path / "s.sqlite3"), "1", {"m": Price("2", "8")}), "m", 400)
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources")))
    sent: list[Any] = []
    assert "".join(sg.stream(guard, _recording(sent), metadata=META, cap=cap)) == "The library opens at nine."
    assert sent[0][0]["content"] == system_prompt(settings=PromptSettings("en", "NO_ANSWER", 2))


@pytest.mark.asyncio
async def test_async_guard_sends_it_too() -> None:
    guard = AsyncGuard().use(sg.StreamGate(filter=gate_from("sources", language="de")))
    sent: list[Any] = []

    async def llm(*args: Any, messages: Any = None, **kwargs: Any):
        sent.append(messages)
        for piece in pieces_of(ANSWER, 4):
            yield piece

    s = await sg.astream(guard, llm, metadata=META)
    assert "".join([c async for c in s]) == "The library opens at nine."
    assert sent[0][0]["content"].startswith(system_prompt("de").split("\n")[0])
