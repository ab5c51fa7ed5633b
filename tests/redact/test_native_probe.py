"""`_native.Probe` (tracker.C_PROBE, stop 35): the tracker's bounded probe compiled, the same answers as the Python
closure it stands for (`tracker._open_probe` with `C_PROBE` off), for every built-in detector, on the corpora and on
Hypothesis texts (ASCII, non-ASCII, each detector's own characters), at every kind of position, with the arguments
positional or by keyword; then the stream with it on, off and the pure path.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, tracker
from sluicegate.redaction.registry import BUILTIN
from tests.benchmarks.corpora27 import CORPORA

from .sameness import Call, corpus_cuts, corpus_texts, same, suite_cuts


def _native() -> Any:
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    return fastpath.native


def _pairs() -> list[tuple[Any, Any, Any]]:
    """(detector, compiled probe, Python probe) for every built-in with a bounded probe."""
    native = _native()
    out = []
    for d in BUILTIN:
        got = tracker._open_probe(d)
        if type(got) is native.Probe:
            out.append((d, got, got.fallback))
    return out


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    fields = ("partial", "re", "string", "pos", "endpos")
    return a.span() == b.span() and all(getattr(a, f) == getattr(b, f) for f in fields)


def _answer(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except Exception as e:  # the same error either way (a bad argument)
        return type(e)


def _check(view: str, pos: Any, rng: random.Random) -> int:
    checked = 0
    for _d, c, py in _pairs():
        for args, kw in [
            ((view, pos), {"partial": True}),
            ((view, pos, None, False, True), {}),
            ((view, pos, None, None, False), {}),
            ((view, pos), {}),
            ((view, pos, None), {"concurrent": False, "partial": True}),
            ((view, pos, rng.randint(0, len(view) + 2), False, True), {}),
            ((view,), {"pos": pos, "partial": True}),
        ]:
            a, b = _answer(c, *args, **kw), _answer(py, *args, **kw)
            if isinstance(a, type) or isinstance(b, type):
                assert a == b, (view, args, kw)
            else:
                assert _same(a, b), (view, args, kw, a, b)
            checked += 1
    return checked


def test_every_bounded_probe_is_compiled() -> None:
    got = {d.entity for d, _, _ in _pairs()}
    assert {"EMAIL_ADDRESS", "IP_ADDRESS", "PHONE_NUMBER", "JWT", "CREDIT_CARD"} <= got, got
    tracker.C_PROBE = False
    try:
        assert all(type(tracker._open_probe(d)) is not _native().Probe for d in BUILTIN)
    finally:
        tracker.C_PROBE = True


def test_the_stop_table_is_the_stop_search_on_each_character() -> None:
    # The table's claim: on ASCII text the reverse search finds the last character it takes alone.
    rng = random.Random(35)
    for d, _c, _py in _pairs():
        if d.stop is None:
            continue
        for _ in range(200):
            view = "".join(chr(rng.randrange(128)) for _ in range(rng.randint(0, 12)))
            got = d.stop.search(view, 0)
            want = max((j + 1 for j, ch in enumerate(view) if d.stop.search(ch) is not None), default=None)
            assert (None if got is None else got.end()) == want, (d.entity, view)


def test_the_probes_agree_on_the_corpora() -> None:
    rng = random.Random(35)
    checked = 0
    for make in CORPORA.values():
        text = make(3000)
        for _ in range(60):
            end = rng.randint(0, len(text))
            checked += _check(text[:end], rng.randint(0, end), rng)
    assert checked > 1000


_CHARS = st.sampled_from(list("aZ09@._-+:/ \n\"',=()[]%") + ["é", "ß", "٣", "\u00a0", "\u200b", "К", "中", "😀"])


@settings(max_examples=400, deadline=None)
@given(st.text(_CHARS, max_size=40), st.integers(-3, 45), st.integers(0, 2**32))
def test_the_probes_agree_on_generated_texts(view: str, pos: int, seed: int) -> None:
    _check(view, pos, random.Random(seed))


def test_odd_arguments_go_to_the_python_probe() -> None:
    for _d, c, py in _pairs()[:3]:
        for args in [(b"bytes", 0), ("text", 1.0), ("text", True), ("text", 2**70), ("text",)]:
            a, b = _answer(c, *args), _answer(py, *args)
            assert (a == b) if isinstance(a, type) or isinstance(b, type) else _same(a, b), args


def _compare(calls: list[Call], max_hold: int = 8192) -> None:
    def off() -> Redactor:
        tracker.C_PROBE = False
        try:
            return Redactor(max_hold=max_hold)  # (a new engine: its tables made with the switch off)
        finally:
            tracker.C_PROBE = True

    # on and off step for step, and both the pure path's (once a session)
    same({"on": Redactor.factory(max_hold=max_hold), "off": off}, calls, False, max_hold)


@pytest.mark.parametrize("seed", [35])
def test_the_stream_is_the_same_with_the_compiled_probe_off_and_on_the_pure_path(seed: int) -> None:
    for calls in corpus_cuts(corpus_texts(), seed):
        _compare(calls)
    for calls, max_hold in suite_cuts(seed):
        _compare(calls, max_hold)
