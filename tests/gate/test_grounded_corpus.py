"""The false-stop benchmark's corpora as tests: every grounded answer passes at every chunking, every planted
value stops (tests/benchmarks/data/; the benchmark itself, tests/benchmarks/false_stops.py, prints the table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import Done, SentenceGate
from sluicegate.testing import assert_chunk_invariant, run_filter
from tests.support import drawn_pieces

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


GROUNDED = _load("grounded_answers.jsonl")
PLANTED = _load("planted_values.jsonl")


@pytest.mark.parametrize("record", GROUNDED, ids=[r["id"] for r in GROUNDED])
def test_grounded_answer_passes_at_every_chunking(record: dict) -> None:
    run = assert_chunk_invariant(
        lambda: SentenceGate(record["sources"], language=record["language"]),
        record["answer"],
        max_size=8,
        random_runs=3,
    )
    assert run.events == (Done("complete"),), record["id"]
    assert "[S" not in run.text and ".." not in run.text.replace("...", "")


@pytest.mark.parametrize("record", PLANTED, ids=[r["id"] for r in PLANTED])
def test_planted_value_stops_at_every_chunking(record: dict) -> None:
    run = assert_chunk_invariant(
        lambda: SentenceGate(record["sources"], language=record["language"]),
        record["answer"],
        max_size=8,
        random_runs=3,
    )
    assert run.stopped and run.events[-1] == Done("stopped"), record["id"]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_hypothesis_chunkings_of_both_corpora_match_the_whole_answer(data: st.DataObject) -> None:
    record = data.draw(st.sampled_from(GROUNDED + PLANTED))
    whole = run_filter(lambda: SentenceGate(record["sources"], language=record["language"]), [record["answer"]])
    pieces = drawn_pieces(data, record["answer"])
    run = run_filter(lambda: SentenceGate(record["sources"], language=record["language"]), pieces)
    assert (run.text, run.stopped, run.events) == (whole.text, whole.stopped, whole.events)
