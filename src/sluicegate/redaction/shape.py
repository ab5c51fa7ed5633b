"""Which characters a path of a detector's pattern can read at each of the first few places after its start: a
necessary condition the compiled feed checks before it asks the `regex` engine for an anchored match.

Why: on logs and JSON most of the engine calls the compiled feed makes are first anchored matches that fail, at
a digit, `:` or `.` where a phone, card, MAC, IP or e-mail address may start (issue 27's profile). The starters
tables already rule out what the character before and the three from the start allow; a timestamp
`2026-12-02T10:31:07` still passes them for an IP address or a card, and fails only further on (the IP wants
hex digits, `.` or `:` where the date has `-`). Reading a few more characters in C against the classes the
pattern allows there costs a few nanoseconds; the failing call costs half a microsecond or more.

The claim (tests/redact/test_shape.py checks it against the engine): the automaton (`Shape`) accepts every
string a path of the pattern consumes, and keeps a path alive wherever the engine may still be reading (a
lookahead, or one inside a lookbehind, counts as reading any characters up to its reach plus reach.py's margin;
a lookbehind otherwise only forbids and is left out). An anchored `partial=True` match at `v` that returns
anything either consumed a whole match from `v` or read every character up to the end of the view, so if no
state of the automaton can read `view[v + j]` for some `j` before the end, with no accepting state reached
before it, the answer at `v` is "no match". Repeats are unrolled to `PLACES` places; past that (or wherever the
construction gives up) a state stands for "anything from here", so the check only ever says "maybe" there.

The automaton is read off the parse tree with the standard library's parser (as reach.py and alphabet.py do), each
class evaluated by the `regex` engine itself on the 128 ASCII characters; a non-ASCII character is allowed at a
place where some class there may match one (a negated class, a category, a property, case folding). Anything
the parser or this walk does not know gives no shape (never a wrong one).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import regex

from .parsetree import REPEAT as _REPEAT
from .parsetree import TOKEN as _TOKEN
from .parsetree import _Unbounded
from .parsetree import constants as _c
from .parsetree import parser as _p
from .parsetree import subpatterns as _subs
from .reach import MARGIN, _ahead, _reach

# Places after a start that are read off (more reads more of a token; 16 covers a card's or a date's shape).
PLACES = 16
# `\p{...}` classes stand in as plane-15 private use characters while the standard parser reads the pattern.
_PLACEHOLDER = 0xF0000
_ASCII = [chr(c) for c in range(128)]


_Unknown = _Unbounded  # the parse-tree walks share one: the same meaning


class _Full(_Unknown):
    """More states than the construction keeps."""


# An alternation of more than this many alternatives is read as "anything from here" when the exact automaton
# has more than `STATES` states (`LABELED_IN_CODE`'s label words after a reversed comparison's value).
WIDE_BRANCH = 8


class Shape:
    """A small automaton over character classes (lookbehinds left out, lookaheads read as any characters up to
    their reach, repeats unrolled up to `PLACES` places): `classes[s]` = (the ASCII characters state `s` may read,
    a 128-bit int; whether it may read a non-ASCII one), `follow[s]` = the states that may read the next character
    (a bit set), `first` = those that may read the first, `accept` = the states after which a complete match may
    end; state 0 stands for "anything from here" (more of a repeat than was unrolled, or anything unknown)."""

    __slots__ = ("accept", "classes", "first", "follow", "places")

    def __init__(
        self, classes: list[tuple[int, bool]], follow: list[int], first: int, accept: int, places: int = PLACES
    ) -> None:
        self.places = places
        self.classes = classes
        self.follow = follow
        self.first = first
        self.accept = accept

    def rules_out(self, text: str, v: int) -> bool:
        """True if no path of the pattern can match at `v` (complete, or open at the end of `text`)."""
        want = self.first
        classes, follow, stop = self.classes, self.follow, self.accept | 1
        for j in range(min(self.places, len(text) - v)):
            c = ord(text[v + j])
            got = 0
            for s in _bits(want):
                a, wide = classes[s]
                if (a >> c & 1) if c < 128 else wide:
                    got |= 1 << s
            if not got:
                return True
            if got & stop:
                return False
            want = 0
            for s in _bits(got):
                want |= follow[s]
        return False

    def packed(self) -> tuple[int, bytes]:
        """(states, per state: its 128-bit set little-endian, 1 byte wide, its follow set as STATES/8 bytes;
        then first and accept as STATES/8 bytes each), for the compiled feed."""
        b = STATES // 8
        out = [
            a.to_bytes(16, "little") + bytes([w]) + f.to_bytes(b, "little")
            for (a, w), f in zip(self.classes, self.follow, strict=True)
        ]
        return len(self.classes), b"".join(out) + self.first.to_bytes(b, "little") + self.accept.to_bytes(b, "little")


# The most states an automaton may keep (the compiled feed's bit sets are this wide).
STATES = 512


@lru_cache(maxsize=256)
def shape(pattern: str, flags: int = 0, places: int = PLACES) -> Shape | None:
    """The automaton of `pattern` (as compiled with `flags`) over its first `places` characters, or None if it is
    not known."""
    # Full case folding (one character for two), version 1 sets (`[[a-z]--[aeiou]]`) and verbose mode read
    # differently from what the standard parser sees.
    if flags & (regex.FULLCASE | regex.VERSION1 | regex.VERBOSE) or chr(_PLACEHOLDER) <= max(pattern, default="\0"):
        return None
    classes: list[str] = []
    out: list[str] = []
    at = 0
    names: dict[str, int] = {}
    for m in _TOKEN.finditer(pattern):
        t = m.group()
        if t[0] == "{" and not _REPEAT.fullmatch(t):
            return None  # a fuzzy constraint reads more than the pattern shows
        out.append(pattern[at : m.start()])
        if t[:2] in ("\\p", "\\P", "\\N") and len(t) > 2:
            out.append(chr(_PLACEHOLDER + len(classes)))
            classes.append(t)
        else:
            out.append(t)
        at = m.end()
    out.append(pattern[at:])
    plain = "".join(out)

    # A group name used twice (`v` in each alternative) is refused by the standard parser: each gets its own.
    def rename(m: re.Match[str]) -> str:
        names[m.group(1)] = names.get(m.group(1), 0) + 1
        return f"(?P<{m.group(1)}_{names[m.group(1)]}>"

    plain = re.sub(r"(?<!\\)\(\?P<(\w+)>", rename, plain)
    for name, count in names.items():
        if f"(?P={name})" in plain:
            if count > 1:
                return None
            plain = plain.replace(f"(?P={name})", f"(?P={name}_1)")
    try:
        tree = _p.parse(plain)
    except (re.error, OverflowError, RecursionError):
        return None
    ci = bool(flags & regex.IGNORECASE) or bool(tree.state.flags & re.IGNORECASE)
    # Exact first; with too many states, again with each wide alternation (a list of label words) read as
    # "anything from here", which only ever says "maybe" where the exact automaton might say "no".
    for wide in (None, WIDE_BRANCH):
        b = _Build(classes, _groups(tree, ci), wide, places)
        try:
            first, last, nullable = b.seq(tree, ci)
        except _Full:
            continue
        except (_Unknown, RecursionError):
            return None
        if nullable:
            return None
        got = b.finish(first, last)
        if got is not None:
            return got
    return None


Frag = tuple[int, int, bool]  # (first states, last states, nullable) as bit sets


class _Build:
    """Glushkov's construction over the parse tree: each character class is a state."""

    def __init__(
        self, classes: list[str], groups: dict[int, tuple[Any, bool]], wide: int | None = None, places: int = PLACES
    ) -> None:
        self.wide = wide
        self.places = places
        self.pclasses = classes
        self.groups = groups
        self.classes: list[tuple[int, bool]] = [((1 << 128) - 1, True)]  # state 0: anything from here
        self.follow: list[int] = [1]
        self.depth = 0

    def state(self, allowed: tuple[int, bool]) -> Frag:
        if len(self.classes) >= 8 * STATES:
            raise _Full
        self.classes.append(allowed)
        self.follow.append(0)
        bit = 1 << (len(self.classes) - 1)
        return bit, bit, False

    def link(self, last: int, first: int) -> None:
        for s in _bits(last):
            self.follow[s] |= first

    def cat(self, a: Frag, b: Frag) -> Frag:
        self.link(a[1], b[0])
        return (a[0] | (b[0] if a[2] else 0), b[1] | (a[1] if b[2] else 0), a[2] and b[2])

    def seq(self, sub: Any, ci: bool) -> Frag:
        got: Frag = (0, 0, True)
        for op, av in sub:
            got = self.cat(got, self.node(op, av, ci))
        return got

    def anything(self) -> Frag:
        return 1, 1, False

    def peek(self, r: float) -> Frag:
        """A lookahead that reads up to `r` characters and may meet the end there: a path that reads any `r`
        characters and then nothing (it only keeps a start open while the text ends inside it)."""
        if r == float("inf") or r + MARGIN > self.places:
            return 1, 0, True
        first = last = 0
        for _ in range(int(r) + MARGIN):  # (with reach.py's margin for a peek past what it consumes)
            one = self.state(((1 << 128) - 1, True))
            if first:
                self.link(last, one[0])
            else:
                first = one[0]
            last = one[1]
        return first, 0, True

    def node(self, op: Any, av: Any, ci: bool) -> Frag:
        if op is _c.LITERAL:
            return self.state(self.items([(_c.LITERAL, av)], ci))
        if op is _c.IN:
            return self.state(self.items(av, ci))
        if op in (_c.NOT_LITERAL, _c.ANY):
            return self.state(((1 << 128) - 1, True))
        if op is _c.CATEGORY:
            return self.state(self.items([(_c.CATEGORY, av)], ci))
        if op is _c.AT:
            return 0, 0, True
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, body = av
            if direction == -1:
                # A lookbehind only forbids, but a lookahead inside it may read forward from the place the
                # lookbehind starts at (at or before this one): at most that lookahead's reach past here.
                r = _ahead(body)
                return self.peek(r) if r else (0, 0, True)
            return self.peek(_reach(body))
        if op is _c.SUBPATTERN:
            _group, add, delete, body = av
            inner = (ci or bool(add & re.IGNORECASE)) and not delete & re.IGNORECASE
            return self.seq(body, inner)
        if op is _c.ATOMIC_GROUP:
            return self.seq(av, ci)
        if op is _c.BRANCH:
            if self.wide is not None and len(av[1]) > self.wide:
                return self.anything()
            first = last = 0
            nullable = False
            for br in av[1]:
                f, la, nu = self.seq(br, ci)
                first |= f
                last |= la
                nullable = nullable or nu
            return first, last, nullable
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            lo, hi, body = av
            cap = self.places + 1
            got: Frag = (0, 0, True)
            for _ in range(min(lo, cap)):
                got = self.cat(got, self.seq(body, ci))
            if lo > cap:
                return self.cat(got, self.anything())
            # The optional copies nest (a copy only after the one before it), and more than were unrolled
            # only after all of them: x{0,3} is (x(x(x)?)?)?.
            tail: Frag = (1, 1, True) if hi > cap else (0, 0, True)
            for _ in range(min(hi, cap) - lo):
                f, la, _nu = self.cat(self.seq(body, ci), tail)
                tail = (f, la, True)
            return self.cat(got, tail)
        if op is _c.GROUPREF:
            if av not in self.groups:
                raise _Unknown
            body, gci = self.groups[av]
            self.depth += 1
            if self.depth > 8:
                raise _Unknown
            try:
                return self.seq(body, gci or ci)
            finally:
                self.depth -= 1
        if op is _c.GROUPREF_EXISTS:
            _group, yes, no = av
            y = self.seq(yes, ci)
            n = self.seq(no, ci) if no is not None else (0, 0, True)
            return y[0] | n[0], y[1] | n[1], y[2] or n[2]
        raise _Unknown

    def finish(self, first: int, last: int) -> Shape | None:
        """The states a path can be in within `places` characters, renumbered (state 0 kept), or None if more
        than `STATES`."""
        frontier = first
        keep = {0}
        for _ in range(self.places):
            nxt = 0
            for s in _bits(frontier):
                keep.add(s)
                nxt |= self.follow[s]
            frontier = nxt & ~1
        if len(keep) > STATES:
            return None
        order = sorted(keep)
        new = {s: k for k, s in enumerate(order)}

        def remap(bits: int) -> int:
            return sum(1 << new[s] for s in _bits(bits) if s in new)

        return Shape(
            [self.classes[s] for s in order],
            [remap(self.follow[s]) for s in order],
            remap(first),
            remap(last),
            self.places,
        )

    def items(self, items: Any, ci: bool) -> tuple[int, bool]:
        """A class (the parser's items) as (its ASCII characters, whether it may match a non-ASCII one), the ASCII
        part asked of the `regex` engine."""
        parts: list[str] = []
        # (the engine answers for the ASCII characters, case folding included; folding may also take an ASCII
        # letter to a non-ASCII one, `k` ~ KELVIN SIGN)
        wide = ci
        for kind, arg in items:
            if kind is _c.NEGATE:
                parts.insert(0, "^")
                wide = True
            elif kind is _c.LITERAL:
                parts.append(self.char(arg))
                wide = wide or arg >= 128
            elif kind is _c.RANGE:
                lo, hi = arg
                if lo >= _PLACEHOLDER or hi >= _PLACEHOLDER:
                    raise _Unknown
                parts.append(f"{self.char(lo)}-{self.char(hi)}")
                wide = wide or hi >= 128
            elif kind is _c.CATEGORY:
                cat = _CATEGORIES.get(str(arg))
                if cat is None:
                    raise _Unknown
                parts.append(cat)
                wide = True
            else:
                raise _Unknown
        return _ascii_of(("(?i)" if ci else "") + "[" + "".join(parts) + "]"), wide

    def char(self, c: int) -> str:
        k = c - _PLACEHOLDER
        if 0 <= k < len(self.pclasses):
            if self.pclasses[k][:2] == "\\N":
                raise _Unknown
            return self.pclasses[k]
        return f"\\U{c:08x}"


def _bits(x: int) -> list[int]:
    """The set bits of `x`, lowest first."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


@lru_cache(maxsize=1024)
def _ascii_of(cls: str) -> int:
    """The ASCII characters the `regex` engine matches with the class `cls`, as a 128-bit int."""
    rx = regex.compile(cls)
    return sum(1 << ord(c) for c in _ASCII if rx.match(c))


_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


def _groups(tree: Any, ci: bool) -> dict[int, tuple[Any, bool]]:
    """Each group's body and whether it is case-insensitive (a back-reference reads what its group can)."""
    out: dict[int, tuple[Any, bool]] = {}

    def visit(sub: Any, ci: bool) -> None:
        for op, av in sub:
            if op is _c.SUBPATTERN:
                group, add, delete, body = av
                inner = (ci or bool(add & re.IGNORECASE)) and not delete & re.IGNORECASE
                if group is not None:
                    out[group] = (body, inner)
                visit(body, inner)
            else:
                for s in _subs(av):
                    visit(s, ci)

    visit(tree, ci)
    return out
