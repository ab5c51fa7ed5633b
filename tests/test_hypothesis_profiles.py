"""CI's Hypothesis profiles: on the matrix (ci-matrix) a test's own deeper search is scaled like the profile's
count, so the other Pythons run a fifth of 3.11's examples there too; on 3.11 (ci) and locally it is untouched."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import matrix_examples

RUNS: list[int] = []


@settings(max_examples=1000, database=None)
@given(st.integers())
def test_a_deep_search_runs(n: int) -> None:
    RUNS.append(n)


def test_the_deep_search_ran_as_many_examples_as_the_profile_says() -> None:
    profile = os.environ.get("HYPOTHESIS_PROFILE", "dev")
    assert len(RUNS) == (matrix_examples(1000) if profile == "ci-matrix" else 1000)


def test_the_matrix_takes_a_fifth_but_never_below_the_profile_nor_above_the_test() -> None:
    assert [matrix_examples(n) for n in (2000, 1500, 500, 400, 150, 100, 60, 15)] == [
        400,
        300,
        100,
        100,
        100,
        100,
        60,
        15,
    ]
