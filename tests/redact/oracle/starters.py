"""Which built-in detectors can start a match (complete or still open) at a given character.

Why: most characters of prose can start none or only a few of the ~30 built-in patterns (`sk-` needs an 's',
a card a digit or '+', nothing starts with a CJK character but an address-like word), and asking a C-speed dict
is ~50x cheaper than asking the `regex` engine once per detector. The answer is computed the first time a
character is seen, by the engine itself: `probe.match(ch, partial=True)` (a path that consumes `ch` and wants
more) or `compiled.match(ch)` (a one-character match). That is exact for a pattern whose assertions before its
first character are negative lookbehinds (context can only forbid a start, and an empty context forbids
nothing), which every built-in follows (tests/redact/test_incremental.py checks it). Custom detectors may use
positive lookbehinds or `\\b`, so they are never skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

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
        self._always = sum(1 << i for i, t in enumerate(self._trusted) if not t)
        self._cache: dict[str, int] = {}

    def _compute(self, ch: str) -> int:
        mask = self._always
        for i, d in enumerate(self._detectors):
            if self._trusted[i] and (d.probe.match(ch, partial=True) is not None or d.compiled.match(ch) is not None):
                mask |= 1 << i
        if len(self._cache) < _CACHE_MAX:
            self._cache[ch] = mask
        return mask

    def mask(self, text: str) -> int:
        cache = self._cache
        mask = self._always
        for ch in text if len(text) <= 64 else set(text):
            m = cache.get(ch)
            mask |= self._compute(ch) if m is None else m
        return mask


BUILTIN_IDS = frozenset(id(d) for d in BUILTIN)
_BUILTIN_IDS = BUILTIN_IDS


def starters_for(detectors: Sequence[Detector]) -> Starters:
    """The shared table for this detector tuple (one per distinct selection, so streams reuse what was learnt)."""
    return _shared(tuple(detectors))


@lru_cache(maxsize=32)
def _shared(detectors: tuple[Detector, ...]) -> Starters:
    return Starters(detectors, [id(d) in _BUILTIN_IDS and not d.context for d in detectors])
