"""Which built-in detectors can start a match (complete or still open) at a given character.

Why: most characters of prose can start none or only a few of the ~30 built-in patterns (`sk-` needs an 's',
a card a digit or '+', nothing starts with a CJK character but an address-like word), and asking a C-speed dict
is ~50x cheaper than asking the `regex` engine once per detector. The answer is computed the first time a
character is seen, by the engine itself: `probe.match(ch, partial=True)` (a path that consumes `ch` and wants
more) or `compiled.match(ch)` (a one-character match). That is exact for a pattern whose assertions before its
first character are negative lookbehinds (context can only forbid a start, and an empty context forbids
nothing), which every built-in follows (tests/redact/test_incremental.py checks it). Custom detectors may use
positive lookbehinds or `\\b`, so they are never skipped.

`bounds` also uses the character before: most built-ins cannot start inside a word (a negative lookbehind on a
letter or digit), so `probe.match(prev + ch, 1, partial=True)` rules out nearly every position of prose but a
word's first letter. That is exact for the same reason, one character of context standing in for all of it (a
negative lookbehind that matches the one character before also matches the whole text before; one that needs
more cannot match it, so the start stays allowed). A context detector (`Detector.context`) is asked only where
its `first` class matches: the lookahead prefix makes that a condition of every start.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import regex

from .detector import Detector
from .registry import BUILTIN

# Characters past this many distinct ones are answered without being remembered (a stream of every code
# point must not grow the table without bound).
_CACHE_MAX = 1 << 16


class Starters:
    """`mask(text)`: bit i set if detector i may start at some character of `text`. Shared by equal detector
    tuples (a custom detector is rebuilt per Redactor but equal), so bits are positions, never objects."""

    def __init__(self, detectors: Sequence[Detector], trusted: Sequence[bool]) -> None:
        self._detectors = tuple(detectors)
        self._trusted = tuple(trusted)
        # A built-in context detector is known by its `first` class; any other untrusted one may start anywhere.
        self._first = tuple(
            regex.compile(d.first) if d.context and d.first is not None and id(d) in BUILTIN_IDS else None
            for d in self._detectors
        )
        self._always = sum(1 << i for i, t in enumerate(self._trusted) if not t and self._first[i] is None)
        self._context = sum(1 << i for i, f in enumerate(self._first) if f is not None)
        self._cache: dict[str, int] = {}
        # (view, seen, mask of view[seen:]) from the last `bounds` of long new text: settling the same view next
        # needs the mask of a range that mostly overlaps it (`mask_of`).
        self.last_long: tuple[str, int, int] | None = None
        self._none: set[str] = set()  # cached characters no detector but the `_always` ones may start at
        self._pairs: dict[str, int] = {}  # prev + ch -> the detectors that may start at ch after prev
        self._quads: dict[str, int] = {}  # prev + ch + two more -> the same, knowing the two after (`quad`)
        self._bits: dict[int, tuple[int, ...]] = {}  # a mask -> its set bits
        self._stored: memoryview | Literal[False] | None = None  # the stored ASCII pairs (`_stored_pairs`)
        self.native_tables: object | None = None  # the compiled feed's C mirror of these tables (fastpath.py)

    def _compute(self, ch: str) -> int:
        mask = self._always
        for i, d in enumerate(self._detectors):
            first = self._first[i]
            if first is not None:
                if first.match(ch) is not None:
                    mask |= 1 << i
            elif self._trusted[i] and (d.probe.match(ch, partial=True) is not None or d.compiled.match(ch) is not None):
                mask |= 1 << i
        if len(self._cache) < _CACHE_MAX:
            self._cache[ch] = mask
            if mask == self._always:
                self._none.add(ch)
        return mask

    def mask(self, text: str) -> int:
        cache = self._cache
        mask = self._always
        if len(text) > 64:  # the distinct characters, less those known to start nothing (most CJK, Persian)
            chars = set(text).difference(self._none)
        for ch in text if len(text) <= 64 else chars:
            m = cache.get(ch)
            mask |= self._compute(ch) if m is None else m
        return mask

    def mask_of(self, view: str, lo: int, hi: int) -> int:
        """`mask(view[lo:hi])`, or a superset of it (a detector asked in vain finds nothing): the text from the
        last long `bounds` of this same view is not read again."""
        last = self.last_long
        if last is not None and last[0] is view and lo <= last[1] < hi:
            return self.mask(view[lo : last[1]]) | last[2]
        return self.mask(view[lo:hi])

    def _pair(self, prev: str, ch: str, mask: int) -> int:
        """`mask` (the detectors that may start at `ch`) less those that cannot start at `ch` after `prev`. An ASCII
        pair of the default selection is read from shapecache.py's file (every ASCII pair's answer, computed by
        this same code): a process's first streams asked the engine ~40 times for each new quad key (68 µs)."""
        text = prev + ch
        if STORED_PAIRS and len(text) == 2 and text.isascii() and mask == self._cache.get(ch):
            stored = self._stored_pairs()
            if stored is not None:
                got = stored[ord(prev) * 128 + ord(ch)] & ~(1 << 63)
                self._pairs[text] = got
                return got
        for i in self.bits(mask & ~self._always):
            d = self._detectors[i]
            if self._first[i] is None and (
                d.probe.match(text, 1, partial=True) is None and d.compiled.match(text, 1) is None
            ):
                mask &= ~(1 << i)
        self._pairs[text] = mask
        return mask

    def _stored_pairs(self) -> memoryview | None:
        """The stored pair answers (128 x 128 uint64, bit 63: known) if they are this selection's, read once."""
        if self._stored is None:
            from .shapecache import pair_table

            table = pair_table(self)
            self._stored = False if table is None else memoryview(table).cast("Q")
        return self._stored if isinstance(self._stored, memoryview) else None

    def _refined(self, prev: str, ch: str, mask: int) -> int:
        """`mask` refined by the pair table: as remembered, or computed while the table has room, or as it is
        (conservative) once it is full."""
        got = self._pairs.get(prev + ch)
        if got is not None:
            return got
        return self._pair(prev, ch, mask) if len(self._pairs) < _PAIRS_MAX else mask

    def quad(self, key: str) -> int:
        """The detectors that may start at `key[1]`, after `key[0]` and before `key[2:4]` (a 4-character key):
        the pair's mask less the detectors with no path through those three characters. Conservative for the
        same reasons as the pair table (a path that reads on past the key's end is reported partial); used by
        the compiled feed (_native.c) to skip a detector's candidate start without a search."""
        cache = self._cache.get(key[1])
        mask = self._compute(key[1]) if cache is None else cache
        if mask:
            mask = self._refined(key[0], key[1], mask)
        for i in self.bits(mask & ~self._always):
            if self._first[i] is None and self._detectors[i].compiled.match(key, 1, partial=True) is None:
                mask &= ~(1 << i)
        if len(self._quads) < _PAIRS_MAX:
            self._quads[key] = mask
        return mask

    def bits(self, mask: int) -> tuple[int, ...]:
        got = self._bits.get(mask)
        if got is None:
            got = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
            if len(self._bits) < 4096:
                self._bits[mask] = got
        return got

    def bounds(self, view: str, seen: int, offset: int = 0) -> dict[int, int]:
        """For each detector that may start in `view[seen:]`, the first position there where it may start (its
        fresh lower bound), plus `offset`. Long new text (a whole string) gets `seen` for every detector in its
        `mask`: a loop per character would cost more than the probes it saves."""
        n = len(view)
        if n - seen > _PER_CHAR:
            mask = self.mask(view[seen:])
            self.last_long = (view, seen, mask)
            return dict.fromkeys(self.bits(mask), seen + offset)
        out = dict.fromkeys(self.bits(self._always), seen + offset) if self._always else {}
        cache = self._cache
        have = self._always
        prev = view[seen - 1] if seen else ""
        for j in range(seen, n):
            ch = view[j]
            m = cache.get(ch)
            if m is None:
                m = self._compute(ch)
            if m & ~have:
                if prev:
                    m = self._refined(prev, ch, m)
                new = m & ~have
                if new:
                    for i in self.bits(new):
                        out[i] = j + offset
                    have |= new
            prev = ch
        return out


# New text longer than this gets one bound for all its starters (see `Starters.bounds`).
_PER_CHAR = 64
# False: every pair asked of the engine (as before stop 36); read at each new pair. (`shapecache.USE` is read
# once per `Starters`, when it first looks for the file: switching it off later leaves a shared one reading it.)
STORED_PAIRS = True
# Pairs past this many are answered by the one-character table (conservative) without being remembered.
_PAIRS_MAX = 1 << 17


BUILTIN_IDS = frozenset(id(d) for d in BUILTIN)
_BUILTIN_IDS = BUILTIN_IDS


def starters_for(detectors: Sequence[Detector]) -> Starters:
    """The shared table for this detector tuple (one per distinct selection, so streams reuse what was learnt)."""
    return _shared(tuple(detectors))


@lru_cache(maxsize=32)
def _shared(detectors: tuple[Detector, ...]) -> Starters:
    return Starters(detectors, [id(d) in _BUILTIN_IDS and not d.context for d in detectors])
