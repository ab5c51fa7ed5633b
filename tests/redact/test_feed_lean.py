"""The per-feed common path of stop 33 (issue 27) against the feed before it and the pure one.

Three changes, each claimed to give the same answers: `Redactor.feed` as a compiled method (`_native.FeedMethod`,
put on the class by `fastpath.install_feed`: the Python method's common path without a Python frame, everything
else handed to the Python method); the engine asked with the GIL held (`concurrent=False`); and at a `near_rest`
start with no label tail before it (a `"` for `LABELED_IN_CODE`) the rest's alternatives alone asked instead of the
whole detector. So: the Steps (text, stop flag, events) and `held` after every feed, then the flush, are the same
as the Python method over a compiled feed built with `lean_off=True` (the feed as before) and as the pure path, on
the four issue 27 corpora, issue 17's texts, every case of the five suites and Hypothesis texts at random
chunkings (with lookaheads, a small `max_hold`), with and without `[fast]`; and the rest's answer (none, open,
complete) is the detector's wherever the compiled feed asks the rest instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate import Step
from sluicegate.redaction import Redactor, fastpath, labels
from sluicegate.redaction.detector import LOOKBEHIND
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.shape import shape
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from . import sameness
from .sameness import Make

_REST = tuple(d for d in BUILTIN if d.near_rest is not None)


def _native() -> Any:
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    return fastpath.native


def _subjects(fast: bool, max_hold: int = 8192) -> dict[str, Make]:
    """ "on" (the default build), "off" (the Python method over the feed as before); `same` adds the pure path."""
    off = sameness.variant(fast, max_hold, (("feed", fastpath.python_feed(Redactor)),), (("lean_off", True),))
    return {"on": sameness.variant(fast, max_hold), "off": off}


def test_the_compiled_method_is_on_the_class_and_the_python_one_behind_it() -> None:
    native = _native()
    method = Redactor.__dict__["feed"]
    assert type(method) is native.FeedMethod
    assert Redactor.feed is method.__wrapped__  # on the class: the Python function (inspect, a subclass)
    assert Redactor.feed.__name__ == "feed" and repr(Redactor().feed).startswith("<bound method Redactor.feed of")
    assert fastpath.python_feed(Redactor) is Redactor.feed


def test_the_common_path_takes_no_python_frame() -> None:
    # Not vacuous: on the common path the Python method is not entered at all, off it, it is.
    entered = []
    python = fastpath.python_feed(Redactor)

    def spy(self: Redactor, piece: str, **kw: str) -> Step:
        entered.append(piece)
        result: Step = python(self, piece, **kw)
        return result

    method = _native().FeedMethod(spy, Redactor.__dict__["_feed_rest"], Redactor.__dict__["_release_step"])

    class Spied(Redactor):
        feed = method

    r = Spied()
    for piece in ("Hello ", "there, ", "mail jane@", "example.com ", "now"):
        r.feed(piece)
    assert entered == []
    r.feed("x", lookahead="y")  # a keyword: the Python method
    r.feed("y ")  # a lookahead pending: the Python method
    assert entered == ["x", "y "]
    r.flush()
    assert r.feed("more") is r.feed("again")  # done: the Python method's EMPTY_STEP
    assert entered == ["x", "y ", "more", "again"]


def test_a_subclass_that_overrides_what_the_method_calls_gets_the_python_method() -> None:
    calls: list[str] = []

    class Own(Redactor):
        def _feed_rest(self, piece: str) -> Step:
            calls.append("rest")
            return super()._feed_rest(piece)

        def _release_step(self, point: int) -> Step:
            calls.append("release")
            return super()._release_step(point)

    r = Own()
    assert r._quick_native is not None  # the compiled feed still, under the Python method
    out = "".join(r.feed(p).text for p in ("a@b.co", "m x", "é\u200b")) + r.flush().text
    assert out == "<EMAIL_ADDRESS> xé\u200b"
    # the settle of the address, and the piece that needs the view map, through the overrides
    assert "release" in calls and "rest" in calls


def test_bad_input_is_the_python_methods_error() -> None:
    r = Redactor()
    with pytest.raises(TypeError):
        r.feed(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        r.feed()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        r.feed("a", "b")  # type: ignore[misc]
    assert r.feed("ok ").text == "ok "


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_corpora(fast: bool) -> None:
    sameness.on_corpora(_subjects, fast, 33)


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_suites(fast: bool) -> None:
    sameness.on_suites(_subjects, fast, 17)


_PIECES = st.one_of(
    st.sampled_from(
        ['{"name": "', '"token": "', '", ', '": ', '"', "==", " != ", "password", "api_key = ", "if (", "a@b.co"]
        + ["4111 1111 1111 1111", "10.0.0.1", "AKIAQAVSYEEFNPAXX3I4", "-----BEGIN RSA PRIVATE KEY-----\n", "é"]
    ),
    st.text(st.sampled_from(list("aZ0_-.:=\"',( \n")), max_size=6),
)


@sameness.chunkings(_PIECES, max_examples=150)
def test_the_same_steps_on_generated_texts(
    text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool
) -> None:
    sameness.on_chunking(_subjects, text, sizes, aheads, max_hold, truncated)


def _kind(m: regex.Match[str] | None) -> str:
    return "none" if m is None else "open" if m.partial else "complete"


def _rest_asks(text: str, near: Callable[[str, int], bool] | None = None) -> int:
    """At every `near_rest` start of `text` (cut at several ends after it) where the compiled feed asks the rest
    alone — no label tail before it, the rest's shape not ruling it out — assert the rest's answer is the
    detector's (within k characters of the end only an answer that is not "none": the feed asks the detector
    after a "none" there). Return how many were compared."""
    compared = 0
    for d in _REST:
        assert d.near_rest is not None
        chars, k, rest = d.near_rest
        flags = d.compiled.flags
        ask = fastpath._rest_match(d.first, rest, flags)
        rest_shape = shape(rest, flags, fastpath.REST_PLACES)
        assert rest_shape is not None
        for v, ch in enumerate(text):
            if ch not in chars or (near(text, v) if near is not None else labels.label_near(text, v, LOOKBEHIND)):
                continue
            for end in {len(text), *(min(len(text), v + j) for j in (1, 2, 3, 4, 5, 8, 16, 40, 64, 70, 300))}:
                cut = text[:end]
                if rest_shape.rules_out(cut, v):
                    continue
                compared += 1
                got = _kind(ask(cut, v, None, False, True))
                if end - v <= k and got == "none":  # the feed asks the detector then
                    continue
                assert got == _kind(d.compiled.match(cut, v, partial=True)), (cut, v)
    return compared


def test_the_rest_answers_as_the_detector_on_the_corpora_and_the_suites() -> None:
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text, C.prose(6000)]
    texts += sameness.suite_texts()
    assert sum(_rest_asks(t) for t in texts) > 1000


_CODE = st.one_of(
    st.sampled_from(['"', '" == ', '"==', " === ", "!=", " ", "password", "token", "x", "abc", "==="]),
    st.text(st.sampled_from(list('aZ0_-."= ')), max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CODE, max_size=16).map("".join))
def test_the_rest_answers_as_the_detector_on_generated_texts(text: str) -> None:
    _rest_asks(text)


def test_the_rest_is_asked_and_can_differ_in_cost_only() -> None:
    # The feed asks the rest at a JSON string's quote: the answers the stream gets are the same (above), and
    # the rest alone is the cheaper pattern (fewer repeats for the engine to reset on each call).
    (d,) = _REST
    assert d.near_rest is not None
    ask = fastpath._rest_match(d.first, d.near_rest[2], d.compiled.flags)
    view = '{"id": 7, "name": "abcdefghij'
    v = view.rindex('"')
    assert _kind(ask(view, v, None, False, True)) == _kind(d.compiled.match(view, v, partial=True)) == "open"
    # (a quarter before stop 36; its quoted forms' one lookbehind halved the whole pattern, not the rest)
    assert len(ask.__self__.pattern) < len(d.compiled.pattern) // 3  # type: ignore[attr-defined]


def test_a_piece_that_fills_max_hold_is_not_searched_by_the_compiled_feed() -> None:
    # As the Python method: a piece that would fill `max_hold` goes to the rest of the method without the compiled
    # feed's search of a non-ASCII piece for characters to normalize (all of it: 30 ms for 256 KiB of prose).
    from sluicegate._stream import EMPTY_STEP
    from sluicegate._stream import Step as StepClass
    from sluicegate.redaction import prefilter, redactor, starters
    from sluicegate.redaction.normalize import _SPECIAL

    searched: list[int] = []

    def special(piece: str) -> object:
        searched.append(len(piece))
        return _SPECIAL.search(piece)

    args = (StepClass, EMPTY_STEP, LOOKBEHIND, redactor._EAGER, starters._PER_CHAR, starters._PAIRS_MAX)
    _native().configure(prefilter, special, *args)
    try:
        r = Redactor(max_hold=64)
        first = r.feed("é ok ")
        # (the compiled feed asks about a short non-ASCII piece: its one non-ASCII character, test_feed_fixed.py)
        assert searched == [1]
        step = r.feed("é" * 100)
        assert searched == [1]  # not asked: the Python path took it
    finally:
        redactor.configure_native()
    pure = sameness.pure(True, 64)()
    assert [first, step] == [pure.feed("é ok "), pure.feed("é" * 100)]


def test_the_shared_near_answers_are_the_engines() -> None:
    # The compiled feed remembers, per pattern and for the whole process, the engine's answer at a label start
    # with no label tail before it by the text after it; every remembered answer is the engine's for that text
    # after a label-less context (so sharing it between streams changes no answer).
    for make in CORPORA.values():
        r = Redactor()
        text = make(4000)
        for i in range(0, len(text), 4):
            r.feed(text[i : i + 4])
    checked = 0
    for d in (d for d in BUILTIN if d.near is not None):
        cache = fastpath._near_cache(d.compiled.pattern, d.compiled.flags)
        for key, is_open in list(cache.items())[:400]:
            for ctx in ("", "x" * LOOKBEHIND, "\n{ 12, "):
                m = d.compiled.match(ctx + key, len(ctx), partial=True)
                assert (m is not None) == is_open and (m is None or m.partial), (key, ctx)
            checked += 1
    assert checked > 100
