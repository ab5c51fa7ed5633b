"""The byte-identity files' one comparison: subjects (a `Redactor` subclass with a switch on or off) against the
pure path, step by step, on the same cuts of the same texts.

Each file states its subjects (`variant`) and calls `same`; the pure path's steps on a given cut list (the
reference, ~15x slower than a compiled subject) are computed once a test session (`reference`: a cache keyed by
the calls, `[fast]`, `max_hold` and the flush), as every file compares its subjects on the same cuts of the same
corpora and suites. The cuts (`corpus_cuts`, `suite_cuts`) and the Hypothesis chunkings (`chunkings`) are here too,
so that every file cuts alike.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from .suite_cases import NAMES, load

Call = tuple[str, str]  # (piece, lookahead)
Make = Callable[[], Redactor]
State = Callable[[Redactor], Any]


def cut(text: str, sizes: list[int]) -> list[Call]:
    """`text` cut at `sizes` (in turn), no lookaheads."""
    out, at, k = [], 0, 0
    while at < len(text):
        n = sizes[k % len(sizes)]
        out.append((text[at : at + n], ""))
        at += n
        k += 1
    return out


def calls_with_lookaheads(text: str, sizes: list[int], aheads: list[int]) -> list[Call]:
    """`text` cut at `sizes` (in turn), the k-th call with the next `aheads[k % len(aheads)]` characters as its
    lookahead where that is not 0: a true lookahead (the start of what comes next), as a stage before would hand
    on."""
    calls = cut(text, sizes)
    at = 0
    for k, (piece, _) in enumerate(calls):
        at += len(piece)
        n = aheads[k % len(aheads)]
        if n:
            calls[k] = (piece, text[at : at + n])
    return calls


@cache
def _corpus_texts() -> tuple[str, ...]:
    return (*(make(6000) for make in CORPORA.values()), C.planted(6000).text, C.prose(3000))


def corpus_texts() -> list[str]:
    """The four corpora27 generators' texts and issue 17's planted text and prose (the byte-identity files'
    corpus)."""
    return list(_corpus_texts())


@cache
def _suite_texts() -> tuple[str, ...]:
    return tuple(case["text"] for name in NAMES for case in load(name))


def suite_texts() -> list[str]:
    """Every case of the five suites."""
    return list(_suite_texts())


def corpus_cuts(texts: list[str], seed: int) -> Iterator[list[Call]]:
    """Each text cut into 4s, into 1s and into 50 random sizes up to 64 (`seed`): the byte-identity files'
    comparison on the corpora."""
    rng = random.Random(seed)
    for text in texts:
        for sizes in ([4], [1], [rng.randint(1, 64) for _ in range(50)]):
            yield cut(text, sizes)


def suite_cuts(seed: int) -> Iterator[tuple[list[Call], int]]:
    """Each suite case cut into 4s and into 20 random sizes up to 9 (`seed`) at the default `max_hold`, then into
    5s at `max_hold` 24 (where streams stop): (calls, max_hold), the byte-identity files' comparison on the
    suites."""
    rng = random.Random(seed)
    for text in suite_texts():
        for sizes in ([4], [rng.randint(1, 9) for _ in range(20)]):
            yield cut(text, sizes), 8192
        yield cut(text, [5]), 24


def run(make: Make, calls: list[Call], truncated: bool = False, state: State | None = None) -> list[tuple[Any, ...]]:
    """A fresh stream of `make` fed `calls`, then flushed: each Step's text, stop flag and events and `held`
    after it (and `state(r)` where given)."""
    r = make()
    out: list[tuple[Any, ...]] = []
    for piece, ahead in calls:
        step = r.feed(piece, lookahead=ahead) if ahead else r.feed(piece)
        out.append((step.text, step.stopped, step.events, r.held) + ((state(r),) if state else ()))
    last = r.flush(truncated=truncated)
    out.append((last.text, last.stopped, last.events, r.held) + ((state(r),) if state else ()))
    return out


@cache
def variant(
    fast: bool, max_hold: int = 8192, attrs: tuple[tuple[str, Any], ...] = (), feed: tuple[tuple[str, Any], ...] = ()
) -> Make:
    """A factory of fresh Redactors of a subclass with `_COMPILED = fast` and `attrs` (name, value) on it; with
    `feed`, each one's compiled feed is rebuilt by `fastpath.compiled_feed` with those keywords (a switch of the
    feed's build). Classes made and detectors compiled once per configuration (test_factory)."""
    cls = type("Subject", (Redactor,), {"_COMPILED": fast, **dict(attrs)})
    make = cls.factory(max_hold=max_hold)
    if not feed:
        return make
    switches = dict(feed)

    def rebuilt() -> Redactor:
        r = make()
        assert r._tracker is not None and r._quick_native is not None
        r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, **switches)
        return r

    return rebuilt


def pure(fast: bool, max_hold: int = 8192) -> Make:
    """The pure path: no compiled feed (`_NATIVE = False`), with or without `[fast]`."""
    return variant(fast, max_hold, (("_NATIVE", False),))


_REFERENCE: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}


def reference(calls: list[Call], fast: bool, max_hold: int = 8192, truncated: bool = False) -> list[tuple[Any, ...]]:
    """The pure path's steps (text, stop flag, events, held) on `calls`: computed once a session per (calls,
    `fast`, `max_hold`, `truncated`). A test that changes a module's setting the pure path may read must compare
    with `same(..., cached=False)`."""
    key = (tuple(calls), fast, max_hold, truncated)
    got = _REFERENCE.get(key)
    if got is None:
        got = _REFERENCE[key] = run(pure(fast, max_hold), calls, truncated)
    return got


def same(
    subjects: Mapping[str, Make],
    calls: list[Call],
    fast: bool,
    max_hold: int = 8192,
    truncated: bool = False,
    *,
    state: State | None = None,
    cached: bool = True,
) -> None:
    """Every subject's steps are the pure path's (and, with `state`, every subject's state after each step is the
    first subject's: the pure path keeps no candidate list to compare it with)."""
    want = reference(calls, fast, max_hold, truncated) if cached else run(pure(fast, max_hold), calls, truncated)
    first: list[tuple[Any, ...]] | None = None
    for name, make in subjects.items():
        got = run(make, calls, truncated, state)
        assert [g[:4] for g in got] == want, (name, "pure", calls)
        if first is None:
            first = got
        assert got == first, (name, calls)  # (with `state`: every state field too)


Subjects = Callable[[bool, int], Mapping[str, Make]]  # (fast, max_hold) -> the subjects by name


def on_corpora(subjects: Subjects, fast: bool, seed: int, texts: list[str] | None = None, **kw: Any) -> None:
    """`same` on `corpus_cuts` of `texts` (the corpus by default)."""
    for calls in corpus_cuts(corpus_texts() if texts is None else texts, seed):
        same(subjects(fast, 8192), calls, fast, **kw)


def on_suites(subjects: Subjects, fast: bool, seed: int, **kw: Any) -> None:
    """`same` on `suite_cuts` (at max_hold 24 streams stop: a feed after a stop too)."""
    for calls, max_hold in suite_cuts(seed):
        same(subjects(fast, max_hold), calls, fast, max_hold, **kw)


def on_chunking(
    subjects: Subjects, text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool, **kw: Any
) -> None:
    """`same` on one of `chunkings`' examples, with and without `[fast]`."""
    calls = calls_with_lookaheads(text, sizes, aheads)
    for fast in (True, False):
        same(subjects(fast, max_hold), calls, fast, max_hold, truncated, **kw)


def chunkings(
    pieces: st.SearchStrategy[str], *, max_examples: int, max_size: int = 20, holds: tuple[int, ...] = (8192, 40)
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The byte-identity files' Hypothesis property: a text of up to `max_size` of `pieces`, its cut sizes, its
    lookaheads (`calls_with_lookaheads`), a `max_hold` of `holds` and whether the flush is truncated."""
    strategies = (
        st.lists(pieces, max_size=max_size).map("".join),
        st.lists(st.integers(1, 12), min_size=1, max_size=8),
        st.lists(st.integers(0, 6), min_size=1, max_size=8),
        st.sampled_from(list(holds)),
        st.booleans(),
    )

    def wrap(test: Callable[..., None]) -> Callable[..., None]:
        return settings(max_examples=max_examples, deadline=None)(given(*strategies)(test))  # type: ignore[no-any-return]

    return wrap
