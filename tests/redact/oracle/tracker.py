"""Incremental open point: `Engine.open_from` across feeds without asking every detector every time.

Two facts make it exact (the differential test in tests/redact/test_incremental.py compares it with
`Engine.open_from` on random texts and chunkings):
- a start position whose probe path died before the end of the buffer never touched the end, so appending text
  cannot revive it: a detector's leftmost open start never moves left, and it is re-probed from there;
- a detector that had no open start can only gain one at a character of the new text, and only at one of its
  starters (starters.py), so it is probed only if the new text holds such a character.
"""

from __future__ import annotations

from . import prefilter as _pf
from .settle import Engine


class OpenTracker:
    """`open_from(view, base)` equal to `Engine.open_from` for a view that only grows at the end between calls,
    and shifts left (by `shift`) when released text is dropped from its front."""

    def __init__(self, engine: Engine) -> None:
        assert engine.starters is not None
        self._starters = engine.starters
        self._search = tuple(d.probe.search for d in engine.detectors)
        self._detectors = engine.detectors
        self._prefilter = engine.prefilter
        self._open: dict[int, int] = {}  # detector index -> its leftmost open start in the view
        self._seen = 0  # the view up to here has been probed

    def open_from(self, view: str, base: int) -> int:
        n = len(view)
        seen = self._seen if self._seen > base else base
        if self._prefilter is not None and n - seen >= _pf.MIN_RANGE:
            got = self._open_compiled(view, base, seen)
            if got is not None:
                return got
        mask = self._starters.mask(view[seen:]) if n > seen else 0
        best = n
        search = self._search
        still: dict[int, int] = {}
        for i, at in self._open.items():
            mask &= ~(1 << i)  # searching from `at` covers its new starts too
            m = search[i](view, at if at > base else base, partial=True)
            if m is not None:
                q = m.start()
                if q < n:
                    still[i] = q
                    if q < best:
                        best = q
        while mask:
            low = mask & -mask
            mask ^= low
            i = low.bit_length() - 1
            m = search[i](view, seen, partial=True)
            if m is not None:
                q = m.start()
                if q < n:
                    still[i] = q
                    if q < best:
                        best = q
        self._open = still
        self._seen = n
        return best

    def _open_compiled(self, view: str, base: int, seen: int) -> int | None:
        """The same answer as the loop in `open_from`, with covered detectors asked only at candidates. Every
        detector that is not open is asked from `seen` (no starters table: the prefilter knows where it can
        start, and one that cannot start in the new text gets no candidate there). None: the prefilter declined
        (over budget, or the scan failed), so the caller takes the pure path."""
        assert self._prefilter is not None
        n = len(view)
        starts = dict.fromkeys(range(len(self._detectors)), seen)
        for i, at in self._open.items():
            starts[i] = at if at > base else base
        spans = self._prefilter.ranges(view, min(starts.values()))
        if spans is None:
            return None
        best = n
        still: dict[int, int] = {}
        for i, start in starts.items():
            own = spans.get(i)
            if own is not None:
                q = _pf.open_in(self._detectors[i], view, own, start)
            else:
                m = self._search[i](view, start, partial=True)
                q = None if m is None else m.start()
            if q is not None and q < n:
                still[i] = q
                if q < best:
                    best = q
        self._open = still
        self._seen = n
        return best

    def shift(self, k: int) -> None:
        """The first `k` characters of the view were dropped."""
        if k:
            self._seen -= k
            self._open = {i: at - k for i, at in self._open.items()}
