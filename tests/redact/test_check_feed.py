"""The check feeds of stop 34 (issue 27) against the feed before them and the pure path: the Steps (text, stop flag,
events) and `held` after every feed, then the flush, of the default build, of a compiled feed built with this
round's switches (`tail_off`: no open tail, opentail.py and tests/redact/test_open_tail.py; `word_off`: a
label tail counts as a word, tests/redact/test_label_word.py) and of the pure path, on the four corpora, issue 17's
texts, every case of the five suites (also at `max_hold` 24) and Hypothesis texts at random chunkings with
lookaheads, small `max_hold`s and truncated flushes, with and without `[fast]`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath

from . import test_label_word, test_open_tail
from .test_feed_lean import _calls_with_lookaheads, _run, corpus_cuts, corpus_texts, suite_cuts

_VALUES = st.one_of(test_open_tail._VALUES, test_label_word._PIECES)
# "off": the feed with every switch of this round (each claim is checked on its own in its test file).
SWITCHES = {"tail_off": True, "word_off": True}


@cache
def _subjects(fast: bool, max_hold: int = 8192) -> dict[str, Callable[[], Redactor]]:
    class On(Redactor):
        _COMPILED = fast

    class Pure(Redactor):
        _COMPILED = fast
        _NATIVE = False

    make_on = On.factory(max_hold=max_hold)

    def off() -> Redactor:
        r = make_on()
        assert r._tracker is not None and r._quick_native is not None
        r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, **SWITCHES)
        return r

    return {"on": make_on, "off": off, "pure": Pure.factory(max_hold=max_hold)}


def _same(calls: list[tuple[str, str]], fast: bool, max_hold: int = 8192, truncated: bool = False) -> None:
    got = {name: _run(make, calls, truncated) for name, make in _subjects(fast, max_hold).items()}
    assert got["on"] == got["off"], calls
    assert got["on"] == got["pure"], calls


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_corpora(fast: bool) -> None:
    for calls in corpus_cuts([*corpus_texts(), *test_label_word.EDGE], 34):
        _same(calls, fast)


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_suites(fast: bool) -> None:
    for calls, max_hold in suite_cuts(27):
        _same(calls, fast, max_hold)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_VALUES, max_size=16).map("".join),
    st.lists(st.integers(1, 12), min_size=1, max_size=8),
    st.lists(st.integers(0, 6), min_size=1, max_size=8),
    st.sampled_from([8192, 40, 300]),
    st.booleans(),
)
def test_the_same_steps_on_generated_texts(
    text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool
) -> None:
    calls = _calls_with_lookaheads(text, sizes, aheads)
    for fast in (True, False):
        _same(calls, fast, max_hold, truncated)
