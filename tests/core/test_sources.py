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
