"""Incremental open point: `Engine.open_from` across feeds without asking every detector every time.

Two facts make it exact (the differential test in tests/redact/test_incremental.py compares it with
`Engine.open_from` on random texts and chunkings):
- a start position whose probe path died before the end of the buffer never touched the end, so appending text
  cannot revive it: a detector's leftmost open start never moves left, and it is re-probed from there;
- a detector that had no open start can only gain one at a character of the new text, and only at one of its
  starters (starters.py), so it is probed only if the new text holds such a character.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from functools import lru_cache

import regex

from . import fastpath
from . import prefilter as _pf
from .detector import Detector
from .settle import Engine

# Below this many characters to probe, a forward search is as cheap as looking backwards for a bound first: on
# the pure path (a probe call each) and with the prefilter (whose candidate loops a later start shortens).
_FAR = 256
_NEAR = 16


# False: the plain probe search (tests/benchmarks/redactor_settle_ab.py measures `_open_probe` against it). Read
# when an engine's tables are made.
BOUNDED_PROBE = True
# False: the bounded probe is the Python closure below; True: behind `_native.Probe` where the extension is built (the
# same answers without a Python frame, the alphabet bound read off a table over ASCII text: tests/redact/
# test_native_probe.py compares them). Read when an engine's tables are made.
C_PROBE = True


def _open_probe(d: Detector) -> Callable[..., regex.Match[str] | None]:
    """`d.probe.search` (the leftmost open start from `pos`), from where an open start may first be: no earlier
    than `d.reach` from the end of the text, and after the last character its pattern cannot read (the claims
    `OpenTracker._later_start` rests on; the answer is the same, a match object at the same start). The compiled
    feed asks it after every complete match, from that match's start: the probe then tried every position to the
    end of the view (an IP address's, ~8 µs of a log line's settling feed). A detector with neither bound keeps
    the plain search. With `C_PROBE`, behind `_native.Probe`, made once per detector (it holds no state)."""
    key = (id(d), BOUNDED_PROBE, C_PROBE)
    got = _PROBES.get(key)
    if got is not None and got[0] is d:
        return got[1]
    made = _make_probe(d)
    if len(_PROBES) < 4096:  # (custom detectors are made per Redactor: bounded)
        _PROBES[key] = (d, made)
    return made


# (detector id, BOUNDED_PROBE, C_PROBE) -> (the detector, kept alive so that its id is not reused; its probe)
_PROBES: dict[tuple[int, bool, bool], tuple[Detector, Callable[..., regex.Match[str] | None]]] = {}


def _make_probe(d: Detector) -> Callable[..., regex.Match[str] | None]:
    """`_open_probe` of `d`, made."""
    search = d.probe.search
    reach = d.reach
    stop = None if d.stop is None else d.stop.search
    if not BOUNDED_PROBE or (reach is None and stop is None):
        return search

    def probe(
        view: str, pos: int = 0, endpos: int | None = None, concurrent: bool | None = None, partial: bool = False
    ) -> regex.Match[str] | None:
        if endpos is None:
            n = len(view)
            if reach is not None and pos < n - reach:
                pos = n - reach
            if stop is not None and pos < n:  # (a reverse search for one class: cheaper than a probe at any length)
                k = stop(view, pos)
                if k is not None:
                    pos = k.end()
        return search(view, pos, endpos, concurrent, partial)

    return _compiled_probe(probe, search, reach, d.stop) if C_PROBE else probe


def _compiled_probe(
    probe: Callable[..., regex.Match[str] | None],
    search: Callable[..., regex.Match[str] | None],
    reach: int | None,
    stop: regex.Pattern[str] | None,
) -> Callable[..., regex.Match[str] | None]:
    """`probe` behind `_native.Probe`, or `probe` itself without the extension. The table: which ASCII characters
    the reverse `stop` search takes, each asked of the pattern itself (a one-character class: tests check it)."""
    native = fastpath.native
    if native is None:
        return probe
    table = None if stop is None else _stop_table(stop.pattern, stop.flags)
    got: Callable[..., regex.Match[str] | None] = native.Probe(
        probe, search, -1 if reach is None else reach, None if stop is None else stop.search, table
    )
    return got


@lru_cache(maxsize=256)
def _stop_table(pattern: str, flags: int) -> bytes:
    """For `_native.Probe`: 1 where the reverse `stop` search takes an ASCII character alone, made once per pattern
    (128 searches: ~1 ms for the built-ins, ten times a new engine's tables without it)."""
    stop = regex.compile(pattern, flags)
    return bytes(stop.search(chr(c)) is not None for c in range(128))


class _Tables:
    """The per-detector callables a tracker reads, made once per engine (not per stream)."""

    def __init__(self, engine: Engine) -> None:
        detectors = engine.detectors
        self.search = tuple(_open_probe(d) for d in detectors)
        self.full = tuple(d.compiled.search for d in detectors)
        # For the compiled feed (_native.c) only: anchored matches, and each block detector's steady kinds.
        self.match = tuple(d.compiled.match for d in detectors)
        self.steady = tuple(
            tuple((regex.compile(o).match, t, k, c) for o, t, k, c in d.steady) if d.steady else None for d in detectors
        )
        # A detector's open start is at most its reach from the end of the view (reach.py): its probe starts
        # there when its bound is further back (complete matches before that are then not bounded: `_unsure`).
        self.reach = tuple(d.reach for d in detectors)
        # A detector with a bounded alphabet has its open start after the last character outside it (alphabet.py):
        # the probe starts there when that is worth a backward search (more than `_FAR`/`_NEAR` characters).
        self.stops = tuple(None if d.stop is None else d.stop.search for d in detectors)


class OpenTracker:
    """`open_from(view, base)` equal to `Engine.open_from` for a view that only grows at the end between calls,
    and shifts left (by `shift`) when released text is dropped from its front.

    Lazy: each detector that may be open has a lower bound on its leftmost open start (exact once probed). The
    answer is the least open start over all detectors, so they are probed in order of their bounds, and once the
    least start found is at or before every remaining bound, the rest are left unprobed: their bounds stay valid
    (a leftmost open start never moves left) and a later probe from the bound covers every start after it. On
    prose the word being written keeps the address detector open at its first letter, so a piece inside a word
    costs one probe, not one per detector whose starters it holds."""

    def __init__(self, engine: Engine) -> None:
        assert engine.starters is not None
        self._starters = engine.starters
        tables = engine.tracker_tables
        if tables is None:  # once per engine: the streams of one Redactor.factory share it
            tables = engine.tracker_tables = _Tables(engine)
        self._search = tables.search
        self._full = tables.full
        self._match = tables.match
        self._steady = tables.steady
        self._detectors = engine.detectors
        self._prefilter = engine.prefilter
        self._candidates = engine.candidates
        self._reach = tables.reach
        self._stops = tables.stops
        # Positions below are absolute (a view index plus `_origin`, the characters dropped from the view's front
        # so far), so that dropping released text is one addition, not a rewrite of every bound.
        self._origin = 0
        self._lb: dict[int, int] = {}  # detector index -> a lower bound on its leftmost open start
        self._seen = 0  # the text up to here has been accounted for in `_lb`
        # Until the view is released up to here, `_lb` may not bound complete matches (the compiled path probes
        # open starts only), so `complete_mask` answers None.
        self._unsure = 0

    def open_from(self, view: str, base: int) -> int:
        o = self._origin
        n = len(view)
        seen = self._seen - o
        if seen < base:
            seen = base
        if self._prefilter is not None and n - seen >= _pf.MIN_RANGE:
            got = self._open_compiled(view, base, seen)
            if got is not None:
                return got
        lb = self._lb
        if n > seen:
            # Every bound is below `seen` (it came from text already seen), so a detector that may start in the
            # new text and has none gets the first position there where it may start, and one that has one
            # keeps it.
            fresh = self._starters.bounds(view, seen, o)
            if fresh:
                fresh.update(lb)
                self._lb = lb = fresh
        self._seen = n + o
        if not lb:
            return n
        end = n + o
        best = end
        search = self._search
        full = self._full
        order = sorted([(at, i) for i, at in lb.items()]) if len(lb) > 1 else [(at, i) for i, at in lb.items()]
        for at, i in order:
            if at >= best:
                break
            s = at - o
            if s < base:
                s = base
            later = self._later_start(i, view, s, _FAR)
            if later > s:  # complete matches before it are not bounded now
                s = later
                self._unsure = end
            # A partial search of the pattern itself reports a complete match anywhere after `s` before a
            # partial one (tests/redact/test_settle.py), so one call usually answers both questions: None means
            # no match starts after `s`, complete or open; a partial match is the leftmost open start. Only a
            # complete match needs the probe as well.
            m = full[i](view, s, partial=True)
            if m is None:
                del lb[i]
                continue
            if m.partial:
                q = m.start() + o
                if q >= end:
                    del lb[i]
                    continue
                lb[i] = q
            else:
                p = search[i](view, s, partial=True)
                q = end if p is None else p.start() + o
                c = m.start() + o
                lb[i] = c if c < q else q
            if q < best:
                best = q
        return best - o

    def open_ahead(self, view: str, base: int, longer: str) -> tuple[int, tuple[int, ...]]:
        """The leftmost position in [base, len(view)) from which a match is open in `longer` (len(view) if none),
        and the detectors that may be open before it (their indices).

        For the Redactor's lookahead (`longer` is the view and the promised text after it). A match open in
        `longer` from a start in the view was open in the view (its path ran into that end too), so each bound is
        a lower bound here as well and a detector without one cannot be open: probed in the order of their
        bounds, lazily as in `open_from`. Only the view's bounds are brought up to date (`open_from`, unless the
        last check covered the whole view); `longer` is not remembered."""
        n = len(view)
        if self._seen - self._origin != n:
            self.open_from(view, base)
        o = self._origin
        order = sorted((at - o if at - o > base else base, i) for i, at in self._lb.items())
        best = n
        search = self._search
        for at, i in order:
            if at >= best:
                break
            m = search[i](longer, at, partial=True)
            if m is not None and m.start() < best:
                best = m.start()
        return best, tuple(i for at, i in order if at < best)

    def _later_start(self, i: int, view: str, s: int, far: int) -> int:
        """Where detector i's probe from `s` may start instead: no earlier than its reach from the end of the
        view (reach.py), and, with more than `far` characters left, after the last character its pattern cannot
        read (alphabet.py: every open start is after it). Open starts only: complete matches before the
        returned start are not looked for."""
        n = len(view)
        r = self._reach[i]
        if r is not None and s < n - r:
            s = n - r
        stop = self._stops[i]
        if stop is not None and n - s > far:
            k = stop(view, s)
            if k is not None:
                s = k.end()
        return s

    def complete_mask(self, base: int, point: int) -> int | None:
        """Bits of the detectors that may have a complete match starting before `point`, right after
        `open_from`: every complete match of detector i starts at or after its bound (a detector without one
        has none in the view), because each bound comes from a search that would have reported a complete
        match after it, and a match that appears later starts in new text or where a path was still open.
        None: not known (see `_unsure`)."""
        o = self._origin
        if self._unsure > base + o:
            return None
        point += o
        mask = 0
        for i, at in self._lb.items():
            if at < point:
                mask |= 1 << i
        return mask

    def bounds(self) -> tuple[dict[int, int], int]:
        """The bounds `complete_mask` reads (detector index -> absolute position) and the origin to subtract: where
        it answers a mask, no complete match of a detector starts before its bound (`Engine.settle_short`)."""
        return self._lb, self._origin

    def _open_compiled(self, view: str, base: int, seen: int) -> int | None:
        """The same answer as the loop in `open_from`, with covered detectors asked only at candidates. Every
        detector is probed from its bound or from `seen` (no starters table: the prefilter knows where it can
        start, and one that cannot start in the new text gets no candidate there), unless its first candidate is
        past the answer already found. None: the prefilter declined (over budget, or the scan failed), so the
        caller takes the pure path."""
        assert self._prefilter is not None
        n = len(view)
        o = self._origin
        starts = dict.fromkeys(range(len(self._detectors)), seen)
        for i, at in self._lb.items():
            starts[i] = at - o if at - o > base else base
        spans = self._candidates(view, base)  # from `base`, not the least start: settling asks the same
        if spans is None:
            return None
        pf = self._prefilter
        # Each detector's first candidate at or after its start is a lower bound on its open start: probed in
        # that order, and once the least open start found is at or before the next one, the rest keep it as
        # their bound unprobed (as in `open_from`: a later probe from there covers every start after it).
        order: list[tuple[int, int, list[tuple[int, int]] | None]] = []
        for i, start in starts.items():
            # Here a backward search is cheaper than a probe even over a few characters: the probe of a detector
            # whose open start is in the last word is then a search over that word.
            start = self._later_start(i, view, start, _NEAR)
            own = spans.get(i)
            first = start
            if own is not None:
                tail = pf.tail(i, n)
                if tail > first:
                    first = tail
                j = bisect_left(own, (start,))
                if j and own[j - 1][1] >= start:
                    first = start
                elif j < len(own) and own[j][0] < first:
                    first = own[j][0]
            order.append((first, i, own))
        order.sort()
        best = n
        still: dict[int, int] = {}
        for first, i, own in order:
            if first >= n:
                continue
            if first >= best:
                still[i] = first + o
                continue
            if own is not None:
                q = _pf.open_in(self._detectors[i], view, own, first, pf.tail(i, n))
            else:
                m = self._search[i](view, first, partial=True)
                q = None if m is None else m.start()
            if q is not None and q < n:
                still[i] = q + o
                if q < best:
                    best = q
        self._lb = still
        self._seen = n + o
        self._unsure = n + o
        return best

    def shift(self, k: int) -> None:
        """The first `k` characters of the view were dropped."""
        self._origin += k
