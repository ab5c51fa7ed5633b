"""THE CONTRACT for the gate: released text, stop flag and events are the same for every chunking."""

from __future__ import annotations

from itertools import pairwise

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from sluicegate import Done, SentenceGate
from sluicegate._gate.markers import MARKER_RE
from sluicegate.testing import assert_chunk_invariant, run_filter

from .fixtures import ALL, GROUNDED, SOURCES, VIOLATING


def factory(language: str):
    return lambda: SentenceGate(SOURCES, language=language)


@pytest.mark.parametrize(("name", "language", "answer"), GROUNDED, ids=[g[0] for g in GROUNDED])
def test_grounded_answers_are_chunk_invariant_and_complete(name: str, language: str, answer: str) -> None:
    run = assert_chunk_invariant(factory(language), answer, max_size=24)
    assert run.events == (Done("complete"),) and not run.stopped
    assert "[S" not in run.text


@pytest.mark.parametrize(("name", "language", "answer"), VIOLATING, ids=[v[0] for v in VIOLATING])
def test_violating_answers_are_chunk_invariant_and_stop(name: str, language: str, answer: str) -> None:
    run = assert_chunk_invariant(factory(language), answer, max_size=24)
    assert run.stopped and run.events[-1] == Done("stopped")


@pytest.mark.parametrize(("name", "language", "answer"), ALL, ids=[a[0] for a in ALL])
def test_truncated_runs_are_chunk_invariant(name: str, language: str, answer: str) -> None:
    for cut in (len(answer) // 3, len(answer) // 2, len(answer) - 1):
        assert_chunk_invariant(factory(language), answer[:cut], max_size=8, random_runs=5, truncated=True)


@st.composite
def chunked(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    _, language, answer = draw(st.sampled_from(ALL))
    cuts = sorted(draw(st.lists(st.integers(0, len(answer)), max_size=12)))
    bounds = [0, *cuts, len(answer)]
    return language, answer, [answer[a:b] for a, b in pairwise(bounds)]


@given(chunked(), st.booleans())
def test_hypothesis_chunkings_match_the_whole_string(case: tuple[str, str, list[str]], truncated: bool) -> None:
    language, answer, chunks = case
    whole = run_filter(factory(language), [answer], truncated=truncated)
    got = run_filter(factory(language), chunks, truncated=truncated)
    assert (got.text, got.stopped, got.events) == (whole.text, whole.stopped, whole.events)


TOKEN = regex.compile(r"(?<!\w)NO_ANSWER(?!\w)")
_ALPHABET = st.sampled_from(
    list("ab I9 20.,\n[S1]?!。我NO_ANSWER") + ["[S1]", "[S9]", " 2019", "NO_ANSWER", ". ", "\n\n"]
)


@given(st.lists(_ALPHABET, max_size=30).map("".join), st.data())
def test_hypothesis_generated_answers_are_chunk_invariant(answer: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(answer)), max_size=8)))
    bounds = [0, *cuts, len(answer)]
    chunks = [answer[a:b] for a, b in pairwise(bounds)]
    whole = run_filter(factory("en"), [answer])
    got = run_filter(factory("en"), chunks)
    assert (got.text, got.stopped, got.events) == (whole.text, whole.stopped, whole.events)
    assert TOKEN.search(whole.text) is None  # the token itself is never released
    assert MARKER_RE.search(whole.text) is None  # markers stay internal
