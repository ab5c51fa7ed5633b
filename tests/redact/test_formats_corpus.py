"""The documented-formats corpus (tests/redact/data/formats.jsonl, written by make_formats.py): every value is
replaced whole, no negative loses a character, and each sample is chunk invariant. The same file is what
tests/benchmarks/recall.py measures the peers on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sluicegate.redaction import Redactor, redact
from sluicegate.testing import assert_chunk_invariant

SAMPLES = [
    json.loads(line) for line in (Path(__file__).parent / "data" / "formats.jsonl").read_text("utf-8").splitlines()
]
HIDE = "\x00"


def _covered(text: str) -> str:
    """The text with every replaced character as NUL (one per raw character, so positions line up)."""
    out = redact(text, operator=lambda _entity, raw: HIDE * len(raw))
    assert len(out) == len(text), "a mask keeps the length unless the stream stopped"
    return out


@pytest.mark.parametrize("sample", SAMPLES, ids=[f"{s['entity']}-{i}" for i, s in enumerate(SAMPLES)])
def test_sample(sample: dict) -> None:
    text = sample["text"]
    out = _covered(text)
    if sample.get("declined"):  # a documented blind spot: if this starts to pass, update docs/redactor.md
        assert any(ch != HIDE for a, b in sample["spans"] for ch in out[a:b]), sample["declined"]
        return
    for a, b in sample["spans"]:
        assert all(ch == HIDE for ch in out[a:b]), (sample["entity"], out[a:b])
    if sample["entity"] is None:
        assert out == text
    assert_chunk_invariant(Redactor, text, max_size=3, random_runs=3)


def test_corpus_covers_every_builtin_entity() -> None:
    from sluicegate.redaction import ENTITIES

    assert {s["entity"] for s in SAMPLES if s["entity"] and not s.get("declined")} == set(ENTITIES)
