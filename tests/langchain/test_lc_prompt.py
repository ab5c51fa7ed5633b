"""SourceGate puts sluicegate's prompt in front of a bare chat model, in the gate's language with its token."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.prompts import ChatPromptTemplate
from lc_fakes import ScriptedChatModel

from sluicegate.budget import CallBudget, Price, SpendCap, SQLiteStore
from sluicegate.prompts import PromptSettings, system_prompt
from sluicegate.sources import gate_factory
from sluicegate.testing import pieces_of
from sluicegate_langchain import SourceGate, gated_prompt

SOURCES = ["Revenue was 5 million in 2018.", "Headcount was 42 in 2018."]
GOOD = "Revenue was 5 million in 2018 [S1]. Headcount was 42 [S2]."
INPUT = {"question": "How did it do?", "sources": SOURCES}


def test_a_bare_model_gets_the_gates_prompt_with_the_numbered_sources() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    gate = SourceGate(model, filter_factory=gate_factory(language="ru", refusal_token="НЕТ_ОТВЕТА"))
    assert "".join(gate.stream(INPUT)) == "Revenue was 5 million in 2018. Headcount was 42."
    sent = model.record.prompts[0]
    assert sent.startswith(system_prompt(settings=PromptSettings("ru", "НЕТ_ОТВЕТА")))
    assert "[S1] Revenue was 5 million in 2018.\n\n[S2] Headcount was 42 in 2018." in sent
    assert "Вопрос: How did it do?" in sent and "NO_ANSWER" not in sent


@pytest.mark.asyncio
async def test_the_async_path_sends_it_too_with_the_subject_named() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    gate = SourceGate(model, subject="ACME")
    assert "".join([c async for c in gate.astream(INPUT)]).startswith("Revenue was 5 million")
    assert "Speak of ACME in the third person" in model.record.prompts[0]


def test_the_users_prompt_is_kept_and_prompt_none_sends_none() -> None:
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    own = ChatPromptTemplate.from_messages([("system", "Mine.\n{context}"), ("human", "{question}")])
    "".join(SourceGate(own | model).stream(INPUT))
    assert model.record.prompts[0].startswith("Mine.\n[S1]")
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    "".join(SourceGate(model, prompt=own).stream(INPUT))
    assert model.record.prompts[0].startswith("Mine.\n[S1]")
    assert SourceGate(model, prompt=None).bound is model


def test_gated_prompt_reads_custom_keys() -> None:
    template = gated_prompt(language="fr", context_key="ctx", question_key="q")
    assert set(template.input_variables) == {"ctx", "q"}
    text = template.format(ctx="[S1] x", q="Quoi ?")
    assert system_prompt("fr") in text and "Question : Quoi ?" in text


def test_the_cap_reserves_the_prompt_the_bare_model_is_sent(tmp_path: Path) -> None:
    """The reservation is the bound of the exact prompt: with a bare model, that includes sluicegate's."""
    cap = CallBudget(SpendCap(SQLiteStore(tmp_path / "spend.sqlite3"), "1", {"m": Price("2", "8")}), "m", 400)
    model = ScriptedChatModel(pieces=pieces_of(GOOD, 4))
    gate = SourceGate(model, cap=cap)
    seen: list[object] = []
    prompt_of = gate._prompt  # what the gate hands the spend cap to reserve for

    def recording(prompt_input: dict) -> object:
        prompt = prompt_of(prompt_input)
        seen.append(prompt)
        return prompt

    gate._prompt = recording  # type: ignore[method-assign]
    "".join(gate.stream(INPUT))
    sent = model.record.prompts[0]
    reserved = "".join(str(getattr(m, "content", m)) for m in seen[0]) if seen else ""  # type: ignore[attr-defined]
    assert system_prompt("en") in sent and system_prompt("en") in reserved
