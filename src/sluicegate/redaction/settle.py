"""The settlement point: how far held text can be released because no detector match can still reach into it.

Two facts about the `regex` package decide the design (checked in tests/redact/test_settle.py):
- a plain `partial=True` search prefers a *complete* match, so `a(?:b.*END|b)` on "abXX" reports a final "ab"
  although more text could turn it into "abXX…END";
- `(?:P)(?!)` never completes, so a `partial=True` search for it reports the leftmost position where *some*
  path of `P` runs into the end of the buffer, lookaheads included. That position, or the end of the buffer
  if there is none, is where a match could still start or grow. Nothing before it can change.

A complete match that ends exactly at the end of the buffer is also open (one more character could extend
it), and a complete match that straddles the settlement point pulls it back to its start, so that findings
before the point are exactly those the whole string has there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Any

import regex

from . import prefilter as _pf
from . import scan as _scan
from .detector import Detector
from .starters import BUILTIN_IDS, Starters, starters_for


@dataclass(frozen=True)
class Finding:
    """A validated value to replace: view span [start, end) and its detector."""

    start: int
    end: int
    detector: Detector


def _finding(
    start: int, end: int, detector: Detector, new: Callable[[type[Finding]], Finding] = object.__new__
) -> Finding:
    """`Finding(start, end, detector)`, built as the dataclass's `__init__` would (its fields in its `__dict__`)
    without its frozen `__setattr__`: 0.4 against 0.9 µs, on the settling feed."""
    f = new(Finding)
    d = f.__dict__
    d["start"] = start
    d["end"] = end
    d["detector"] = detector
    return f


def _reused(m: regex.Match[str] | None, view: str, pattern: regex.Pattern[str], at: int) -> regex.Match[str] | None:
    """`m` where it is `pattern.search(view, at)`'s answer, else None (then the caller searches).

    Why it is: `m` is an answer of `pattern.match` or `pattern.search` (with `partial=True` or not) on this very
    string (`m.string is view`: the same object, so the same text), to its end (`m.endpos`), from `m.pos`, and
    complete (`not m.partial`). A `partial=True` call of the `regex` package first makes the call without it and
    returns that answer where it found a complete match (`do_match` in its `_regex.c`; test_settle_round2.py checks
    it on the corpora), so `m` is the plain call's answer: for `search`, the leftmost match at or after `m.pos`;
    for `match`, the match at `m.pos` (= `m.start()`). Either way no match starts in [m.pos, m.start()), so a
    search from any `at` in that range, or at `m.start()`, finds its first match at `m.start()`, and a match at a
    position does not depend on where the search began (no built-in uses `\\G`; lookbehinds read before `pos`):
    `m` itself."""
    if (
        m is not None
        and m.string is view
        and m.re is pattern
        and m.pos <= at <= m.start()
        and m.endpos == len(view)
        and not m.partial
    ):
        return m
    return None


# Detectors whose partial matches are common in prose (a word may become an address, a number a card) are
# probed first: once some detector is open at the start of the buffer, the others need not be asked.
_PROBE_FIRST = ("EMAIL_ADDRESS", "CREDIT_CARD", "PHONE_NUMBER", "LABELED_SECRET", "IP_ADDRESS")


# Below this many characters to settle, look for any complete match before collecting them all.
_SHORT = 512
# From this many characters to settle, the pure-Python prefilter (scan.py) pays for its scans.
_SCAN = 2048


class Engine:
    """Runs the detectors' patterns one by one: measured 5-10x faster than one big alternation, which
    loses the `regex` package's per-pattern prefix optimizations."""

    # False: every settle takes the general path (`_settle_short` is compared with it in
    # tests/redact/test_settle_short.py).
    SHORT = True

    def __init__(self, detectors: Sequence[Detector], *, fast: bool = True, compiled: bool = True) -> None:
        self.detectors = tuple(detectors)
        self._priority = {id(d): i for i, d in enumerate(self.detectors)}
        rank = {name: i for i, name in enumerate(_PROBE_FIRST)}
        self._probe_order = tuple(sorted(self.detectors, key=lambda d: rank.get(d.entity, len(rank))))
        self._blocks = tuple(d for d in self.detectors if d.opener_rx is not None)
        self._prefixed = tuple(d for d in self.detectors if d.prefix_rx is not None)
        # `fast`: skip detectors that cannot start anywhere in the text in question (starters.py). False keeps
        # the straightforward path, which the differential test compares against.
        self.starters: Starters | None = starters_for(self.detectors) if fast else None
        self._picked: dict[int, tuple[Detector, ...]] = {}
        # `settle_short`'s detectors per hint: `_pick(hint)` when they are all built-ins, else () (not its case).
        self._short_picked: dict[int, tuple[Detector, ...]] = {}
        # `compiled`: use the hyperscan prefilter (prefilter.py) on long ranges when the extra is installed.
        self.prefilter: _pf.Prefilter | None = _pf.shared(self.detectors) if fast and compiled else None
        self._index = {id(d): i for i, d in enumerate(self.detectors)}
        # Without the prefilter, a pure-Python one for the few detectors that cost most on long ranges (scan.py).
        self.scan: _scan.Scan | None = _scan.shared(self.detectors) if fast and self.prefilter is None else None
        self._last_ranges: tuple[str, int, dict[int, list[tuple[int, int]]] | None] | None = None
        self.tracker_tables: Any = None  # tracker.py's per-detector callables, made at the first tracker
        self._one_info: tuple[tuple[Any, ...], ...] | None = None

    def candidates(self, view: str, lo: int) -> dict[int, list[tuple[int, int]]] | None:
        """`prefilter.hits(view, lo)`, remembered for the last view: a check asks it for the open point
        (tracker.py) and then to settle the same view from the same position, one hyperscan pass for both."""
        assert self.prefilter is not None
        last = self._last_ranges
        if last is not None and last[0] is view and last[1] == lo:
            return last[2]
        got = self.prefilter.hits(view, lo)
        self._last_ranges = (view, lo, got)
        return got

    def _pick(self, mask: int) -> tuple[Detector, ...]:
        """The detectors whose bits are set, in priority order."""
        got = self._picked.get(mask)
        if got is None:
            got = tuple(d for i, d in enumerate(self.detectors) if mask >> i & 1)
            if len(self._picked) < 4096:
                self._picked[mask] = got
        return got

    def open_from(self, view: str, pos: int) -> int:
        """Leftmost position >= pos from which a match could still start or grow (len(view) if none)."""
        best = len(view)
        for d in self._probe_order:
            m = d.probe.search(view, pos, partial=True)
            if m is not None and m.start() < best:
                best = m.start()
                if best <= pos:
                    break
        return best

    def open_block(self, view: str, pos: int, among: Sequence[Detector] | None = None) -> int | None:
        """Start of an unbounded block (private key) whose opener is complete but whose end never came (a block
        that has a complete match from there, e.g. an END line the stream ended on, is not open). `among`: only
        these detectors may be open (the others are not asked)."""
        best: int | None = None
        for d in self._blocks if among is None else [d for d in among if d.opener_rx is not None]:
            m = d.probe.search(view, pos, partial=True)
            if m is None or d.opener_rx is None or not d.opener_rx.match(view, m.start()):
                continue
            if d.compiled.match(view, m.start()) is None:
                best = m.start() if best is None else min(best, m.start())
        return best

    def open_prefix(self, view: str, pos: int, among: Sequence[Detector] | None = None) -> Finding | None:
        """For a stream cut short: the leftmost value still open past its detector's distinctive prefix, as a
        finding from its value start to the end of the view (`Detector.prefix`), or None.

        Chunk invariant: an open start at the end of the stream was open at every earlier check, so it is never
        before the released point, and searching from `pos` finds the same starts whatever was released. `among`:
        only these detectors may be open."""
        best: Finding | None = None
        for d in self._prefixed if among is None else [d for d in among if d.prefix_rx is not None]:
            m = d.probe.search(view, pos, partial=True)
            if m is None or d.prefix_rx is None:
                continue
            p = d.prefix_rx.match(view, m.start())
            if p is None:
                continue
            start = p.start("v") if "v" in d.prefix_rx.groupindex else m.start()
            if best is None or start < best.start:
                best = Finding(start, len(view), d)
        return best

    def open_prefix_start(self, view: str, pos: int, among: Sequence[Detector] | None = None) -> int | None:
        """Where the leftmost match that `open_prefix` would look at begins (its key name, `aws_secret…`, not
        its value), or None. A release past it would hide that token from a later truncated flush, which
        searches from the released point."""
        best: int | None = None
        for d in self._prefixed if among is None else [d for d in among if d.prefix_rx is not None]:
            m = d.probe.search(view, pos, partial=True)
            if m is None or d.prefix_rx is None or d.prefix_rx.match(view, m.start()) is None:
                continue
            if best is None or m.start() < best:
                best = m.start()
        return best

    def _first_complete(self, view: str, pos: int, detectors: Sequence[Detector]) -> int | None:
        best: int | None = None
        for d in detectors:
            m = d.compiled.search(view, pos)
            if m is not None and (best is None or m.start() < best):
                best = m.start()
                if best <= pos:
                    break
        return best

    def settle(
        self,
        view: str,
        pos: int,
        point: int,
        *,
        final: bool,
        keep: Callable[[Detector, str], bool],
        hint: int | None = None,
    ) -> tuple[int, list[Finding]]:
        """Given a candidate settlement point, return the settled point and the findings before it.

        Findings do not overlap: the earliest start wins, then the longest span, then detector priority.
        `keep(detector, value)` applies validation and the allow-list. `hint` (from `OpenTracker.complete_mask`):
        bits of the only detectors that may have a complete match starting before `point`.
        """
        if point <= pos:
            return point, []
        # With the compiled prefilter, covered detectors are asked only at their candidates, which also makes
        # the starters table unnecessary. None: no prefilter, a short range, or it declined (over budget).
        cands = None
        if self.prefilter is not None and point - pos > _pf.MIN_RANGE:
            cands = self.candidates(view, pos)
        # Some detectors' candidates without the prefilter (scan.py); the others are chosen by their starters.
        some = self.scan.hits(view, pos) if cands is None and self.scan is not None and point - pos > _SCAN else None
        if self.starters is None or cands is not None:
            detectors: Sequence[Detector] = self.detectors
        else:  # a match starting in [pos, point) starts with one of its detector's starters
            mask = self.starters.mask_of(view, pos, point) if hint is None else hint
            detectors = self._pick(mask)
            if not detectors:
                return point, []
            if point - pos <= _SHORT and self.SHORT and all(id(d) in BUILTIN_IDS for d in detectors):
                return self._settle_short(view, pos, point, final, keep, detectors)
        if point - pos <= _SHORT:  # usually nothing complete: one search per detector says so cheaply
            first = self._first_complete(view, pos, detectors)
            if first is None or first >= point:
                return point, []
        else:  # a long range (whole text, a long held block) nearly always has findings: scan once, not twice
            first = pos
        per: list[tuple[Detector, list[regex.Match[str]]]] = []
        known = cands if cands is not None else some
        for d in detectors:
            if known is not None:
                own = known.get(self._index[id(d)])
                if own is not None:
                    found = _pf.matches_in(d, view, own, first, point)
                    if found:
                        per.append((d, found))
                    continue
            found = []
            for m in d.compiled.finditer(view, first):
                if m.start() >= point:
                    break
                found.append(m)
            if found:
                per.append((d, found))
        return self._choose(view, point, final, keep, per)

    @property
    def short_max(self) -> int:
        """The longest range `settle_short` takes (-1: none, with `SHORT` off), for `_native.release_one`."""
        return _SHORT if self.SHORT and self.starters is not None else -1

    def one_info(self) -> tuple[tuple[Any, ...], ...]:
        """Per detector, what `_native.release_one` reads: (pattern, has a value group, entity, the detector, whether
        it is a built-in (`settle_short` takes only those), whether there is a prefilter, its `locate` or None).
        Made once per engine."""
        got = self._one_info
        if got is None:
            pf = self.prefilter is not None
            got = self._one_info = tuple(
                (d.compiled, d.has_value_group, d.entity, d, id(d) in BUILTIN_IDS, pf, d.locate) for d in self.detectors
            )
        return got

    def settle_short(
        self,
        view: str,
        pos: int,
        point: int,
        hint: int,
        keep: Callable[[Detector, str], bool],
        bounds: dict[int, int] | None = None,
        origin: int = 0,
        lazy: bool = False,
        kept: Sequence[tuple[Any, Any]] | None = None,
    ) -> tuple[int, list[Finding]] | None:
        """`settle(view, pos, point, final=False, keep=keep, hint=hint)` where that takes `_settle_short`, or
        None where it would not (a long range, the prefilter's candidates, a custom detector among `hint`'s):
        the same answer without the general entry's dispatch, for `Redactor._release_step`'s settling feed.
        `bounds` (the tracker's, `hint` from them: `OpenTracker.complete_mask`): detector index -> a position
        (less `origin`) before which it has no complete match, so its search starts there. `lazy`: the choice
        among several matches by `_choose_lazy` (`keep` must be pure: built-in validators and the allow-list).
        `kept` (`fastpath.keepers`): per detector index, objects whose `last` is a match the compiled feed got;
        one that `_reused` accepts stands in for the detector's search."""
        if point <= pos:
            return point, []
        if point - pos > _SHORT or not self.SHORT or self.starters is None:
            return None
        if self.prefilter is not None and point - pos > _pf.MIN_RANGE:
            return None
        detectors = self._short_picked.get(hint)
        if detectors is None:
            got = self._pick(hint)
            detectors = got if got and all(id(d) in BUILTIN_IDS for d in got) else ()
            if len(self._short_picked) < 4096:
                self._short_picked[hint] = detectors
        if not detectors:
            return None
        return self._settle_short(view, pos, point, False, keep, detectors, True, bounds, origin, lazy, kept)

    def _settle_short(
        self,
        view: str,
        pos: int,
        point: int,
        final: bool,
        keep: Callable[[Detector, str], bool],
        detectors: Sequence[Detector],
        lean: bool = False,
        bounds: dict[int, int] | None = None,
        origin: int = 0,
        lazy: bool = False,
        kept: Sequence[tuple[Any, Any]] | None = None,
    ) -> tuple[int, list[Finding]]:
        """`settle` of a short range where only these built-in detectors may have a complete match (a feed that
        settles an IP address in a log line): the general path's answer without its work that is known to repeat.
        The general path searches from `pos` for the first complete match `first` and then runs each detector's
        `finditer` from `first`, whose first match is that detector's own first match from `pos` (its leftmost at
        or after `pos`, so at or after `first`; a match at a position does not depend on where the search began:
        no built-in uses `\\G`, so custom detectors do not come here). So each detector is searched once, and its
        `finditer` continues from that match's end. Then the same pull-back and choice (`_choose`), which one match
        with one span needs little of. `lean` (`settle_short`): each search with the GIL held (`concurrent=False`,
        the same answer without its release and retake), from the detector's bound where `bounds` has one past
        `pos` (a search from `pos` finds nothing before it: its first match is the same; an IP address's search
        over a log line's timestamp from its start costs ~6 µs, from the address ~0.5), and the one finding
        built as `_finding` does. `lazy` (with `lean` only): several matches chosen by `_choose_lazy`. `kept` (with
        `lean` only): the compiled feed's last matches per detector, one of which may stand in for the search
        (`_reused`)."""
        per: list[tuple[Detector, list[regex.Match[str]]]] = []
        for d in detectors:
            if lean:
                at = pos
                i = self._index[id(d)]
                if bounds is not None:
                    b = bounds.get(i)
                    if b is not None and b - origin > at:
                        at = b - origin
                m = None
                if kept is not None:
                    pair = kept[i]
                    m = _reused(pair[0].last, view, d.compiled, at) or _reused(pair[1].last, view, d.compiled, at)
                if m is None:
                    m = d.compiled.search(view, at, None, False)
            else:
                m = d.compiled.search(view, pos)
            if m is None or m.start() >= point:
                continue
            found = [m]
            if m.end() >= point:  # the next match starts at or after its end: none before `point`
                per.append((d, found))
                continue
            if m.end() > m.start():
                rest = d.compiled.finditer(view, m.end())
            else:  # finditer steps past an empty match itself: let it
                rest = d.compiled.finditer(view, m.start())
                next(rest)
            for m in rest:
                if m.start() >= point:
                    break
                found.append(m)
            per.append((d, found))
        if not per:
            return point, []
        if len(per) > 1 or len(per[0][1]) > 1 or (per[0][0].locate is not None and not lazy):
            if lazy:
                return self._choose_lazy(view, point, final, keep, per)
            return self._choose(view, point, final, keep, per)
        # One match with one span: nothing to pull back but it, nothing to sort.
        d, (m,) = per[0]
        if m.end() > point or (not final and m.end() >= len(view)):
            return m.start(), []  # (a match that straddles the point, or is still open, pulls it back to its start)
        if d.locate is not None:  # (`lazy` only) one match of a windowed detector (a phone number, a 9-digit id)
            spans = d.locate(m.group())
            if len(spans) != 1:  # none: `_choose` finds none either; several: it sorts them (`locate` is pure)
                return (point, []) if not spans else self._choose_lazy(view, point, final, keep, per)
            s = m.start()
            a, b = s + spans[0][0], s + spans[0][1]
        else:
            a, b = m.span("v") if d.has_value_group else m.span()
        if a < b and keep(d, view[a:b]):
            return point, [_finding(a, b, d) if lean else Finding(a, b, d)]
        return point, []

    def _choose(
        self,
        view: str,
        point: int,
        final: bool,
        keep: Callable[[Detector, str], bool],
        per: list[tuple[Detector, list[regex.Match[str]]]],
    ) -> tuple[int, list[Finding]]:
        """The settled point and its findings from each detector's matches from the first complete one on,
        those starting before `point` (`settle`'s last part, shared with `_settle_short`)."""
        n = len(view)
        while True:  # pull the point back to the start of any match that straddles it or is still open
            new = point
            for _, found in per:
                for m in found:
                    if m.start() < new and (m.end() > new or (not final and m.end() >= n)):
                        new = m.start()
            if new == point:
                break
            point = new
        candidates: list[tuple[int, int, int, int, Detector]] = []
        for d, found in per:
            for m in found:
                if m.start() >= point:
                    break
                if d.locate is not None:
                    spans = [(m.start() + a, m.start() + b) for a, b in d.locate(m.group())]
                else:
                    spans = [m.span("v") if d.has_value_group else m.span()]
                for a, b in spans:
                    if a < b and keep(d, view[a:b]):
                        candidates.append((a, a - b, self._priority[id(d)], b, d))
        candidates.sort(key=lambda c: c[:3])
        findings: list[Finding] = []
        last = -1
        for a, _, _, b, d in candidates:
            if a >= last:
                findings.append(Finding(a, b, d))
                last = b
        return point, findings

    def _choose_lazy(
        self,
        view: str,
        point: int,
        final: bool,
        keep: Callable[[Detector, str], bool],
        per: list[tuple[Detector, list[regex.Match[str]]]],
    ) -> tuple[int, list[Finding]]:
        """`_choose`'s answer, asking `keep` (a validator) and `locate` (a window search over a digit run) only where
        the answer can depend on them. Why: in a settling feed two detectors often match the same value (a token
        and the label before it, `api_key = "sk-…"`; a card or a phone number and the US SSN shape in its digits),
        and `_choose` validated and located every one of them before the greedy choice dropped all but the first.

        The same findings: `_choose` sorts the kept candidates by (start, longest, priority) and takes each whose
        start is at or after the last one taken's end. Here the candidates are visited in that same order from a
        heap, `keep` asked only of one that would be taken if kept (its start at or after the last end: the others
        are dropped whatever `keep` says). A match's candidates lie inside it, so a match is located only when its
        start is at or before the best candidate waiting (one of its windows may sort first) and it ends after the
        last end (else every window of it starts before that end and would be dropped). `keep` must be pure (no
        side effect whose absence shows): built-in validators and the allow-list are (`settle_short` only)."""
        n = len(view)
        while True:  # the pull-back: `_choose`'s own
            new = point
            for _, found in per:
                for m in found:
                    if m.start() < new and (m.end() > new or (not final and m.end() >= n)):
                        new = m.start()
            if new == point:
                break
            point = new
        pending: list[tuple[int, int, Detector, regex.Match[str]]] = []
        for d, found in per:
            for m in found:
                if m.start() >= point:
                    break
                pending.append((m.start(), len(pending), d, m))
        pending.sort()
        priority = self._priority
        ready: list[tuple[int, int, int, int, int, Detector]] = []
        findings: list[Finding] = []
        last = -1
        j = 0
        seq = 0
        while True:
            while j < len(pending) and (not ready or pending[j][0] <= ready[0][0]):
                s, _, d, m = pending[j]
                j += 1
                if m.end() <= last:
                    continue
                p = priority[id(d)]
                if d.locate is not None:
                    for a, b in d.locate(m.group()):
                        heappush(ready, (s + a, a - b, p, s + b, seq, d))
                        seq += 1
                else:
                    a, b = m.span("v") if d.has_value_group else m.span()
                    heappush(ready, (a, a - b, p, b, seq, d))
                    seq += 1
            if not ready:
                return point, findings
            a, _, _, b, _, d = heappop(ready)
            if a >= last and a < b and keep(d, view[a:b]):
                findings.append(_finding(a, b, d))
                last = b
