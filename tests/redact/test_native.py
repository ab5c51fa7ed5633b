"""The compiled fast path of `Redactor.feed` (redaction/_native.c) against the Python one, feed by feed.

The extension is built at install time wherever a C compiler is present (setup.py, `optional=True`); the test
machines have one, so its absence is a failure here, not a skip. Byte-identity with the frozen pre-rework
oracle is in test_oracle.py (its "python" pair runs with neither compiled part); this file compares the two
current paths directly on texts that exercise every branch the C code hands back to Python: non-ASCII pieces
that need the view map, long new text, findings to settle, the prefilter on every range, stops at a small
`max_hold`, custom detectors (more bits, untrusted starters), and the pair table filling up.
"""

from __future__ import annotations

import functools
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor
from sluicegate.redaction import prefilter as pf
from sluicegate.redaction import redactor as redactor_module
from sluicegate.redaction import starters as starters_module
from tests.benchmarks import corpus as bench_corpus

from .corpus import CHINESE, CUSTOM_DETECTORS, ENGLISH, FUZZ_VALUES, PERSIAN
from .corpus import feed_steps as _steps
from .test_incremental import _PIECE


class _NoNative(Redactor):
    _NATIVE = False


class _NoNativePure(Redactor):
    _NATIVE = False
    _COMPILED = False


class _NativePure(Redactor):
    _COMPILED = False


def test_the_compiled_feed_was_built_and_is_used() -> None:
    assert redactor_module._native is not None, "redaction/_native.c was not built (is a C compiler installed?)"
    assert Redactor()._quick_native is not None
    assert _NoNative()._quick_native is None


def test_the_feeds_per_detector_tuples_are_made_once_per_selection_of_these_detectors() -> None:
    from dataclasses import replace

    from sluicegate.redaction import fastpath
    from sluicegate.redaction.registry import BUILTIN

    make = Redactor.factory()
    make()
    before = fastpath._per_detector.cache_info()
    make()
    Redactor()  # (a new engine over the same built-ins)
    after = fastpath._per_detector.cache_info()
    assert (after.hits, after.misses) == (before.hits + 2, before.misses)
    # By identity, not equality: a custom detector equal to a built-in is not one (shapes are the built-ins').
    d = next(d for d in BUILTIN if fastpath._shape(d.compiled.pattern, d.compiled.flags) is not None)
    twin = replace(d)
    assert twin == d and twin is not d
    mine = fastpath._per_detector(fastpath._Selection((d,)), False, False, False, False)
    theirs = fastpath._per_detector(fastpath._Selection((twin,)), False, False, False, False)
    assert mine[2] != (None,) and theirs[2] == (None,)


def _same(pieces: list[str], **opts: object) -> None:
    assert _steps(functools.partial(Redactor, **opts), pieces) == _steps(functools.partial(_NoNative, **opts), pieces)
    got = _steps(functools.partial(_NativePure, **opts), pieces)
    assert got == _steps(functools.partial(_NoNativePure, **opts), pieces)


@settings(max_examples=200)
@given(st.lists(_PIECE, max_size=40).map("".join), st.data(), st.sampled_from([8192, 64, 300]))
def test_compiled_feed_equals_python_feed_by_feed(text: str, data: st.DataObject, max_hold: int) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    pieces = [text[a:b] for a, b in pairwise([0, *cuts, len(text)])]
    _same(pieces, max_hold=max_hold)
    _same(pieces, max_hold=max_hold, custom=CUSTOM_DETECTORS)
    _same(list(text), max_hold=max_hold)


@pytest.mark.parametrize("size", [1, 2, 4, 7, 70])
def test_compiled_feed_equals_python_on_the_benchmark_corpora(size: int) -> None:
    for text in (bench_corpus.planted(24_000).text, bench_corpus.prose(12_000)):
        _same([text[i : i + size] for i in range(0, len(text), size)])


def test_compiled_feed_equals_python_with_the_prefilter_on_every_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pf, "MIN_RANGE", 0)
    text = "\n".join(
        p + " " + v + " " + q
        for p, v, q in zip([ENGLISH, PERSIAN, CHINESE] * 40, FUZZ_VALUES, FUZZ_VALUES[1:], strict=False)
    )
    for size in (1, 4, 9):
        _same([text[i : i + size] for i in range(0, len(text), size)])


def test_compiled_feed_equals_python_when_the_pair_table_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the cap, pairs are answered by the one-character table without being remembered; the compiled path
    # mirrors the cap it was configured with, so both are given a tiny one here.
    monkeypatch.setattr(starters_module, "_PAIRS_MAX", 3)
    redactor_module.configure_native()
    try:
        text = bench_corpus.planted(8_000, seed=11).text
        _same([text[i : i + 4] for i in range(0, len(text), 4)], custom=CUSTOM_DETECTORS)
    finally:
        monkeypatch.undo()
        redactor_module.configure_native()


def test_a_step_from_the_compiled_feed_is_a_step() -> None:
    import dataclasses

    from sluicegate._stream import EMPTY_STEP, Step

    r = Redactor()
    got = r.feed("Hello there ")
    assert type(got) is Step and got == Step("Hello there ") and hash(got) == hash(Step("Hello there "))
    assert repr(got) == repr(Step("Hello there ")) and dataclasses.asdict(got) == dataclasses.asdict(
        Step("Hello there ")
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.text = "x"  # type: ignore[misc]
    assert r.feed("wor") is EMPTY_STEP
