"""The test filter used by the adapter tests keeps the contract itself (else adapter tests would prove nothing)."""

from hypothesis import given
from hypothesis import strategies as st

from sluicegate.testing import assert_chunk_invariant, run_filter
from tests.support import BAD, BAD_RELEASED, GOOD, SentenceStopFilter


def test_good_text_passes_whole_and_in_every_chunking() -> None:
    run = assert_chunk_invariant(SentenceStopFilter, GOOD)
    assert run.text == GOOD and not run.stopped


def test_bad_sentence_stops_and_is_never_released() -> None:
    run = assert_chunk_invariant(SentenceStopFilter, BAD)
    assert run.stopped and run.text == BAD_RELEASED


@given(st.lists(st.integers(min_value=0, max_value=len(BAD)), max_size=12))
def test_hypothesis_chunkings(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [BAD[a:b] for a, b in zip([0, *points], [*points, len(BAD)], strict=True)]
    assert run_filter(SentenceStopFilter, pieces).text == BAD_RELEASED
