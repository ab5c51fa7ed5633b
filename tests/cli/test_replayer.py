"""The replay engine in process: Hypothesis chunkings of recorded answers through the default pipeline."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sluicegate.cli._filters import default_filter, load_filter
from sluicegate.cli._records import ReplayRecord
from sluicegate.cli._replayer import blocked_sentence, parse_sizes, replay
from tests.cli.filters import PerPiece

SOURCES = (
    "The library opens at nine and closes at six.",
    "Late fees were abolished in 2021; write to ada@example.org.",
)
ANSWERS = [
    "The library opens at nine [S1]. Late fees were abolished in 2021 [S2].",
    "It opens at nine [S1]. Late fees ended in 2019 [S2]. More text follows here.",
    "Write to ada@example.org [S2]. I am happy to help.",
    "NO_ANSWER",
    "It opens at nine [S1]. It closes at",
]


@st.composite
def chunked(draw: st.DrawFn) -> tuple[str, list[str], bool]:
    answer = draw(st.sampled_from(ANSWERS))
    cuts = sorted(draw(st.lists(st.integers(0, len(answer)), max_size=12)))
    bounds = [0, *cuts, len(answer)]
    return answer, [answer[a:b] for a, b in zip(bounds, bounds[1:], strict=False)], draw(st.booleans())


def record(chunks: list[str], truncated: bool) -> ReplayRecord:
    raw = {"id": "r", "question": "q", "language": "en", "sources": list(SOURCES)}
    return ReplayRecord(1, "r", "q", "en", SOURCES, tuple(chunks), truncated=truncated, raw=raw)


@given(chunked())
def test_the_default_pipeline_is_never_flagged_and_its_outcome_does_not_depend_on_the_recording(
    case: tuple[str, list[str], bool],
) -> None:
    answer, chunks, truncated = case
    result = replay(record(chunks, truncated), default_filter, parse_sizes("1,3,whole"))
    whole = replay(record([answer], truncated), default_filter, [])
    assert not result.chunk_dependent, result.differs
    assert (result.outcome, result.codes, result.main.released) == (whole.outcome, whole.codes, whole.main.released)
    assert "2019" not in result.main.released


@given(chunked())
def test_the_flag_fires_exactly_when_a_chunking_changes_what_a_chunk_dependent_filter_does(
    case: tuple[str, list[str], bool],
) -> None:
    _, chunks, truncated = case
    chunks = [c.replace("library", "forbidden") for c in chunks]
    make, _ = load_filter("tests.cli.filters:per_piece")
    result = replay(record(chunks, truncated), make, parse_sizes("1,whole"))
    signatures = {run.signature for run in result.runs}
    assert result.chunk_dependent == (len(signatures) > 1)
    if any("forbidden" in c for c in chunks):
        assert result.outcome == "stopped"


def test_the_blocked_sentence_is_the_one_the_filter_stopped_on() -> None:
    def make() -> PerPiece:
        return PerPiece()

    assert blocked_sentence(make, "Fine here. This one is forbidden. Never judged.") == "This one is forbidden. "
    assert blocked_sentence(make, "Nothing to stop.") is None
