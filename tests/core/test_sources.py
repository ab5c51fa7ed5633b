"""One numbering for prompt and gate."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sluicegate.sources import format_sources, gate_factory, source_texts


@dataclass
class Doc:
    page_content: str


def test_numbering_follows_input_order_and_accepts_documents() -> None:
    texts = source_texts([Doc("Opens at nine."), "Fees ended in 2019."])
    assert texts == ["Opens at nine.", "Fees ended in 2019."]
    assert format_sources(texts) == "[S1] Opens at nine.\n\n[S2] Fees ended in 2019."


def test_single_source_and_bad_input() -> None:
    assert source_texts("only one") == ["only one"]
    assert source_texts([]) == [] and format_sources([]) == ""
    with pytest.raises(ValueError, match="no sources"):
        source_texts(None)
    with pytest.raises(TypeError, match="source must be"):
        source_texts([3])


def test_gate_factory_builds_lazily() -> None:
    make = gate_factory()  # building the factory never needs the gate; calling it does
    assert callable(make)


def test_gate_from_builds_the_gate_over_the_request_sources() -> None:
    from sluicegate import Pipeline, SentenceGate
    from sluicegate.sources import gate_from
    from sluicegate.testing import run_filter

    request = {"sources": [Doc("Opens at nine."), "Write to help@lib.example."]}
    gate = gate_from("sources")(request)
    assert isinstance(gate, SentenceGate)
    assert run_filter(lambda: gate_from("sources")(request), ["It opened in 2019 [S1]. "]).stopped
    piped = gate_from("sources", redact=True)(request)
    assert isinstance(piped, Pipeline)
    out = run_filter(lambda: gate_from("sources", redact=True)(request), ["Write to help@lib.example [S2]. "])
    assert not out.stopped and "help@lib.example" not in out.text and "[S2]" not in out.text


def test_gate_from_fails_with_a_clear_error_when_the_request_has_no_sources() -> None:
    from sluicegate.sources import gate_from

    with pytest.raises(ValueError, match="'sources'"):
        gate_from("sources")({"question": "q"})
    with pytest.raises(ValueError, match="no sources"):
        gate_from("sources")({"sources": None})
    with pytest.raises(TypeError, match="mapping"):
        gate_from("sources")(None)  # type: ignore[arg-type]


def test_refusal_text_comes_from_the_gate_else_the_fixed_refusal() -> None:
    from sluicegate import Redactor, SentenceGate
    from sluicegate._notices import notice
    from sluicegate.sources import refusal_text

    assert refusal_text(SentenceGate([], refusal_text="Not covered.")) == "Not covered."
    assert refusal_text(gate_factory(redact=True, language="en", refusal_text="Nope.")([])) == "Nope."
    assert refusal_text(SentenceGate([], language="fr")) == notice("fr", "refusal")
    assert refusal_text(Redactor()) == notice("en", "refusal")
