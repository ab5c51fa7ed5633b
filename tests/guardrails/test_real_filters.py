"""Guardrails AI with the real SentenceGate / Redactor."""

from __future__ import annotations

import pytest
from guardrails import Guard

import sluicegate
import sluicegate_guardrails as sg
from sluicegate.sources import gate_from
from sluicegate.testing import pieces_of, run_filter
from tests.guardrails.test_validators import MESSAGES, scripted_llm
from tests.support import shown_text

SOURCES = ["The library opens at nine on weekdays.", "Late fees were abolished in 2021."]
GATE_OK = "The library opens at nine [S1]. Late fees ended in 2021 [S2]. "
GATE_BAD = "The library opens at nine [S1]. Late fees ended in 2019 [S2]. Ask the desk [S1]."
MAIL_SOURCES = ["Questions go to the front desk at help.desk@citylib.example."]
PII = "Write to jane.doe@example.com today. The desk is open. "


@pytest.mark.parametrize("size", [1, 3, 7])
@pytest.mark.parametrize("text", [GATE_OK, GATE_BAD])
def test_sentence_gate_validator_matches_the_whole_string(text: str, size: int) -> None:
    guard = Guard().use(sg.StreamGate(filter=lambda metadata: sluicegate.SentenceGate(metadata["sources"])))
    whole = run_filter(lambda: sluicegate.SentenceGate(SOURCES), [text])
    s = sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(text, size), metadata={"sources": SOURCES})
    assert "".join(s) == shown_text(lambda: sluicegate.SentenceGate(SOURCES), text)
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


@pytest.mark.parametrize("run_sync", ["true", "false"])
def test_whole_string_rewrite_applies_under_both_validator_services(monkeypatch, run_sync: str) -> None:
    """guardrails' default AsyncValidatorService drops a PassResult's value_override: a rewrite must not rely on it."""
    monkeypatch.setenv("GUARDRAILS_RUN_SYNC", run_sync)
    guard = Guard().use(sg.StreamGate(filter=gate_from("sources", redact=True)))
    text = "Write to help.desk@citylib.example with questions [S1]."
    want = run_filter(lambda: gate_from("sources", redact=True)({"sources": MAIL_SOURCES}), [text]).text
    checked = sg.validate(guard, text, metadata={"sources": MAIL_SOURCES})
    assert checked.validated_output == want and checked.violation is None
    assert "help.desk@citylib.example" not in checked.validated_output and "[S1]" not in checked.validated_output
    assert guard.validate(text, metadata={"sources": MAIL_SOURCES}).validated_output == want


@pytest.mark.parametrize("on_fail", ["noop", "exception", "filter", "refrain", "reask"])
def test_only_the_fix_action_is_accepted(on_fail: str) -> None:
    with pytest.raises(ValueError, match='on_fail="fix"'):
        sg.StreamGate(filter=gate_from("sources"), on_fail=on_fail)
    with pytest.raises(ValueError, match='on_fail="fix"'):
        sg.Redact(on_fail=on_fail)
    assert sg.Redact(on_fail=None).on_fail_descriptor == "fix"  # what guardrails passes when none is named


def test_a_rail_spec_with_another_action_is_refused_at_use() -> None:
    rail = (
        '<rail version="0.1"><output type="string" validators="sluicegate/redact" '
        'on-fail-sluicegate_redact="noop"/></rail>'
    )
    guard = Guard.for_rail_string(rail)
    with pytest.raises(ValueError, match='on_fail="fix"'):
        sg.validate(guard, PII)
    with pytest.raises(ValueError, match='on_fail="fix"'):
        list(sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=[PII]))


def test_rail_spec_names_the_ready_gate_over_the_call_sources() -> None:
    rail = (
        '<rail version="0.1"><output type="string" '
        'validators="sluicegate/stream_gate: sluicegate.sources.request_gate" on-fail-sluicegate_stream_gate="fix"/>'
        "</rail>"
    )
    guard = Guard.for_rail_string(rail)
    s = sg.stream(guard, scripted_llm, messages=MESSAGES, pieces=pieces_of(GATE_BAD, 3), metadata={"sources": SOURCES})
    assert "".join(s) == shown_text(lambda: sluicegate.SentenceGate(SOURCES), GATE_BAD)
    assert s.violation == "sluicegate stopped the stream: unsupported_value"
