"""The one place that chooses the path of `Redactor.feed`: the compiled feed (`_native.c`) or pure Python.

Why here: the pure-Python path (`Redactor.feed` and `OpenTracker.open_from`) is the oracle the compiled one is
tested against, so choosing must be one decision, not spread over the classes (markupsafe's `_speedups.c`
beside `_native.py` is the model). The compiled feed gets what it needs explicitly, once per Redactor, as the
arguments of a `_native.Feed` (built by `compiled_feed` below: a name changed on the Python side fails there,
loudly). What it still reads and writes by name is the two classes' moving state, listed by the extension
itself in `_native.STATE` and checked against the classes by tests/redact/test_native_boundary.py.

`SLUICEGATE_PURE=1` in the environment, a missing C compiler at install time, `Redactor._NATIVE = False` or a
subclass that overrides a method the compiled feed does in its place: the pure path, with the same output.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import regex

from .detector import LOOKBEHIND

if TYPE_CHECKING:
    from .starters import Starters
    from .tracker import OpenTracker

native: Any  # the compiled extension (_native.c), or None
try:
    if os.environ.get("SLUICEGATE_PURE"):
        raise ImportError("SLUICEGATE_PURE is set")
    native = importlib.import_module(f"{__package__}._native")
except ImportError:  # no C compiler at install time, or turned off: the pure path gives the same output
    native = None

wholec: Any  # the one pass's small helpers (_wholec.c: `distinct`), or None, by the same rule
try:
    if os.environ.get("SLUICEGATE_PURE"):
        raise ImportError("SLUICEGATE_PURE is set")
    wholec = importlib.import_module(f"{__package__}._wholec")
except ImportError:
    wholec = None


def configure(eager: int) -> None:
    """Hand the compiled feed the module values it mirrors (again after a test changes one of them)."""
    if native is not None:
        from .._stream import EMPTY_STEP, Step
        from . import prefilter, starters
        from .detector import LOOKBEHIND
        from .normalize import _SPECIAL

        native.configure(
            prefilter, _SPECIAL.search, Step, EMPTY_STEP, LOOKBEHIND, eager, starters._PER_CHAR, starters._PAIRS_MAX
        )


def _tables(starters: Starters) -> object:
    """The C mirror of `starters`' tables, made once and kept on it (streams of one selection share it)."""
    got = starters.native_tables
    if got is None:
        got = starters.native_tables = native.new_tables()
    return got


@lru_cache(maxsize=1)
def _near_bits() -> bytes:
    from .labels import near_tables

    return near_tables()


@lru_cache(maxsize=64)
def _near_cache(pattern: str, flags: int) -> dict[str, bool]:
    """The compiled feed's remembered answers at a label start with no label tail before it, by the text after
    it (`_native.c`, `near_remember`: at most 4096), shared by every Feed of this pattern: the engine's answer
    there depends on the pattern and that text alone (tests/redact/test_label_near.py checks the claim)."""
    return {}


@lru_cache(maxsize=1)
def _near_tails() -> tuple[str, ...]:
    """The ASCII tails `near_tables()` sets bits for: the compiled feed checks a bit's hit against them."""
    from .labels import tails

    return tuple(sorted(t for t in tails() if t.isascii()))


@lru_cache(maxsize=1)
def _near_forms() -> tuple[tuple[str, ...], ...]:
    """Per tail of `_near_tails()`, the label words' forms that end in it (labels.forms())."""
    from .labels import forms

    got = forms()
    return tuple(got.get(t, ()) for t in _near_tails())


def _near_gap(detectors: Any) -> int:
    """The most characters a label detector's match starts after its label word's end (labelgap.label_gap), the
    larger over the detectors with a `near` claim; -1 where one is not known."""
    gaps = [_label_gap(d) for d in detectors if d.near is not None]
    return -1 if not gaps or None in gaps else max(g for g in gaps if g is not None)


@lru_cache(maxsize=64)
def _label_gap(d: Any) -> int | None:
    """`labelgap.label_gap(d)`, read once per detector (it parses the pattern: a new Redactor must not), and for a
    built-in from shapecache.py's file where that lists the environment."""
    from .shapecache import gap

    stored, got = gap(d)  # (by the pattern and its `near_rest`, all `label_gap` reads of a detector)
    if stored:
        return got
    from .labelgap import label_gap

    return label_gap(d)


@lru_cache(maxsize=256)
def _shape(pattern: str, flags: int, places: int | None = None) -> object:
    """The compiled feed's copy of a pattern's shape (shape.py), shared by every Redactor; None if it has none."""
    from .shape import PLACES, shape
    from .shapecache import lookup

    places = PLACES if places is None else places
    stored, packed = lookup(pattern, flags, places)  # (the built-ins' shapes, read off once: shapecache.py)
    if stored:
        return None if packed is None else native.new_shape(*packed)
    got = shape(pattern, flags, places)
    return None if got is None else native.new_shape(*got.packed(), got.places)


# Places of a `near_rest` shape: a reversed comparison's value (up to 256 characters without a space) is read
# to its closing quote and the operator after it for most values in JSON (a timestamp, a URL).
REST_PLACES = 64


@lru_cache(maxsize=64)
def _rest_match(first: str | None, rest: str, flags: int) -> Callable[..., Any]:
    """The `match` of a detector's `near_rest` alternatives alone, compiled as the detector is (`Detector.compiled`:
    behind its `first` lookahead, with its flags), shared by every Redactor."""
    body = f"(?={first})(?:{rest})" if first else rest
    got: Callable[..., Any] = regex.compile(body, flags).match
    return got


@lru_cache(maxsize=256)
def _tail(pattern: str, flags: int, guarded: bool = True) -> tuple[bytes, int] | None:
    """The compiled feed's copy of a pattern's open tail (opentail.py; `guarded`: with trailing guards), shared by
    every Redactor; None if none. The built-ins' are read off once and kept in shapecache.py's file (a lookup by
    the pattern, its flags and `guarded`: a custom pattern is not found there)."""
    from .shapecache import tail

    stored, packed = tail(pattern, flags, guarded)
    if stored:
        return packed
    from .opentail import open_tail

    got = open_tail(pattern, flags, guarded)
    return None if got is None else got.packed()


def _near(d: Any, rest_off: bool = False, lean: bool = True) -> tuple[Any, ...] | None:
    """The compiled feed's label claims of a detector: (near, near_k), and its `near_rest` with the rest's shape
    where that has one (and, with `lean`, the rest's own compiled match)."""
    if d.near is None:
        return None
    rest = None if rest_off else d.near_rest
    got = None if rest is None else _shape(rest[2], d.compiled.flags, REST_PLACES)
    if rest is None or got is None:
        return d.near, d.near_k
    ask = _rest_match(d.first, rest[2], d.compiled.flags) if lean else None
    return d.near, d.near_k, rest[0], rest[1], got, ask


class _Selection:
    """A detector tuple as a cache key by identity: `Detector`'s equality compares fields, and a custom detector
    equal to a built-in is not one (`BUILTIN_IDS`); the ids are also cheaper to hash than the fields. The cache
    holds its key, so the ids it compares stay those of live detectors."""

    __slots__ = ("detectors", "_ids")

    def __init__(self, detectors: tuple[Any, ...]) -> None:
        self.detectors = detectors
        self._ids = tuple(map(id, detectors))

    def __hash__(self) -> int:
        return hash(self._ids)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Selection) and self._ids == other._ids


@lru_cache(maxsize=32)
def _per_detector(
    selection: _Selection, near_off: bool, shape_off: bool, rest_off: bool, lean_off: bool, guarded: bool = True
) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...], int]:
    """The compiled feed's per-detector tuples (near, near_caches, shape, the open tails) and the label gap, which
    depend on the detectors alone: made once per selection and switches, not for every Redactor (they were most
    of `compiled_feed`'s cost; a tail or a gap reads the pattern again)."""
    from .starters import BUILTIN_IDS

    detectors = selection.detectors
    return (
        # `near_off`: no label pre-check (tests/benchmarks/redactor_near_ab.py measures it against this)
        # `rest_off`: no `near_rest` claim (tests/benchmarks/redactor_quote_ab.py measures it against this)
        tuple(None if near_off else _near(d, rest_off, not lean_off) for d in detectors),
        # The near answers are the pattern's and the text's alone: remembered once per process (`lean_off`: per
        # Feed, as before).
        tuple(
            None if lean_off or d.near is None else _near_cache(d.compiled.pattern, d.compiled.flags) for d in detectors
        ),
        # `shape_off`: no shape check (tests/benchmarks/redactor_shape_ab.py measures it against this). Built-ins
        # only: a custom detector is never asked at candidates (it is in the starters' `always` mask).
        tuple(
            None if shape_off or id(d) not in BUILTIN_IDS else _shape(d.compiled.pattern, d.compiled.flags)
            for d in detectors
        ),
        # `guarded` (opentail.GUARDED, read when the feed is built): tails that end in trailing guards too (a JWT's).
        tuple(
            None if d.steady or id(d) not in BUILTIN_IDS else _tail(d.pattern, d.compiled.flags, guarded)
            for d in detectors
        ),
        _near_gap(detectors),
    )


def compiled_feed(
    tracker: OpenTracker,
    max_hold: int,
    *,
    near_off: bool = False,
    shape_off: bool = False,
    rest_off: bool = False,
    lean_off: bool = False,
    fixed_off: bool = False,
    tail_off: bool = False,
    word_off: bool = False,
    kept: tuple[tuple[Any, Any], ...] | None = None,
) -> Callable[[Any, str], Any]:
    """`quick(redactor, piece)` of a new `_native.Feed` over `tracker` (only with `native` not None): a Step
    (handled), an int (the point to settle: the caller settles and releases it) or None (not handled, nothing
    changed: the caller takes the Python path). `kept` (from `keepers(tracker)`): the feed asks each detector's
    `match` and `search` through these, which keep its last match for `Engine.settle_short`."""
    s = tracker._starters
    selection = _Selection(tracker._detectors)
    from . import opentail

    near, near_caches, shapes, tails, gap = _per_detector(
        selection, near_off, shape_off, rest_off, lean_off, opentail.GUARDED
    )
    feed = native.Feed(
        tracker=tracker,
        open_from=tracker.open_from,
        search=tracker._search,
        full=tracker._full if kept is None else tuple(k[1] for k in kept),
        match=tracker._match if kept is None else tuple(k[0] for k in kept),
        reach=tracker._reach,
        steady=tracker._steady,
        prefilter=tracker._prefilter is not None,
        cache=s._cache,
        pairs=s._pairs,
        quads=s._quads,
        compute=s._compute,
        pair=s._pair,
        quad=s.quad,
        always=s._always,
        context=s._context,
        tables=_tables(s),
        max_hold=max_hold,
        near=near,
        near_bits=_near_bits(),
        near_tails=_near_tails(),
        near_caches=near_caches,
        near_window=LOOKBEHIND,
        # `word_off`: a label tail counts as a label word wherever it is in the window, as before (a JSON `export`
        # holds `port` of `passport`); else only where a form of a word ends in it, within the label gap.
        near_forms=None if word_off else _near_forms(),
        near_gap=-1 if word_off else gap,
        shape=shapes,
        # `lean_off`: the engine asked with the GIL released around each call and the whole detector asked at a
        # `near_rest` start, as before (tests/benchmarks/redactor_lean_ab.py measures it against this)
        # `tail_off`: every complete match probed and every start asked again (tests/benchmarks/redactor_check_ab.py
        # measures it against this). The pattern without its `first` lookahead, which reads only the start's
        # character; not for block detectors (their steady kinds are the claim there).
        tail=(None,) * len(tracker._detectors) if tail_off else tails,
        lean=not lean_off,
        # `fixed_off`: the common feed's fixed costs as before stop 34 (the entry's second look-ups, `special`
        # asked of every non-ASCII piece, `MIN_RANGE` by attribute twice a feed, the bounds merged key by key;
        # tests/benchmarks/redactor_fixed_ab.py measures it against this)
        fixed=not fixed_off,
    )
    quick: Callable[[Any, str], Any] = feed.quick
    return quick


def keepers(tracker: OpenTracker) -> tuple[tuple[Any, Any], ...]:
    """Per detector of `tracker`, its anchored `match` and its `search` behind a `_native.Keeper` (which keeps the
    last match it answered): handed to `compiled_feed`, so that a settle can reuse the complete match a check has
    just found (`Engine.settle_short`, `_reused`). One stream's own: a Keeper is not shared between streams."""
    keeper = native.Keeper
    return tuple(
        (keeper(m, KEEP_LIMIT), keeper(f, KEEP_LIMIT)) for m, f in zip(tracker._match, tracker._full, strict=True)
    )


# A Keeper keeps a match only on a view of at most this many characters: a kept match holds its view alive, and a
# stream has two Keepers per detector (at most ~60 views of 1 KiB, not of `max_hold`). A settle's view is short.
KEEP_LIMIT = 1024


def install_feed(cls: Any) -> None:
    """Put the compiled `feed` method (`_native.FeedMethod`) on `cls` (the Redactor), over its Python `feed`: on
    the common path (a str piece, no keyword, the stream running, the compiled feed in use) a feed then costs no
    Python frame; anything else is the Python method. Without the extension, nothing changes."""
    if native is None:
        return
    feed = cls.__dict__["feed"]
    cls.feed = native.FeedMethod(feed, cls.__dict__["_feed_rest"], cls.__dict__["_release_step"])


def python_feed(cls: Any) -> Callable[..., Any]:
    """`cls.feed` as the Python function it is without the compiled method (the same function either way when
    the extension is not built): what a subclass assigns as its `feed` to take the Python method."""
    got = cls.__dict__.get("feed", cls.feed)
    fn: Callable[..., Any] = getattr(got, "__wrapped__", got)
    return fn
