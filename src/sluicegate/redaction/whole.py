"""A whole string settled in one pass: what `redact(text)` returns, without the stream's checks.

Why: fed whole, the stream cuts the text into `max_hold` slices and at each asks every detector where a match is
still open (a `partial=True` search, which for a detector with no `reach` reads the whole slice) and then settles
the slice. With the whole text known, nothing is open before its end, and the contract says the findings the
stream releases are the whole string's. So the answer is one settle of the whole view, provided the stream
would not have stopped (or opened a private key block at the end) on it, which is what `certified` proves.

The stream stops only at a check where held text has reached `max_hold` and nothing settles: its open point (the
leftmost start of a path that runs into the end of the held text) is at the base, or a match from the base
reaches past the open point. A place x after the base with (a) no path from x or before reading as far as
the end of the held text (`far`, from reach.py, alphabet.py and tails.py) and (b) no match of the whole text
around it (start < x < end) keeps the settled point above x: the open point is after x, and pulling it back
to the start of a match that straddles it never crosses x. The bases are not known without running the stream,
so `certified` asks it for every base: each window of `max_hold` characters less those the view drops must hold
such a place far enough from its end. Where that fails the caller takes the stream's path, so the output is
the stream's either way (tests/redact/test_whole.py compares them on the corpora, the suites and generated
texts, with and without the `[fast]` prefilter).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import regex

from . import fastpath as _fp
from . import labels
from . import prefilter as _pf
from . import scan as _scan
from . import validators as _validators
from . import wholedb as _db
from . import windows as _windows
from .detector import LOOKBEHIND, Detector, first_chars
from .reach import reach as pattern_reach
from .settle import _SCAN, Engine, Finding
from .starters import BUILTIN_IDS, Starters
from .tails import tail

Far = Callable[[str, int], int | None]
# Places looked at: one per this fraction of a window (more: a little more work, fewer texts left to the stream).
_PER_WINDOW = 2
# A place is moved to the first space within this many characters (most paths stop at a space).
_NEAR_SPACE = 64
_SPACE = regex.compile(r"\s")
# An alphabet's stop (alphabet.py) that tests one character and nothing around it: a class, after at most a
# lookahead of a class at the same place.
_ONE_CHAR = regex.compile(r"(?:\(\?!\(\?i:\[[^\]]*\]\)\))?\[\^[^\]]*\]")
# The pure-Python scan's candidates are used for a detector with at most one per this many characters: each
# costs a Python `match` call (~1.5 µs), where `finditer` over the whole text costs ~0.06 µs a character.
_SPARSE = 64
# What `certified`'s far bounds may read, at most, in characters per character of the view (a far that finds no
# bound reads to the view's end, so text where many places find none, e.g. detect-secrets' cases strung together,
# read the view once a place: 1,750 times its length, seconds for 43 KB). Past it the pass declines and the stream,
# whose output is the pass's by test, redacts the text; the corpora read 0.15-8 times theirs.
READ_BUDGET = 16


def _fixed(d: Detector, builtin: frozenset[int]) -> int | None:
    """How far past a place a path of `d` may read, when that is a constant (`far_of`'s bounded case)."""
    if d.opener_rx is not None and id(d) in builtin:
        got = pattern_reach(d.opener_rx.pattern, d.opener_rx.flags)
    else:
        got = d.reach
    return None if got is None else got + 1


@lru_cache(maxsize=256)
def far_of(d: Detector, builtin: bool) -> Far | None:
    """`far(view, q)`: a position no path of `d` starting at q or before reads (tries) at or beyond; None where
    no bound is known (or the detector has none)."""
    fixed = d.reach
    pattern, flags, stop = d.compiled.pattern, d.compiled.flags, d.stop
    if d.opener_rx is not None and builtin:
        # A built-in block's every alternative begins with one of its openers (secrets.py), so without an
        # opener in the text (the caller checks) a path reads no further than a path of the opener does.
        pattern, flags, stop = d.opener_rx.pattern, d.opener_rx.flags, None
        fixed = pattern_reach(pattern, flags)
    if fixed is not None:
        k = fixed + 1

        def bounded(view: str, q: int) -> int | None:
            return q + k if q + k <= len(view) else None

        return bounded
    t = tail(pattern, flags)
    first_out = None
    outs: frozenset[str] = frozenset()
    if stop is not None and stop.pattern.startswith("(?r)"):
        # Every character a path reads is in the alphabet: none reads past the first character outside it.
        one = regex.compile(stop.pattern[4:], stop.flags & ~regex.REVERSE)
        first_out = one.search
        if _ONE_CHAR.fullmatch(stop.pattern[4:]):
            # (a test of one character alone: the ASCII ones it takes answer `first_out` at q without a search)
            outs = frozenset(c for c in map(chr, range(128)) if one.fullmatch(c))
    if t is None and first_out is None:
        return None

    def unbounded(view: str, q: int) -> int | None:
        if q < len(view) and view[q] in outs:  # the character at q is outside: `first_out` finds it (below)
            return q + 2 if q + 2 <= len(view) else None
        best = None
        if first_out is not None:
            m = first_out(view, q)
            if m is not None:
                best = m.end() + 1
                if best - q <= _NEAR_SPACE:  # near enough: the tail's bound is dearer and can only be nearer
                    return best if best <= len(view) else None
        if t is not None:
            got = t.far(view, q)
            if got is not None and (best is None or got < best):
                best = got
        return best if best is not None and best <= len(view) else None

    return unbounded


def _block_far(d: Detector, view: str) -> Far | None:
    """`far` of a built-in block detector in a view that holds its opener: a path that does not start where an
    opener matches dies within the opener's reach (`far_of`), and for each start where one does, the engine is
    asked how far its paths read: the least end of the view at which the probe's anchored partial match there
    finds no path running into it (a path that reads further would run into every shorter end). None if some
    path from an opener runs into the end of the whole view (the block is open at the end: the stream stops)."""
    assert d.opener_rx is not None
    base = far_of(d, True)
    if base is None:
        return None
    n = len(view)
    starts: list[int] = []
    ends: list[int] = []
    most = 0
    for m in d.opener_rx.finditer(view, overlapped=True):
        q = m.start()
        if d.probe.match(view, q, partial=True) is not None:
            return None
        # The least end with no path from q running into it: doubled from q until one is found, then halved
        # (`endpos` ends the text for the engine as a slice would, without copying it).
        lo, hi = q + 1, min(n, q + 64)
        while hi < n and d.probe.match(view, q, hi, partial=True) is not None:
            lo, hi = hi + 1, min(n, q + 2 * (hi - q))
        while lo < hi:
            mid = (lo + hi) // 2
            if d.probe.match(view, q, mid, partial=True) is not None:
                lo = mid + 1
            else:
                hi = mid
        most = max(most, hi)
        starts.append(q)
        ends.append(most)  # the most read by paths from any opener start up to q

    def far(v: str, q: int) -> int | None:
        got = base(v, q)
        j = bisect_right(starts, q) - 1
        if j >= 0 and got is not None and ends[j] > got:
            got = ends[j]
        return got

    return far


# False: `_plan_of` and `_quick_parts_of` go to their `lru_cache`s each time (whose keys hash every detector, a
# frozen dataclass: ~0.3 µs each), not first to a memory by the selection's identity.
BY_ID = True
_PLANS: dict[int, tuple[object, frozenset[int], tuple[tuple[int | None, Far], ...] | None]] = {}
_QUICK: dict[int, tuple[Detector, Any]] = {}


def _plan_of(detectors: tuple[Detector, ...], builtin: frozenset[int]) -> tuple[tuple[int | None, Far], ...] | None:
    """`_plan(detectors, builtin)`, remembered by the selection's identity (`BY_ID`)."""
    got = _PLANS.get(id(detectors)) if BY_ID else None
    if got is not None and got[0] is detectors and got[1] is builtin:
        return got[2]
    out = _plan(detectors, builtin)
    if BY_ID and len(_PLANS) < 64:
        _PLANS[id(detectors)] = (detectors, builtin, out)  # (kept alive: the id is not reused meanwhile)
    return out


def _quick_parts_of(d: Detector) -> Any:
    """`_quick_parts(d)`, remembered by the detector's identity (`BY_ID`)."""
    got = _QUICK.get(id(d)) if BY_ID else None
    if got is not None and got[0] is d:
        return got[1]
    out = _quick_parts(d)
    if BY_ID and len(_QUICK) < 1024:
        _QUICK[id(d)] = (d, out)
    return out


@lru_cache(maxsize=32)
def _plan(detectors: tuple[Detector, ...], builtin: frozenset[int]) -> tuple[tuple[int | None, Far], ...] | None:
    """Per detector: (how far past a place a path may read when that is a constant, else None; its `far`),
    or None if some detector has no bound."""
    out: list[tuple[int | None, Far]] = []
    for d in detectors:
        f = far_of(d, id(d) in builtin)
        if f is None:
            return None
        out.append((_fixed(d, builtin), f))
    return tuple(out)


def matches(engine: Engine, view: str) -> list[tuple[Detector, list[Any]]]:
    """Each detector's matches in the whole view, as `Engine.settle(view, 0, len(view), final=True)` collects
    them: with `[fast]`, asked only at wholedb.py's candidates; else the pure-Python scan's where it covers a
    detector, else `finditer` (and the label detectors at their first characters near a label, both ways)."""
    n = len(view)
    known: dict[int, list[tuple[int, int]]] | None = None
    labelled: list[tuple[int, int]] | None = None
    db = _db.shared(engine.detectors) if engine.prefilter is not None and n > _pf.MIN_RANGE else None
    detectors: Sequence[Detector] = engine.detectors
    got = db.candidates(view, LOOKBEHIND) if db is not None else None
    native = _native_starts(engine, view) if db is None and n > _SCAN else None
    if got is not None:
        known, labelled = got
    elif native is not None:
        # (no starters mask for the rest: on prose in other scripts it cost more than the two label detectors'
        # `finditer` it could spare, and custom detectors are in every mask)
        known, labelled = native
    else:
        # (the pure-Python scan: the engine builds it only without the prefilter)
        scan = engine.scan if engine.scan is not None else _scan.shared(engine.detectors)
        known = scan.hits(view, 0, _SPARSE) if n > _SCAN else None
        if engine.starters is not None:
            mask = engine.starters.mask_of(view, 0, n)
            detectors = tuple(d for i, d in enumerate(engine.detectors) if mask >> i & 1)
    index = {id(d): i for i, d in enumerate(engine.detectors)}
    per: list[tuple[Detector, list[Any]]] = []
    for d in detectors:
        own = known.get(index[id(d)]) if known is not None else None
        if native is not None and own is not None and _rest_rx(d) is not None:
            # (a label detector's label part from `_native_starts`, and its rest where the rest matches there)
            near = known.get(-1 - index[id(d)]) if known is not None else None
            if near is None:
                own = None
            else:
                match = _rest_rx(d).match  # type: ignore[union-attr]
                starts = [(q, q) for a, b in near for q in range(a, min(b, n - 1) + 1) if match(view, q)]
                own = _db.merge([*own, *starts], 0)
        if own is None and (_all_near(d) or _rest_rx(d) is not None) and (labelled is not None or view.isascii()):
            if labelled is None:
                labelled = _label_spans(view)
            own = _starts_in(d, view, labelled)
            rest = _rest_rx(d)
            if rest is not None:  # and where the forms that need no label before them match
                near = (
                    known.get(-1 - index[id(d)])
                    if known is not None and (got is not None or native is not None)
                    else None
                )
                if near is not None:  # (every start where it matches, as the overlapped search finds them)
                    match = rest.match
                    starts = [(q, q) for a, b in near for q in range(a, min(b, n - 1) + 1) if match(view, q)]
                else:
                    starts = [(m.start(), m.start()) for m in rest.finditer(view, overlapped=True)]
                own = sorted({*own, *starts})
        if own is None:
            found = list(d.compiled.finditer(view))
        else:
            found = _matches_in(d, view, own, n)
        if found:
            per.append((d, found))
    return per


# False: every detector is asked with its own `regex` pattern at its candidates, not `_quick`'s stdlib one
# (tests/redact/test_whole_quick.py compares the two and the stream).
STDLIB = True
# What a pattern `_stdlib` hands to the stdlib engine may hold: ASCII characters, escapes of punctuation only
# (no class shorthand, property or word boundary, whose meaning differs between the two engines), and of the
# groups only non-capturing ones, named ones and lookarounds (no flags, atomic groups or references).
_STDLIB_OK = regex.compile(r"(?:[ -\[\]-~]|\\[.\-+()\[\]{}*?|^$/:@#%&=!<>,;'\"~ ])*")
_BAD_GROUP = regex.compile(r"\((?!\?:|\?=|\?!|\?<=|\?<!|\?P<[A-Za-z_][A-Za-z0-9_]*>)(?=\?)")
# A quantifier right after another (a possessive `{1,6}+`, a lazy `*?`) or `(?` after `\`: not handed over.
_DOUBLE = regex.compile(r"[}*+?][+?]")
# A `{` outside classes that is not a count `{m}`, `{m,}`, `{,n}`, `{m,n}`: `regex` may read it as a fuzzy
# constraint (`{e<=1}`, `{1<=e<=2}`, `{e}`) where `re` reads a literal; so any other brace is not handed over.
_BRACE = regex.compile(r"\{(?![0-9]+(?:,[0-9]*)?\}|,[0-9]+\})")


def _stdlib(pattern: str, flags: int) -> Any:
    """`pattern` compiled by the stdlib `re` engine where that engine answers every `match(view, q)` as the
    `regex` package (version 0, `UNICODE` alone: the detectors' flags) does, else None. Both are backtracking
    engines that try alternatives left to right and quantifiers greedily, with the same syntax for what
    `_STDLIB_OK` lets through (classes of ASCII characters and ranges, literals, groups, bounded and unbounded
    greedy quantifiers, lookarounds; a lookbehind of one width only, or `re` refuses it); the per-call cost of
    `re` is about a third of `regex`'s (0.15 against 0.45 µs on 64 KB views), most of an address's check in
    logs. Refused besides: lazy and possessive quantifiers (`_DOUBLE`: no built-in needs one, so the subset
    the engines are compared on stays small), a POSIX class `[[:alpha:]]` inside a class (`regex` reads it,
    `re` a nested set of literals) and a brace that is not a count (`_BRACE`: a fuzzy constraint to `regex`).
    tests/redact/test_whole_quick.py compares the two engines at every position of generated texts."""
    if flags != regex.V0 | regex.UNICODE or not pattern.isascii() or _STDLIB_OK.fullmatch(pattern) is None:
        return None
    rest, posix = _split_classes(pattern)
    if posix or _BAD_GROUP.search(pattern) or _DOUBLE.search(rest) or _BRACE.search(rest):
        return None
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _split_classes(pattern: str) -> tuple[str, bool]:
    """`pattern` with each character class (and each escaped character) replaced by `x`: what is left holds
    the quantifiers and braces as written (`[+?]` is two characters of a class, not a quantifier); and whether
    a class holds an unescaped `[:` (a POSIX class to `regex`)."""
    out: list[str] = []
    posix = False
    for _, ch, holds_posix in _pattern_units(pattern):
        out.append("x" if ch in "\\[" else ch)
        posix = posix or holds_posix
    return "".join(out), posix


# False: `_matches_in` is `prefilter.matches_in` in Python, not the compiled `_wholec.matches_in` (the same loop;
# tests/redact/test_whole_quick.py compares the two and the one pass with each).
NATIVE_MATCHES = True


def _matches_in(d: Detector, view: str, spans: list[tuple[int, int]], n: int) -> list[Any]:
    """`prefilter.matches_in(d, view, spans, 0, n)`, asked with `_quick`'s patterns (`STDLIB`), by the compiled
    loop where it is built (`NATIVE_MATCHES`)."""
    parts = _quick_parts_of(d) if STDLIB else None
    helper = _fp.wholec if NATIVE_MATCHES else None
    if helper is not None:
        match, fallback = parts if parts is not None else (d.compiled.match, None)
        return helper.matches_in(match, fallback, d.compiled.search, view, spans, 0, n, _pf.LONG_SPAN)  # type: ignore[no-any-return]
    return _pf.matches_in(d, view, spans, 0, n, _quick(d) if parts is not None else None)


@lru_cache(maxsize=256)
def _quick(d: Detector) -> Callable[[str, int], Any] | None:
    """`_quick_parts` as one function."""
    parts = _quick_parts(d)
    if parts is None:
        return None
    fast, full = parts
    if full is None:
        return fast
    fallback = full

    def match(view: str, q: int) -> Any:
        m = fast(view, q)
        return m if m is not None else fallback(view, q)

    return match


@lru_cache(maxsize=256)
def _quick_parts(d: Detector) -> tuple[Callable[[str, int], Any], Callable[[str, int], Any] | None] | None:
    """What answers `d.compiled.match(view, q)` faster, for a built-in detector: its pattern in the stdlib
    engine (`_stdlib`); or, where the pattern is leading lookaheads and then one alternation (nested in groups
    that hold nothing else: `(?=…)(?:(?:A|B))`), its first alternative there, and the `regex` pattern where
    that does not match (an alternation returns its first alternative that matches, and nothing follows it). The
    same Match positions and groups either way. As (the stdlib pattern's `match`, the detector's own where that
    is asked next, else None); None: no such form (the detector's own `match` is used)."""
    if id(d) not in BUILTIN_IDS:
        return None
    pattern, flags = d.compiled.pattern, d.compiled.flags
    whole_rx = _stdlib(pattern, flags)
    if whole_rx is not None:
        return whole_rx.match, None
    first = _first_alternative(pattern)
    rx = _stdlib(first, flags) if first is not None else None
    if rx is None:
        return None
    return rx.match, d.compiled.match


def _first_alternative(pattern: str) -> str | None:
    """For `L(?:(?:A|B|…))` (L: lookaheads `(?=…)`, any number of `(?:` around one top-level alternation),
    `L` + `(?:A)`; else None."""
    lead = ""
    rest = pattern
    while rest.startswith("(?="):
        end = _group_end(rest)
        if end is None:
            return None
        lead, rest = lead + rest[:end], rest[end:]
    while rest.startswith("(?:") and _group_end(rest) == len(rest):
        inner = rest[3:-1]
        parts = _top_alternatives(inner)
        if parts is None:
            return None
        if len(parts) > 1:
            return lead + "(?:" + parts[0] + ")"
        rest = inner
    return None


def _pattern_units(text: str) -> Iterator[tuple[int, str, bool]]:
    """A pattern's `text` walked unit by unit: (index, its first character, whether it is a class holding an
    unescaped `[:`) for each escape (`\\`), class (`[`, a `]` first after an optional `^` is a member) and other
    character. One walk for `_split_classes`, `_group_end` and `_top_alternatives`."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            yield i, ch, False
            i += 2
            continue
        if ch == "[":
            at, posix = i, False
            i += 1
            if i < n and text[i] == "^":
                i += 1
            if i < n and text[i] == "]":
                i += 1
            while i < n and text[i] != "]":
                posix = posix or text.startswith("[:", i)
                i += 2 if text[i] == "\\" else 1
            yield at, ch, posix
        else:
            yield i, ch, False
        i += 1


def _outside_classes(text: str) -> Iterator[tuple[int, str]]:
    """Each character of a pattern's `text` outside its classes and escapes, with its index: what `_group_end` and
    `_top_alternatives` read (a `(`, `)` or `|` there is the pattern's own)."""
    return ((i, ch) for i, ch, _ in _pattern_units(text) if ch not in "\\[")


def _group_end(text: str) -> int | None:
    """The index after the group that opens `text` (classes and escapes skipped), or None."""
    depth = 0
    for i, ch in _outside_classes(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _top_alternatives(text: str) -> list[str] | None:
    """`text` split at its top-level `|` (classes and escapes skipped); None if its groups do not balance."""
    parts: list[str] = []
    depth = at = 0
    for i, ch in _outside_classes(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "|" and depth == 0:
            parts.append(text[at:i])
            at = i + 1
    parts.append(text[at:])
    return parts if depth == 0 else None


# Switched off by tests to compare with the path without it.
NATIVE = True
# The ways of the C pass (`_native.c` WS_*), each switchable off for tests and the A/B: 1, a table per character
# pair of the shapes (not detectors) that may start there; 2, a walk without the string kind's switch on a
# one-byte view; 4, a shape's required character (read off the automaton) absent from the next k: ruled out;
# 8, the automata's moves kept per class of characters every state reads alike (a smaller table); 16, on a view
# that is not ASCII, the label detectors' spans from the label words of every script (`_any_words`), not their
# `finditer` over the whole view; 32, a label word looked for only where the view's first two characters may
# begin one.
NATIVE_MODE = 63
# Places of the shapes `_native_starts` reads (the feed's 16 where a longer one has too many states): twice the
# feed's leaves a third fewer positions to ask on code, logs and JSON (a URL's user part, a long digit run) at
# the same cost of the C pass, whose automata are deterministic (built as read) where the feed's are not.
_PLACES = 32


def _native_starts(
    engine: Engine, view: str
) -> tuple[dict[int, list[tuple[int, int]]], list[tuple[int, int]] | None] | None:
    """Without `[fast]`, where the compiled extension is present: per built-in detector index i, the merged
    closed ranges of the positions its shape (shape.py) does not rule out, from one pass in C
    (`_native.whole_starts`), and at -1 - i those of a label detector's `near_rest` shape; a label detector's
    own only within its label spans (in the same pass, from the label words, `_ascii_words`; ASCII views
    only). The shape holds at every start of a match (tests/redact/test_shape.py), so a detector is asked only
    there, as with wholedb.py's candidates. No entry: too dense (the detector's own `finditer` is cheaper), or
    no shape. `label_spans` is returned as None: the label detectors that need them have their entries already."""
    if not NATIVE or _fp.native is None:
        return None
    ascii_view = view.isascii()
    folding = not ascii_view and NATIVE_MODE & 16 != 0 and _any_words() is not None
    plan = _native_plan(tuple(engine.detectors), ascii_view, folding)
    if plan is None:
        return None
    words, fold = _any_words() if folding else (_ascii_words(), None)  # type: ignore[misc]
    shapes, labelled, keys, memos = plan
    memo = memos[1 if NATIVE_MODE & 8 else 0]  # (the automata are built with or without the classes)
    budget = 64 + len(view) // _pf.HIT_BUDGET
    owners = tuple(k if k >= 0 else -1 - k for k in keys)
    st = engine.starters
    if st is not None and max(owners, default=0) < 63:
        spairs = _shape_pairs(st, shapes) if len(shapes) < 64 and NATIVE_MODE & 1 else None
        got = _fp.native.whole_starts(
            view,
            shapes,
            labelled,
            words,
            LOOKBEHIND,
            budget,
            memo,
            owners,
            _pair_table(st),
            _pair_of(st),
            spairs,
            NATIVE_MODE,
            fold,
        )
    else:
        if folding:
            return None  # (the words of other scripts need `fold`, an argument after the starters' ones)
        # (mode 0 without the starters' arguments: its automata without the classes, memos[0])
        got = _fp.native.whole_starts(view, shapes, labelled, words, LOOKBEHIND, budget, memos[0])
    return {k: spans for k, spans in zip(keys, got, strict=True) if spans is not None}, None


@lru_cache(maxsize=32)
def _pair_table(starters: Starters) -> bytearray:
    """`whole_starts`' memory of the starters' pair answers (filled as pairs are met), one per `Starters`; the
    default selection's read from shapecache.py's file (every ASCII pair known)."""
    from .shapecache import pair_table

    stored = pair_table(starters)
    return stored if stored is not None else bytearray(128 * 128 * 8)


@lru_cache(maxsize=32)
def _shape_pairs(starters: Starters, shapes: tuple[object, ...]) -> bytearray:
    """`whole_starts`' memory of the shapes (of one `_native_plan`) the pair answers allow, filled as pairs are
    met: per character pair, the shapes whose detector may start there, so that no call maps detectors to
    shapes at each position again."""
    return bytearray(128 * 128 * 8)


@lru_cache(maxsize=32)
def _pair_of(starters: Starters) -> Callable[[str], int]:
    """The detectors that may start at `key[1]` after `key[0]` (starters.py: the character's mask refined by
    the pair table), or at a one-character key, for `whole_starts`."""

    def pair(key: str) -> int:
        ch = key[-1]
        got = starters._cache.get(ch)
        mask = starters._compute(ch) if got is None else got
        return starters._refined(key[0], ch, mask) if mask and len(key) == 2 else mask

    return pair


@lru_cache(maxsize=32)
def _native_plan(
    detectors: tuple[Detector, ...], ascii_view: bool, folding: bool = False
) -> tuple[tuple[object, ...], tuple[bool, ...], tuple[int, ...], tuple[list[object], list[object]]] | None:
    """`whole_starts`' arguments for a detector selection: the shapes (None: no shape, or a label detector in a
    view that is not ASCII unless `folding`: `_any_words`), whether each is kept only within label spans, the key
    of each in the result, and
    the lists in which the C pass keeps their deterministic automata between calls (without, with the
    character classes of `NATIVE_MODE`'s 8)."""
    shapes: list[object] = []
    labelled: list[bool] = []
    keys: list[int] = []
    for i, d in enumerate(detectors):
        if id(d) not in BUILTIN_IDS:
            continue
        near = _all_near(d) or _rest_rx(d) is not None
        if near and not ascii_view and not folding:
            continue
        got = _fp._shape(d.compiled.pattern, d.compiled.flags, _PLACES) or _fp._shape(
            d.compiled.pattern, d.compiled.flags
        )
        rest = _rest_rx(d) if near else None
        rest_shape = None if rest is None else _fp._shape(rest.pattern, rest.flags, _fp.REST_PLACES)
        if got is None or (rest is not None and rest_shape is None):
            continue
        shapes.append(got)
        labelled.append(near)
        keys.append(i)
        if rest is not None:
            shapes.append(rest_shape)
            labelled.append(False)
            keys.append(-1 - i)
    if len(shapes) > 64:
        return None
    return tuple(shapes), tuple(labelled), tuple(keys), ([], [])


def _all_near(d: Detector) -> bool:
    """True for a built-in label detector every start of which is at one of its `near` characters (its `first`
    class is exactly them), so that none matches where no label word's tail is in the `LOOKBEHIND` characters
    before it (tests/redact/test_label_near.py checks the claim against the engine)."""
    if d.near is None or d.first is None or id(d) not in BUILTIN_IDS:
        return False
    body = d.first[1:-1] if d.first.startswith("[") and d.first.endswith("]") else None
    return body is not None and not set(body) & set("^-\\[]") and set(body) == set(d.near)


@lru_cache(maxsize=64)
def _rest_rx(d: Detector) -> regex.Pattern[str] | None:
    """For a built-in label detector whose `first` class is its `near` characters and its `near_rest` ones: the
    forms of the latter that need no label before them (`Detector.near_rest`) as a pattern of their own. A match
    of `d` at a start outside the label spans is a match of them there (tests/redact/test_label_near.py)."""
    rest = d.near_rest
    if rest is None or d.near is None or id(d) not in BUILTIN_IDS:
        return None
    body = first_chars(d.first)
    if body is None or set(body) != set(d.near) | set(rest[0]):
        return None
    return regex.compile(rest[2], d.compiled.flags)


def _label_spans(view: str) -> list[tuple[int, int]]:
    """Where a label detector's match may start in an ASCII view: within `LOOKBEHIND` characters after the end
    of an occurrence of a label word's tail (`labels.tails()`; `labels.label_near` is the reference), as merged
    closed ranges. A tail ending at e and starting at a is in the window before v for e <= v <= a + LOOKBEHIND."""
    low = view.lower()
    spans: list[tuple[int, int]] = []
    for t in _ascii_tails():
        at = low.find(t)
        while at >= 0:
            spans.append((at + len(t), at + LOOKBEHIND))
            at = low.find(t, at + 1)
    return _db.merge(spans, 0)


def _starts_in(d: Detector, view: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The positions of `d`'s first characters inside `spans`, each as a range of one (asking the engine at
    every position of a window cost more than `finditer` over the whole text), searched span by span."""
    assert d.first is not None
    rx = _first_rx(d.first)
    return [(m.start(), m.start()) for a, b in spans for m in rx.finditer(view, a, b + 1)]


@lru_cache(maxsize=8)
def _first_rx(first: str) -> regex.Pattern[str]:
    return regex.compile(first)


@lru_cache(maxsize=1)
def _ascii_words() -> tuple[str | tuple[str, int], ...]:
    """The label words that can occur in an ASCII view, for `whole_starts`: each form of each (its parts joined by
    `|`, one optional `_`, `-` or space there) with the length of its tail, as wholedb.py `label_words` (fewer
    spans than the tails': a JSON `export` holds `port` of `passport`, not `passport`). A word with a character
    that is not ASCII cannot occur there: no such character of a label word has an ASCII case (checked here
    with the engine's own table, `wholedb.all_cases`; else the tails are used)."""
    out: dict[str, int] = {}
    for word in [w for w, _ in labels.words()] + [w.lower() for w in labels.CAMEL_WORDS]:
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        for ch in "".join(parts):
            cases = _db.all_cases(ch)
            if cases is None:
                return _ascii_tails()
            ascii_cases = {c for c in cases if c.isascii()}
            if ascii_cases != ({ch.lower(), ch.upper()} if ch.isascii() else set()):
                return _ascii_tails()
        if "".join(parts).isascii():
            out["|".join(p.lower() for p in parts)] = min(labels.TAIL, len("".join(parts)))
    return tuple(sorted(out.items()))


@lru_cache(maxsize=1)
def _any_words() -> tuple[tuple[tuple[str, int], ...], bytes] | None:
    """The label words of every script for `whole_starts` on a view that is not ASCII, with `fold`: each word's
    characters as the representatives of their case classes (the union of `wholedb.all_cases`, the engine's own
    table, over the words' characters: a character the engine matches to a word's character case-insensitively
    is in that character's class), and the (character >= 128, representative) pairs as native uint32s. An ASCII
    letter's class must hold no other ASCII letter (its representative is its lowercase, as the C pass folds
    ASCII). None where that does not hold or the table is not offered (the label detectors keep `finditer`)."""
    words = [w for w, _ in labels.words()] + [w.lower() for w in labels.CAMEL_WORDS]
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for word in words:
        for ch in regex.sub(r"[_ \-]", "", word):
            cases = _db.all_cases(ch)
            if cases is None:
                return None
            for other in cases:
                a, b = find(ch), find(other)
                if a != b:
                    parent[a] = b
    classes: dict[str, set[str]] = {}
    for x in list(parent):
        classes.setdefault(find(x), set()).add(x)
    rep: dict[str, str] = {}
    for members in classes.values():
        lows = {m.lower() for m in members if m.isascii()}
        if len(lows) > 1 or any(len(m.lower()) != 1 for m in members if m.isascii()):
            return None
        r = next(iter(lows)) if lows else min(members)
        for m in members:
            rep[m] = r
    out: dict[str, int] = {}
    for word in words:
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        out["|".join("".join(rep[c] for c in p) for p in parts)] = min(labels.TAIL, len("".join(parts)))
    pairs = sorted((ord(m), ord(r)) for m, r in rep.items() if ord(m) >= 128)
    fold = array("I", [x for pair in pairs for x in pair])
    if fold.itemsize != 4:  # pragma: no cover - a platform without a 4-byte unsigned int
        return None
    return tuple(sorted(out.items())), fold.tobytes()


@lru_cache(maxsize=1)
def _ascii_tails() -> tuple[str, ...]:
    return tuple(sorted(t for t in labels.tails() if t.isascii()))


def findings(
    engine: Engine, view: str, per: list[tuple[Detector, list[Any]]], keep: Callable[[Detector, str], bool]
) -> list[Finding]:
    """The non-overlapping findings, chosen as `Engine.settle` chooses them: the earliest start, then the
    longest span, then the detector's priority."""
    priority = {id(d): i for i, d in enumerate(engine.detectors)}
    candidates: list[tuple[int, int, int, int, Detector]] = []
    for d, found in per:
        for m in found:
            if d.locate is not None:
                spans = [(m.start() + a, m.start() + b) for a, b in d.locate(m.group())]
            else:
                spans = [m.span("v") if d.has_value_group else m.span()]
            for a, b in spans:
                if a < b and keep(d, view[a:b]):
                    candidates.append((a, a - b, priority[id(d)], b, d))
    candidates.sort(key=lambda c: c[:3])
    out: list[Finding] = []
    last = -1
    for a, _, _, b, d in candidates:
        if a >= last:
            out.append(Finding(a, b, d))
            last = b
    return out


# False: `chosen` asks a card's windows of `windows.card_windows`, not of its lean form `card_windows_lean` (the
# same answer), an address's check of `validators.ip_address` without first its dotted-quad shortcut inline, and
# `windows.ssn_windows` of every run (tests/redact/test_whole_quick.py compares them and the one pass with each).
LEAN_LOCATE = True
# False: `Redactor._redact_whole` takes `findings` and `Redactor._render` (the reference `chosen` and the lean
# render are compared with in tests/redact/test_whole_lean.py).
LEAN = True


def chosen(
    engine: Engine, view: str, per: list[tuple[Detector, list[Any]]], allow: frozenset[str]
) -> list[tuple[int, int, Detector]]:
    """`findings` with `Redactor._keep` as its `keep` (a detector's validator, then the allow-list), as (start,
    end, detector) triples: the same choice, with each detector's attributes read once for all its matches, the
    validator called directly and the candidates sorted as plain tuples of ints (the priority is the detector's
    index, unique per detector, and no detector has two candidates with one span, so no two tie). Why: on logs
    (421 findings) `findings` and `_render` were 1.8 of the one pass's ~5 ms per 64 KB."""
    index = engine._index
    candidates: list[tuple[int, int, int, int]] = []
    add = candidates.append
    for d, found in per:
        i = index[id(d)]
        validate = d.validate
        locate = d.locate
        if LEAN_LOCATE and locate is _windows.card_windows:
            locate = _windows.card_windows_lean
        # (`ssn_windows` answers [] at once for one group of ASCII digits, most of JSON's: not called for it)
        plain = LEAN_LOCATE and locate is _windows.ssn_windows and _validators.FAST
        if locate is not None:
            for m in found:
                run = m.group()
                if plain and run.isdigit() and run.isascii():
                    continue
                at = m.start()
                for a, b in locate(run):
                    a += at
                    b += at
                    if a < b:
                        value = view[a:b]
                        if (validate is None or validate(value)) and (not allow or value.casefold() not in allow):
                            add((a, a - b, i, b))
            continue
        group = d.has_value_group
        if (
            LEAN_LOCATE
            and not group
            and not allow
            and validate is _validators.ip_address
            and _validators.SHORTCUTS
            and _validators.FAST
        ):
            # (`ip_address` answers True at once where its dotted quad matches: asked here without its call)
            quad = _validators._QUAD.fullmatch
            for m in found:
                a, b = m.span()
                if a < b:
                    value = view[a:b]
                    if quad(value) is not None or validate(value):
                        add((a, a - b, i, b))
            continue
        for m in found:
            a, b = m.span("v") if group else m.span()
            if a < b:
                if validate is None and not allow:
                    add((a, a - b, i, b))
                    continue
                value = view[a:b]
                if (validate is None or validate(value)) and (not allow or value.casefold() not in allow):
                    add((a, a - b, i, b))
    candidates.sort()
    detectors = engine.detectors
    out: list[tuple[int, int, Detector]] = []
    last = -1
    for a, _, i, b in candidates:
        if a >= last:
            out.append((a, b, detectors[i]))
            last = b
    return out


def certified(
    engine: Engine, view: str, per: list[tuple[Detector, list[Any]]], window: int, builtin: frozenset[int]
) -> bool:
    """True if the stream, fed this view's text, would stop at no check and open no block at the end, for any
    bases its checks have: every `window` characters of the view (`max_hold` less the characters the view
    drops) hold a place far enough from their end (see the module's docstring)."""
    n = len(view)
    blocks: list[Far] = []
    # With `[fast]`, a detector covered by its prefilter triggers that has no hit in the view has no opener
    # there either (an opener is the start of a path that reads past the trigger reach, which holds a trigger
    # occurrence: prefilter.py's covering property, which wholedb.py's triggers share), so its opener's
    # search (a third of a millisecond on 64 KB of JSON) is not made.
    db = _db.shared(engine.detectors) if engine.prefilter is not None and n > _pf.MIN_RANGE else None
    got = db.remembered(view, LOOKBEHIND) if db is not None else None
    quiet = {i for i in db.triggered if got[0].get(i) == []} if db is not None and got is not None else set()
    for i, d in enumerate(engine.detectors):
        if d.opener_rx is None or i in quiet or not _has_opener(d.opener_rx, view):
            continue
        if id(d) not in builtin:
            return False  # a custom block's opener: left to the stream (it may stop at the end)
        block = _block_far(d, view)
        if block is None:
            return False  # a block still open at the end, or unbounded: the stream stops there
        blocks.append(block)
    if n < window:
        return True  # no check has `max_hold` characters held
    plan = _plan_of(engine.detectors, builtin)
    if plan is None:
        return False
    # First without the prefilter's hits (on prose in other scripts its pass costs more than the rest of this
    # check, and declines), then with them: a detector with none anywhere has no path that reads its trigger
    # reach (prefilter.py's covering property), so that reach bounds it and its `far` need not be asked.
    reads = _Reads(n)  # each far asked once at a place, over the three tries, within the budget
    if QUIET_FARS and quiet and _places_hold(engine, view, per, window, plan, blocks, {i: [] for i in quiet}, reads):
        return True  # (below: the same without them, then with the prefilter's own hits)
    if _places_hold(engine, view, per, window, plan, blocks, None, reads):
        return True
    if engine.prefilter is None or n <= _pf.MIN_RANGE or reads.spent:
        return False
    hits = engine.candidates(view, 0)
    return hits is not None and _places_hold(engine, view, per, window, plan, blocks, hits, reads)


class _Reads:
    """The far bounds `_places_hold` asks, remembered by (far, place) (`certified` tries the places up to three
    times, and a far is a pure function of the view and the place), with the characters they read counted (to
    the bound, or to the view's end where there is none) against `READ_BUDGET`: once `spent`, the pass
    declines rather than read on."""

    __slots__ = ("_known", "_left", "_n", "spent")

    def __init__(self, n: int) -> None:
        self._known: dict[tuple[int, int], int | None] = {}
        self._n = n
        self._left = READ_BUDGET * n if READ_BUDGET else -1
        self.spent = False

    def far(self, f: Far, view: str, x: int) -> int | None:
        key = (id(f), x)
        if key in self._known:
            return self._known[key]
        got = f(view, x)
        self._known[key] = got
        if self._left >= 0:
            self._left -= (self._n if got is None else got) - x
            if self._left < 0:
                self.spent = True
        return got


# False: `certified` first tries its places with every `far` (as before), not with the trigger reach of the
# detectors wholedb.py's pass found no trigger of (`quiet`: the claim the second try makes of the prefilter's
# own hits, which are the same triggers on the same encoding), whose `far` (a search each, for 9 of the 16
# unbounded detectors on JSON and logs) is then not asked. Where that try fails, the tries below are made.
QUIET_FARS = True
# False: `certified` searches a block detector's opener as one pattern (its alternatives are compared with it in
# tests/redact/test_whole_lean.py).
SPLIT_OPENERS = True
# A flag group that sets flags for the rest of the pattern (`(?i)`, not the scoped `(?i:…)`): not split there.
_GLOBAL_FLAGS = regex.compile(r"\(\?[a-zA-Z^-]+\)")


def _has_opener(rx: regex.Pattern[str], view: str) -> bool:
    """`rx.search(view) is not None`, as the search of each top-level alternative on its own: the engine finds a
    literal-prefixed pattern by a fast string search, but tries an alternation of them at every position (the
    private key opener's three: 0.46 ms on 64 KB, about a tenth of the one pass without hyperscan). A top-level
    alternation matches at a position where one of its alternatives does, so some alternative's search finds a
    match exactly where the whole one's does."""
    parts = _alternatives(rx.pattern, rx.flags) if SPLIT_OPENERS else None
    if parts is None:
        return rx.search(view) is not None
    return any(p.search(view) is not None for p in parts)


@lru_cache(maxsize=64)
def _alternatives(pattern: str, flags: int) -> tuple[regex.Pattern[str], ...] | None:
    """The top-level alternatives of `pattern`, each compiled with `flags`; None where there is one, or the
    pattern sets flags for what follows (which a split would take from the later alternatives), or is verbose or
    of version 1 (nested classes)."""
    if flags & (regex.VERBOSE | regex.V1) or _GLOBAL_FLAGS.search(pattern):
        return None
    parts = _top_alternatives(pattern)
    if parts is None or len(parts) < 2:
        return None
    try:
        return tuple(regex.compile(p, flags) for p in parts)
    except regex.error:
        return None


def _runs(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The starts and ends of the runs of overlapping match spans (one joins the run before it where it starts
    before that run's end), by the compiled `_wholec.runs` where it is built (`NATIVE_MERGE` of wholedb.py)."""
    helper = _fp.wholec if _db.NATIVE_MERGE else None
    if helper is not None:
        try:
            return helper.runs(spans)  # type: ignore[no-any-return]
        except (TypeError, OverflowError):
            pass
    starts: list[int] = []
    ends: list[int] = []
    for a, b in sorted(spans):
        if ends and a < ends[-1]:
            if b > ends[-1]:
                ends[-1] = b
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


def _places_hold(
    engine: Engine,
    view: str,
    per: list[tuple[Detector, list[Any]]],
    window: int,
    plan: tuple[tuple[int | None, Far], ...],
    blocks: list[Far],
    hits: dict[int, list[tuple[int, int]]] | None,
    reads: _Reads,
) -> bool:
    """`certified`'s places: every window holds one (`hits`: the prefilter's, or None); False once `reads` is
    spent."""
    n = len(view)
    fixed = 0
    fars: list[Far] = list(blocks)
    for i, (k, f) in enumerate(plan):
        if hits is not None and hits.get(i) == [] and engine.prefilter is not None:
            k = engine.prefilter.covered[i] + 1 if k is None else min(k, engine.prefilter.covered[i] + 1)
        if k is None:
            fars.append(f)
        else:
            fixed = max(fixed, k)
    spans = [m.span() for _, found in per for m in found]
    starts, ends = _runs(spans)
    places: list[tuple[int, int]] = []
    step = max(1, window // _PER_WINDOW)
    for g in range(0, n, step):
        space = _SPACE.search(view, g, g + _NEAR_SPACE)
        x = g if space is None else space.start()
        j = bisect_right(starts, x) - 1
        if j >= 0 and x < ends[j] and x > starts[j]:
            x = ends[j]  # no match is around the end of a merged run of them (start < x < end)
        if x + fixed > n:
            continue
        most = x + fixed
        for f in fars:
            got = reads.far(f, view, x)
            if reads.spent:
                return False
            if got is None:
                most = -1
                break
            if got > most:
                most = got
        if most >= 0:
            places.append((x, most))
    places = sorted(set(places))
    # For a base b, some place x > b with far(x) <= b + window; the worst b before each place is the one before.
    least = n + 1
    suffix = [0] * len(places)
    for i in range(len(places) - 1, -1, -1):
        least = min(least, places[i][1])
        suffix[i] = least
    last_base = n - window  # a check with `max_hold` held has at least `window` characters after its base
    worst = 0
    for i, (x, _) in enumerate(places):
        if worst > last_base:
            return True
        if x > worst and suffix[i] > worst + window:
            return False
        worst = max(worst, x)
    return worst > last_base
