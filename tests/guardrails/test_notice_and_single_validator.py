"""Issue 11, Guardrails AI: the notice in the reader's stream, and `Guard().use(a).use(b)` refused, not silently
reduced to its last validator (which made the gate vanish and let `[S1]` markers through)."""

from __future__ import annotations

import asyncio

import pytest
from guardrails import AsyncGuard, Guard

import sluicegate
import sluicegate_guardrails as sg
from sluicegate.sources import gate_from
from sluicegate.testing import pieces_of
from tests.guardrails.test_validators import MESSAGES, scripted_allm, scripted_llm

SOURCES = ["The library opens at nine on weekdays."]
BAD = "The library opens at nine [S1]. It closes at 11 [S1]."
NOTICE = sluicegate.SentenceGate(SOURCES).notice


def test_the_reader_sees_the_notice_after_a_stop_sync_and_async() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources")))
    s = sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(BAD, 4), metadata={"sources": SOURCES})
    assert "".join(s) == "The library opens at nine.\n\n" + NOTICE and s.outcome.reason == "stopped"

    async def main() -> str:
        aguard = AsyncGuard().use(sg.StreamGate(filter=gate_from("sources")))
        a = await sg.astream(
            aguard, scripted_allm, messages=MESSAGES, pieces=pieces_of(BAD, 3), metadata={"sources": SOURCES}
        )
        return "".join([t async for t in a])

    assert asyncio.run(main()) == "The library opens at nine.\n\n" + NOTICE


def test_validate_gives_the_text_to_show_with_the_notice() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources")))
    checked = sg.validate(guard, BAD, metadata={"sources": SOURCES})
    assert checked.validated_output == "The library opens at nine."
    assert checked.text == "The library opens at nine.\n\n" + NOTICE


def test_use_then_use_is_refused_naming_what_was_dropped() -> None:
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources"))).use(sg.Redact())
    with pytest.raises(ValueError, match=r"Guard\.use\(\) was called 2 times.*drops StreamGate"):
        sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=[BAD], metadata={"sources": SOURCES})
    with pytest.raises(ValueError, match=r"Guard\.use\(\) was called 2 times"):
        sg.validate(guard, BAD, metadata={"sources": SOURCES})


def test_a_single_use_still_works_and_so_does_a_dict_roundtrip() -> None:
    guard = Guard().use(sg.Redact())
    assert "".join(sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=["Write to a@example.com now."])) == (
        "Write to <EMAIL_ADDRESS> now."
    )
    again = Guard.from_dict(Guard().use(sg.StreamGate(filter=gate_from("sources"))).to_dict())
    assert sg.validate(again, BAD, metadata={"sources": SOURCES}).violation is not None
