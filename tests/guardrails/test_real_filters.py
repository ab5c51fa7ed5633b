"""Guardrails AI with the real SentenceGate / Redactor."""

from __future__ import annotations

import pytest
from guardrails import Guard

import sluicegate
import sluicegate_guardrails as sg
from sluicegate.testing import pieces_of, run_filter
from tests.guardrails.test_validators import MESSAGES, scripted_llm


SOURCES = ["The library opens at nine on weekdays.", "Late fees were abolished in 2021."]
GATE_OK = "The library opens at nine [S1]. Late fees ended in 2021 [S2]. "
GATE_BAD = "The library opens at nine [S1]. Late fees ended in 2019 [S2]. Ask the desk [S1]."
PII = "Write to jane.doe@example.com today. The desk is open. "


@pytest.mark.parametrize("size", [1, 3, 7])
@pytest.mark.parametrize("text", [GATE_OK, GATE_BAD])
def test_sentence_gate_validator_matches_the_whole_string(text: str, size: int) -> None:
    guard = Guard().use(sg.StreamGate(filter=lambda metadata: sluicegate.SentenceGate(metadata["sources"])))
    whole = run_filter(lambda: sluicegate.SentenceGate(SOURCES), [text])
    s = sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(text, size), metadata={"sources": SOURCES})
    assert "".join(s) == whole.text
    assert (s.violation is not None) == whole.stopped


@pytest.mark.parametrize("size", [1, 3, 7])
def test_redact_validator_streams_redacted_text(size: int) -> None:
    guard = Guard().use(sg.Redact())
    s = sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(PII, size))
    text = "".join(s)
    assert text == run_filter(sluicegate.Redactor, [PII]).text
    assert "jane.doe@example.com" not in text


def test_redact_validator_whole_string_and_dict_roundtrip() -> None:
    guard = Guard.from_dict(Guard().use(sg.Redact()).to_dict())
    checked = sg.validate(guard, PII)
    assert "jane.doe@example.com" not in checked.validated_output and checked.violation is None
