"""The open tail of a pattern whose every path ends in a repeat of one character class (`LABELED_SECRET`'s
values: `[^\\s"'`]{2,}+`, `[^"\\n]{1,256}+`, ...), read off the parse tree: the claims the compiled feed
(_native.c) uses to skip the engine while such a value streams in.

Why: on code the top 1% of feeds that release nothing were mostly a labelled value being written: at each check
its start was matched again (complete) and probed again (open), two calls of a pattern whose every call costs
5-12 µs (the engine resets the label alternation's repeat guards on each), and the first probe after the value
became complete cost the most (issue 27, stop 34).

The two claims, for a start v at which the detector's anchored partial match is complete and ends at the end of
the text n, with n - v below `most` (so the final repeat took fewer than its maximum):
1. **open now**: the path that matched ends in its final repeat, which stopped only because the text did; it
   tried to read one more character, so the path runs into the end: v is an open start (the probe from v answers
   v), without asking the probe;
2. **still open later**: text appended whose characters are all in `chars` (every final repeat's class accepts
   them) extends that repeat, so while n - v stays below `most` the start stays open, and complete; the
   other parts of the path read nothing appended (no lookahead outside a lookbehind, and a lookbehind's
   lookaheads read at most as far past it as the final repeat's least count), so appending cannot change them.
tests/redact/test_open_tail.py checks both against the engine.

`GUARDED` (stop 35) also reads a path that ends in a final repeat and then in **trailing guards**: an optional group
(`(?:\\.[0-9A-Za-z_\\-]*+)?`, whose every path ends in a final repeat, or is skipped: then the path ends as what
comes before it does) and a negative lookahead of one character class after everything (a token's end,
`(?![0-9A-Za-z_\\-])`). Why the claims still hold: the lookahead reads only the character after the match, which at
a complete match ending at n is the end of the text, before and after text of `chars` is appended (the final
repeat extends to the new end, and the lookahead is asked there, at the end again); the optional group is one more
place a path may end, in a final repeat. Why: a JWT's payload streams in 4 characters a feed, and each feed asked
its match (complete) and its probe (open), 10-20 µs over a 160-character token: a fifth of the code corpus's top 1%
of feeds (tests/benchmarks/redactor_tail_floor.py --profile). tests/redact/test_open_tail_guarded.py checks the
claims against the engine for the detectors this adds (JWT and the tokens that end in a guard).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex

from .parsetree import _Unbounded
from .parsetree import constants as _c
from .reach import _ahead
from .tails import _alphabet, _one_of, parsed

_Unknown = _Unbounded

# False: no trailing guards (stop 34's claims alone; the compiled feed then asks as before).
GUARDED = True


class OpenTail:
    """`chars`: the ASCII characters every final repeat accepts (the claim is not used at any other character);
    `most`: the least maximum of a final repeat (None: none bounded)."""

    def __init__(self, chars: str, most: int | None) -> None:
        self.chars = chars
        self.most = most

    def packed(self) -> tuple[bytes, int]:
        """A 128-bit set of `chars` (16 bytes, bit c of byte c // 8) and `most` (-1: unbounded), for _native.c."""
        bits = bytearray(16)
        for c in self.chars:
            bits[ord(c) >> 3] |= 1 << (ord(c) & 7)
        return bytes(bits), -1 if self.most is None else self.most


def open_tail(pattern: str, flags: int = 0, guarded: bool | None = None) -> OpenTail | None:
    """The claims above for `pattern` (without its `first` lookahead, which reads only the character at v), or
    None where some path does not end in such a repeat or some part of it may read ahead. `guarded`: trailing
    guards allowed (default: `GUARDED`)."""
    return _open_tail(pattern, flags, GUARDED if guarded is None else guarded)


@lru_cache(maxsize=256)
def _open_tail(pattern: str, flags: int, guarded: bool) -> OpenTail | None:
    got = parsed(pattern, flags)
    if got is None:
        return None
    tree, ci, classes = got
    if guarded:
        tree = _unguarded(tree)
    try:
        ahead = _ahead_of(tree)
        finals = _finals(tree, ci, classes, guarded)
    except _Unknown:
        return None
    # A lookbehind stands at or before the final repeat's start and its lookaheads read at most `ahead` past it:
    # within the repeat's first `lo` characters, there once the match is complete.
    if not finals or ahead > min(lo for _, _, lo in finals):
        return None
    most: int | None = None
    accept = []
    for atoms, hi, _lo in finals:
        if not atoms:
            return None
        accept.append(regex.compile(_one_of(frozenset(atoms)), regex.V1).fullmatch)
        if hi is not None:
            most = hi if most is None else min(most, hi)
    chars = "".join(chr(c) for c in range(128) if all(a(chr(c)) for a in accept))
    if not chars:
        return None
    return OpenTail(chars, most)


_ATOMS = (_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.CATEGORY, _c.ANY)  # one character of one class


def _unguarded(tree: Any) -> Any:
    """`tree` without its trailing negative lookahead of one class (read only at the end of the text, see above)."""
    if len(tree):
        op, av = tree[-1]
        if op is _c.ASSERT_NOT and av[0] == 1 and len(av[1]) == 1 and av[1][0][0] in (_c.IN, _c.LITERAL):
            return tree[:-1]
    return tree


def _finals(sub: Any, ci: bool, classes: list[str], guarded: bool = False) -> list[tuple[set[str], int | None, int]]:
    """Every final repeat a path of `sub` may end in: (its class as atoms, its maximum or None, its minimum).
    `guarded`: a trailing optional group also ends paths in its own final repeats, or in what comes before it."""
    if not len(sub):
        raise _Unknown
    op, av = sub[-1]
    if op is _c.BRANCH:
        return [f for b in av[1] for f in _finals(b, ci, classes, guarded)]
    if op is _c.SUBPATTERN:
        _group, add, delete, body = av
        return _finals(body, (ci or bool(add & 2)) and not delete & 2, classes, guarded)  # 2: re.IGNORECASE
    if op is _c.ATOMIC_GROUP:
        return _finals(av, ci, classes, guarded)
    if (
        guarded
        and op in (_c.MAX_REPEAT, _c.POSSESSIVE_REPEAT)
        and av[0] == 0
        and av[1] == 1
        and not (len(av[2]) == 1 and av[2][0][0] in _ATOMS)
    ):  # an optional group (the parser unwraps `(?:...)`): a path ends in it, or skips it and ends as the rest does
        return _finals(av[2], ci, classes, guarded) + _finals(sub[:-1], ci, classes, guarded)
    if op in (_c.MAX_REPEAT, _c.POSSESSIVE_REPEAT):
        lo, hi, body = av
        if len(body) != 1 or body[0][0] not in _ATOMS:
            raise _Unknown
        atoms: set[str] = set()
        _alphabet(body, ci, classes, atoms)
        return [(atoms, None if hi == _c.MAXREPEAT else int(hi), int(lo))]
    raise _Unknown  # a lazy repeat, a literal, a lookaround ...: the path may end otherwise


def _ahead_of(sub: Any) -> float:
    """How far past where it stands some part of `sub` may read: infinite for a lookahead outside a lookbehind,
    else the most a lookbehind's lookaheads read past the lookbehind's position (reach.py's `_ahead`)."""
    most = 0.0
    for op, av in sub:
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, body = av
            most = max(most, float("inf") if direction == 1 else _ahead(body))
        elif op is _c.SUBPATTERN:
            most = max(most, _ahead_of(av[-1]))
        elif op is _c.ATOMIC_GROUP:
            most = max(most, _ahead_of(av))
        elif op is _c.BRANCH:
            most = max([most, *(_ahead_of(b) for b in av[1])])
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            most = max(most, _ahead_of(av[2]))
        elif op is _c.GROUPREF_EXISTS:
            return float("inf")
    return most
