"""Differential test against the frozen oracle (tests/redact/oracle/, the Redactor before issue 17's rework).

Issue 17 reworks the hot path for speed and promises every output byte-identical to today's: the same Step
(released text, stop flag, events) and the same `held` after every single feed, on the benchmark corpora
(tests/benchmarks/corpus.py and tests/benchmarks/redactor.py) and on the redactor fuzz corpora, fed whole, in
1-character, 4-character and random pieces, with and without the compiled prefilter, at the default and at a
small `max_hold` (so that fail-closed stops are compared too), with custom detectors and every operator.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor
from tests.benchmarks import corpus as bench_corpus
from tests.benchmarks import redactor as bench_redactor

from . import oracle
from .corpus import CUSTOM_DETECTORS, FUZZ_VALUES, NOT_VALUES
from .corpus import feed_steps as _steps
from .test_incremental import _PIECE


class _OraclePure(oracle.Redactor):
    _COMPILED = False


class _Pure(Redactor):
    _COMPILED = False


class _Python(Redactor):  # neither compiled part: no prefilter and no compiled feed (redaction/_native.c)
    _COMPILED = False
    _NATIVE = False


PAIRS: list[tuple[str, type, type]] = [
    ("default", Redactor, oracle.Redactor),
    ("pure", _Pure, _OraclePure),
    ("python", _Python, _OraclePure),
]


def _chunkings(text: str, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    cuts: list[str] = []
    i = 0
    while i < len(text):
        n = rng.choice((1, 2, 3, 5, 8, 13, 40, 200))
        cuts.append(text[i : i + n])
        i += n
    return {
        "whole": [text],
        "1-char": list(text),
        "4-char": [text[i : i + 4] for i in range(0, len(text), 4)],
        "random": cuts,
    }


def _compare(ours: Callable[[], object], theirs: Callable[[], object], pieces: list[str]) -> None:
    got, want = _steps(ours, pieces), _steps(theirs, pieces)
    if got != want:  # name the first feed that differs rather than dumping both lists
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g == w, f"feed {k} (piece {pieces[k] if k < len(pieces) else 'flush'!r}) differs"
    assert got == want


_PLANTED = bench_corpus.planted(48_000).text
_PROSE = bench_corpus.prose(24_000)
_BENCH = bench_redactor.corpus(24_000)
_FUZZ = " ".join(FUZZ_VALUES + NOT_VALUES)
CORPORA = {"planted": _PLANTED, "prose": _PROSE, "bench-redactor": _BENCH, "fuzz-values": _FUZZ}


@pytest.mark.parametrize("path", [p[0] for p in PAIRS])
@pytest.mark.parametrize("chunking", ["whole", "1-char", "4-char", "random"])
@pytest.mark.parametrize("name", list(CORPORA))
def test_benchmark_corpora_equal_the_oracle(name: str, chunking: str, path: str) -> None:
    _, ours, theirs = next(p for p in PAIRS if p[0] == path)
    pieces = _chunkings(CORPORA[name], seed=len(name))[chunking]
    _compare(ours, theirs, pieces)


@pytest.mark.parametrize("max_hold", [64, 300])
@pytest.mark.parametrize("chunking", ["whole", "1-char", "random"])
def test_small_max_hold_stops_equal_the_oracle(max_hold: int, chunking: str) -> None:
    text = _FUZZ + " " + _PLANTED[:6000]
    pieces = _chunkings(text, seed=max_hold)[chunking]
    for _, ours, theirs in PAIRS:
        _compare(functools.partial(ours, max_hold=max_hold), functools.partial(theirs, max_hold=max_hold), pieces)


def _tagged(entity: str, raw: str) -> str:
    return f"[{entity}:{len(raw)}:{raw[:1]}]"


# A plain callable, not `Hash`: each package only accepts its own operator classes.
@pytest.mark.parametrize("operator", ["replace", "mask", _tagged])
def test_custom_detectors_and_operators_equal_the_oracle(operator: object) -> None:
    text = _FUZZ + " " + _PLANTED[:8000]
    opts = {"custom": CUSTOM_DETECTORS, "operator": operator, "allow": ["user@example.com"]}
    for pieces in _chunkings(text, seed=3).values():
        _compare(functools.partial(Redactor, **opts), functools.partial(oracle.Redactor, **opts), pieces)


def test_truncated_flush_equals_the_oracle() -> None:
    for value in FUZZ_VALUES:
        for cut in range(1, len(value), max(1, len(value) // 7)):
            text = "see " + value[:cut]
            ours, theirs = Redactor(), oracle.Redactor()
            a = [ours.feed(p) for p in text] + [ours.flush(truncated=True)]
            b = [theirs.feed(p) for p in text] + [theirs.flush(truncated=True)]
            assert a == b, text


@settings(max_examples=200)
@given(st.lists(_PIECE, max_size=40).map("".join), st.data(), st.sampled_from([8192, 64, 300]))
def test_fuzzed_texts_equal_the_oracle_feed_by_feed(text: str, data: st.DataObject, max_hold: int) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    pieces = [text[a:b] for a, b in pairwise([0, *cuts, len(text)])]
    for chunks in (pieces, list(text), [text]):
        for _, ours, theirs in PAIRS:
            _compare(functools.partial(ours, max_hold=max_hold), functools.partial(theirs, max_hold=max_hold), chunks)
            _compare(
                functools.partial(ours, max_hold=max_hold, custom=CUSTOM_DETECTORS),
                functools.partial(theirs, max_hold=max_hold, custom=CUSTOM_DETECTORS),
                chunks,
            )
