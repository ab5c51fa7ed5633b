"""The check feeds of stop 34 (issue 27) against the feed before them and the pure path: the Steps (text, stop flag,
events) and `held` after every feed, then the flush, of the default build, of a compiled feed built with this
round's switches (`tail_off`: no open tail, opentail.py and tests/redact/test_open_tail.py; `word_off`: a
label tail counts as a word, tests/redact/test_label_word.py) and of the pure path, on the four corpora, issue 17's
texts, every case of the five suites (also at `max_hold` 24) and Hypothesis texts at random chunkings with
lookaheads, small `max_hold`s and truncated flushes, with and without `[fast]`.
"""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from . import sameness, test_label_word, test_open_tail
from .sameness import Make

_VALUES = st.one_of(test_open_tail._VALUES, test_label_word._PIECES)
# "off": the feed with every switch of this round (each claim is checked on its own in its test file).
SWITCHES = {"tail_off": True, "word_off": True}


def _subjects(fast: bool, max_hold: int = 8192) -> dict[str, Make]:
    """ "on" (the default build), "off" (its compiled feed built with `SWITCHES`); `same` adds the pure path."""
    return {
        "on": sameness.variant(fast, max_hold),
        "off": sameness.variant(fast, max_hold, feed=tuple(SWITCHES.items())),
    }


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_corpora(fast: bool) -> None:
    sameness.on_corpora(_subjects, fast, 34, [*sameness.corpus_texts(), *test_label_word.EDGE])


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_suites(fast: bool) -> None:
    sameness.on_suites(_subjects, fast, 27)


@sameness.chunkings(_VALUES, max_examples=60, max_size=16, holds=(8192, 40, 300))
def test_the_same_steps_on_generated_texts(
    text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool
) -> None:
    sameness.on_chunking(_subjects, text, sizes, aheads, max_hold, truncated)
