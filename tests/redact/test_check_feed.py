"""The check feeds of stop 34 (issue 27) against the feed before them and the pure path: the Steps (text, stop flag,
events) and `held` after every feed, then the flush, of the default build, of a compiled feed built with this
round's switches (`tail_off`: no open tail, opentail.py and tests/redact/test_open_tail.py; `word_off`: a
label tail counts as a word, tests/redact/test_label_word.py) and of the pure path, on the four corpora, issue 17's
texts, every case of the five suites (also at `max_hold` 24) and Hypothesis texts at random chunkings with
lookaheads, small `max_hold`s and truncated flushes, with and without `[fast]`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from . import test_label_word, test_open_tail
from .suite_cases import NAMES, load

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


def _run(make: Callable[[], Redactor], calls: list[tuple[str, str]], truncated: bool = False) -> list[Any]:
    r = make()
    out: list[Any] = []
    for piece, ahead in calls:
        step = r.feed(piece, lookahead=ahead) if ahead else r.feed(piece)
        out.append((step.text, step.stopped, step.events, r.held))
    last = r.flush(truncated=truncated)
    out.append((last.text, last.stopped, last.events, r.held))
    return out


def _same(calls: list[tuple[str, str]], fast: bool, max_hold: int = 8192, truncated: bool = False) -> None:
    got = {name: _run(make, calls, truncated) for name, make in _subjects(fast, max_hold).items()}
    assert got["on"] == got["off"], calls
    assert got["on"] == got["pure"], calls


def _cut(text: str, sizes: list[int]) -> list[tuple[str, str]]:
    out, at, k = [], 0, 0
    while at < len(text):
        n = sizes[k % len(sizes)]
        out.append((text[at : at + n], ""))
        at += n
        k += 1
    return out


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_corpora(fast: bool) -> None:
    rng = random.Random(34)
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text, C.prose(3000), *test_label_word.EDGE]
    for text in texts:
        for sizes in ([4], [1], [rng.randint(1, 64) for _ in range(50)]):
            _same(_cut(text, sizes), fast)


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_suites(fast: bool) -> None:
    rng = random.Random(27)
    for name in NAMES:
        for case in load(name):
            text = case["text"]
            for sizes in ([4], [rng.randint(1, 9) for _ in range(20)]):
                _same(_cut(text, sizes), fast)
            _same(_cut(text, [5]), fast, max_hold=24)


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
    calls = _cut(text, sizes)
    at = 0
    for k, (piece, _) in enumerate(calls):
        at += len(piece)
        n = aheads[k % len(aheads)]
        if n:
            calls[k] = (piece, text[at : at + n])
    for fast in (True, False):
        _same(calls, fast, max_hold, truncated)
