"""The near answers' prefixes (`_native.set_near_prefixes`, stop 35): at a label start with no label tail before it,
an answer "none" remembered for a prefix of the text after the start is the answer for the whole text.

The claim rests on two facts, checked here against the engine: the answer there is the detector's for that text
alone (test_label_near.py checks it), and "none" for a text is "none" for every text that begins with it (no path
revives; the label detectors hold no assertion that appended text could satisfy: no `\\b`, `\\B`, `\\m`, `\\M`, `$`,
`\\Z`, `\\G`, no WORD flag).
Then the stream with the prefixes on, off and the pure path, byte for byte, and that the prefixes are taken.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction.registry import BUILTIN
from tests.benchmarks.corpora27 import CORPORA

from .sameness import Call, corpus_cuts, corpus_texts, reference, suite_cuts
from .sameness import run as _run

_NEAR = tuple(d for d in BUILTIN if d.near is not None)


def _native() -> Any:
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    return fastpath.native


# What could read text appended later, or the position a search began (regex's zero-width assertions): word
# boundaries (`\\b`, `\\B`, a word's start and end `\\m`, `\\M`), the end (`$`, `\\Z`, `\\z`), the search anchor
# `\\G`, a conditional `(?(`, and the WORD flag (`(?w)`, scoped `(?wi:` or given to compile), which changes what
# the boundaries and `$` read. A substring test errs on the safe side (an escaped backslash before `m` refuses).
_LATE = ("\\b", "\\B", "\\m", "\\M", "$", "\\Z", "\\z", "\\G", "(?(")
_WORD_FLAG = regex.compile(r"\(\?[a-zA-Z0-9-]*w")


def _late_assertions(pattern: str, flags: int) -> list[str]:
    """The tokens of `_LATE` in `pattern`, and "WORD" where the WORD flag is set inline or in `flags`."""
    found = [token for token in _LATE if token in pattern]
    if _WORD_FLAG.search(pattern) or flags & regex.WORD:
        found.append("WORD")
    return found


def test_the_guard_sees_each_assertion() -> None:
    v0 = regex.V0 | regex.UNICODE
    for pattern in (r"\mab", r"ab\M", r"(?w)ab", r"(?wi:ab)", r"(?i-w:ab)", r"\Gab", r"a\b", r"a$", r"(?(1)a|b)"):
        assert _late_assertions(pattern, v0), pattern
    assert _late_assertions("ab", v0 | regex.WORD) == ["WORD"]
    assert _late_assertions(r"(?i:ab)[\s]{0,3}+(?=[:=])(?P<w>\w)", v0) == []


def test_the_label_detectors_hold_no_assertion_that_text_could_satisfy_later() -> None:
    assert _NEAR
    for d in _NEAR:
        assert _late_assertions(d.compiled.pattern, d.compiled.flags) == [], d.entity


# No label word in the context: a start there is the compiled feed's no-tail case.
_CONTEXTS = ["", "x ", "2026-12-01T14", " took", "\n{", ' "price"', "rows", "12 ", "\t"]
_AFTER = st.text(st.sampled_from(list(":=>,( \t\n\"'`<a0Z.-_/") + ["é", "\u00a0"]), min_size=1, max_size=12)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(_CONTEXTS), _AFTER, st.text(st.sampled_from(list(":=>,( \"'a0Z.-_/")), max_size=8))
def test_none_for_a_text_is_none_for_every_longer_one(context: str, after: str, more: str) -> None:
    v = len(context)
    for d in _NEAR:
        for j in range(1, len(after) + 1):
            if d.compiled.match(context + after[:j], v, partial=True) is None:
                assert d.compiled.match(context + after + more, v, partial=True) is None, (d.entity, after[:j], more)
                break


def _compare(calls: list[Call], max_hold: int = 8192) -> None:
    native = _native()
    on = Redactor.factory(max_hold=max_hold)
    got = _run(on, calls)
    was = native.set_near_prefixes(False)
    try:
        assert _run(on, calls) == got, calls
    finally:
        native.set_near_prefixes(was)
    assert got == reference(calls, False, max_hold), calls  # the pure path (once a session: sameness.py)


def _fresh_caches() -> None:
    fastpath._near_cache.cache_clear()  # (the near answers are shared by the process: start from none)
    fastpath._per_detector.cache_clear()


@pytest.mark.parametrize("seed", [35])
def test_the_stream_is_the_same_with_the_prefixes_off_and_on_the_pure_path(seed: int) -> None:
    _fresh_caches()
    for calls in corpus_cuts(corpus_texts(), seed):
        _compare(calls)
    for calls, max_hold in suite_cuts(seed):
        _compare(calls, max_hold)


def _label_calls(make: Callable[[], Redactor], text: str) -> int:
    r = make()
    assert r._tracker is not None
    asked = [0]
    fns = list(r._tracker._match)
    for i, d in enumerate(r._tracker._detectors):
        if d.near is not None:
            inner = fns[i]

            def spy(*a: Any, _inner: Any = inner, **k: Any) -> Any:
                asked[0] += 1
                return _inner(*a, **k)

            fns[i] = spy
    r._tracker._match = tuple(fns)
    r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold)
    for i in range(0, len(text), 4):
        r.feed(text[i : i + 4])
    r.flush()
    return asked[0]


def test_the_prefixes_save_calls_on_logs() -> None:
    # Not vacuous: on a fresh cache the logs corpus asks the label detector far less often with the prefixes.
    native = _native()
    text = CORPORA["logs"](16000)
    counts = {}
    for on in (False, True):
        _fresh_caches()
        was = native.set_near_prefixes(on)
        try:
            counts[on] = _label_calls(Redactor, text)
        finally:
            native.set_near_prefixes(was)
    assert counts[True] * 2 < counts[False], counts


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_CONTEXTS) | _AFTER, max_size=12).map("".join), st.integers(1, 9))
def test_the_stream_is_the_same_on_generated_texts(text: str, size: int) -> None:
    _compare([(text[i : i + size], "") for i in range(0, len(text), size)])
    rng = random.Random(size)
    cuts, at = [], 0
    while at < len(text):
        n = rng.randint(1, 6)
        cuts.append((text[at : at + n], ""))
        at += n
    _compare(cuts, 24)
