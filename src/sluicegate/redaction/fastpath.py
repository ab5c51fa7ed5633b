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


@lru_cache(maxsize=256)
def _shape(pattern: str, flags: int, places: int | None = None) -> object:
    """The compiled feed's copy of a pattern's shape (shape.py), shared by every Redactor; None if it has none."""
    from .shape import PLACES, shape

    got = shape(pattern, flags, PLACES if places is None else places)
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


def compiled_feed(
    tracker: OpenTracker,
    max_hold: int,
    *,
    near_off: bool = False,
    shape_off: bool = False,
    rest_off: bool = False,
    lean_off: bool = False,
    kept: tuple[tuple[Any, Any], ...] | None = None,
) -> Callable[[Any, str], Any]:
    """`quick(redactor, piece)` of a new `_native.Feed` over `tracker` (only with `native` not None): a Step
    (handled), an int (the point to settle: the caller settles and releases it) or None (not handled, nothing
    changed: the caller takes the Python path). `kept` (from `keepers(tracker)`): the feed asks each detector's
    `match` and `search` through these, which keep its last match for `Engine.settle_short`."""
    from .starters import BUILTIN_IDS

    s = tracker._starters
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
        # `near_off`: no label pre-check (tests/benchmarks/redactor_near_ab.py measures it against this)
        # `rest_off`: no `near_rest` claim (tests/benchmarks/redactor_quote_ab.py measures it against this)
        near=tuple(None if near_off else _near(d, rest_off, not lean_off) for d in tracker._detectors),
        near_bits=_near_bits(),
        near_tails=_near_tails(),
        # The near answers are the pattern's and the text's alone: remembered once per process (`lean_off`: per
        # Feed, as before).
        near_caches=tuple(
            None if lean_off or d.near is None else _near_cache(d.compiled.pattern, d.compiled.flags)
            for d in tracker._detectors
        ),
        near_window=LOOKBEHIND,
        # `shape_off`: no shape check (tests/benchmarks/redactor_shape_ab.py measures it against this). Built-ins
        # only: a custom detector is never asked at candidates (it is in the starters' `always` mask).
        shape=tuple(
            None if shape_off or id(d) not in BUILTIN_IDS else _shape(d.compiled.pattern, d.compiled.flags)
            for d in tracker._detectors
        ),
        # `lean_off`: the engine asked with the GIL released around each call and the whole detector asked at a
        # `near_rest` start, as before (tests/benchmarks/redactor_lean_ab.py measures it against this)
        lean=not lean_off,
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
