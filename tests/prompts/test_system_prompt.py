"""Layer 3: the system prompt names what the gate actually checks, in every language, from the gate's settings."""

from __future__ import annotations

import json
import string
from importlib import resources

import pytest

from sluicegate import SUPPORTED_LANGUAGES, Pipeline, Redactor, SentenceGate, drive_text
from sluicegate._gate.checks import CODES
from sluicegate._gate.gate import DEFAULT_REFUSAL_TOKEN
from sluicegate._gate.markers import MARKER_RE, marker_numbers
from sluicegate._notices import notice
from sluicegate.prompts import RULE_CHECKS, RULES, PromptSettings, render_prompt, settings_of, system_prompt
from sluicegate.sources import format_sources, marker

SOURCES = ["The central library opens at nine on weekdays.", "Late fees were abolished in 2021.", "It has 40 seats."]


def _data(language: str) -> dict:
    return json.loads(resources.files("sluicegate").joinpath(f"data/prompts/{language}.json").read_text("utf-8"))


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_each_language_names_the_gates_token_and_markers(language: str) -> None:
    gate = SentenceGate(SOURCES, language=language)
    prompt = render_prompt(SOURCES, "When does it open?", gate=gate)
    assert gate.refusal_token == DEFAULT_REFUSAL_TOKEN and gate.refusal_token in prompt.system
    assert marker(1) in prompt.system and marker(len(SOURCES)) in prompt.system
    # every marker the prompt shows is one the gate accepts and one that is in range
    shown = MARKER_RE.findall(prompt.system)
    assert shown and all(1 <= n <= gate.source_count for n in marker_numbers(prompt.system))
    assert format_sources(SOURCES) in prompt.user  # numbered exactly as the gate numbers them
    assert prompt.system != render_prompt(SOURCES, "q", language="en" if language != "en" else "fr").system


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_changing_the_gates_settings_changes_the_prompt(language: str) -> None:
    before = system_prompt(gate=SentenceGate(SOURCES, language=language))
    after = system_prompt(gate=SentenceGate(SOURCES, language=language, refusal_token="NOTHING_FOUND"))
    assert "NOTHING_FOUND" in after and DEFAULT_REFUSAL_TOKEN not in after and DEFAULT_REFUSAL_TOKEN in before
    off = system_prompt(gate=SentenceGate(SOURCES, language=language, refusal_token=None))
    assert DEFAULT_REFUSAL_TOKEN not in off and off != before
    one = system_prompt(gate=SentenceGate(SOURCES[:1], language=language))
    assert marker(2) not in one and marker(1) in one  # one source: no example citing a second one


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_the_answer_the_prompt_asks_for_passes_the_gate(language: str) -> None:
    """Following the prompt (a cited copy of a source, or the token it names) is what the gate lets through."""
    gate = SentenceGate(SOURCES, language=language, refusal_token="NOTHING_FOUND")
    settings = settings_of(gate)
    prompt = render_prompt(SOURCES, "When does it open?", gate=gate)
    assert settings.refusal_token is not None and settings.refusal_token in prompt.system
    released = "".join(drive_text([f"{SOURCES[0][:-1]} {marker(1)}."], gate))
    assert released == SOURCES[0] and not gate.stopped
    refusing = SentenceGate(SOURCES, language=language, refusal_token="NOTHING_FOUND")
    assert "".join(drive_text([settings.refusal_token], refusing)) == notice(language, "refusal")


def test_a_pipeline_is_read_through_and_a_filter_without_the_gate_is_refused() -> None:
    gate = SentenceGate(SOURCES, language="de", refusal_token="KEINE")
    assert settings_of(Pipeline(gate, Redactor())) == PromptSettings("de", "KEINE", 3)
    with pytest.raises(TypeError, match="SentenceGate"):
        settings_of(Redactor())


def test_the_prompt_and_the_gate_cannot_disagree_on_sources_or_language() -> None:
    gate = SentenceGate(SOURCES, language="fr")
    with pytest.raises(ValueError, match="3 sources"):
        render_prompt(SOURCES[:2], "q", gate=gate)
    with pytest.raises(ValueError, match="differs"):
        render_prompt(SOURCES, "q", gate=gate, language="de")
    with pytest.raises(ValueError, match="unsupported language"):
        system_prompt("xx")
    assert system_prompt("fr-CA") == system_prompt("fr")


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_rule_is_stated_in_every_language_with_only_known_slots(language: str) -> None:
    data = _data(language)
    allowed = {"marker1", "marker2", "example", "marker_range", "subject", "refusal_token", "first", "last",
               "position", "item"}  # fmt: skip
    texts = [data["intro"], *data["rules"].values(), *(v for k, v in data.items() if isinstance(v, str))]
    for text in texts:
        slots = {name for _, name, _, _ in string.Formatter().parse(text) if name}
        assert slots <= allowed, (language, text)
    assert "{refusal_token}" in data["rules"]["refusal"] and "{example}" in data["rules"]["markers"]
    assert "{subject}" in data["rules"]["third_person_named"]
    prompt = system_prompt(language)
    assert prompt.count("\n") >= len(RULES)  # one numbered line a rule
    named = system_prompt(language, subject="Ada Lovelace")
    assert "Ada Lovelace" in named and "Ada Lovelace" not in prompt


def test_every_rule_has_its_check_listed_and_the_checks_are_real() -> None:
    assert set(RULE_CHECKS) == set(RULES)
    known = set(CODES) | {"refusal_rules", "refusal_token"}
    assert all(set(checks) <= known for checks in RULE_CHECKS.values())
    assert set(CODES) <= {c for checks in RULE_CHECKS.values() for c in checks}  # every gate check backs a rule


def test_the_ordinal_item_is_told_to_the_model() -> None:
    prompt = render_prompt(SOURCES, "Tell me more about the second one", language="fr", item="Borealis", position=2)
    assert "« Borealis »" in prompt.user and prompt.user.index("Borealis") < prompt.user.index("Question")
    assert prompt.messages()[0] == {"role": "system", "content": prompt.system}
    assert prompt.messages()[1]["role"] == "user"
