"""How far past its start a path of a detector's pattern can read: a bound that lets an open start be looked for
near the end of the buffer instead of from the start of the held text.

Why: a `partial=True` search tries every position from where it starts, so probing 8 KiB of held text for a
20-character token costs a scan of 8 KiB. A path that starts at q and reads at most `R` characters (what it
consumes, plus what its lookaheads peek at) can touch the end of an `n`-character buffer only if q >= n - R,
so the leftmost open start is found by searching from there. The bound is computed from the pattern's parse
tree with the standard library's parser (the `regex` package has no width query): lookaheads count as if
consumed, lookbehinds read backwards and count nothing but the lookaheads inside them, an unbounded repeat or
anything the parser does not know (a back-reference, `regex`-only syntax, a brace group that may be a fuzzy
constraint) gives no bound. `\\p{...}` classes match one character, so they
are read as one. tests/redact/test_reach.py checks the bound against the engine on long random texts.
"""

from __future__ import annotations

import re
from typing import Any

import regex

from .parsetree import REPEAT as _REPEAT
from .parsetree import TOKEN as _TOKEN
from .parsetree import alternatives
from .parsetree import constants as _c
from .parsetree import parser as _p
from .parsetree import subpatterns as _subs

# A path may peek one character further than it consumes before it gives up (the probe's `(?!)`, a possessive
# repeat deciding it is done), and a margin costs nothing: it only starts the search a little earlier.
MARGIN = 2
_INF = float("inf")


def reach(pattern: str, flags: int = 0) -> int | None:
    """The most characters a path of `pattern` can read from its start, or None if not bounded (or unknown)."""
    if flags & regex.FULLCASE:  # a pattern character may match two text characters (ß ~ ss)
        return None
    plain = _plain(pattern)
    if plain is None:
        return None
    try:
        tree = _p.parse(plain)
    except (re.error, OverflowError, RecursionError):
        return None
    got = _reach(tree)
    return None if got == _INF else int(got) + MARGIN


def _plain(pattern: str) -> str | None:
    """`pattern` with each `\\p{...}` class as one character, or None if it holds a brace group that is not a
    repeat count."""
    out = []
    at = 0
    for m in _TOKEN.finditer(pattern):
        t = m.group()
        if t[0] == "{" and not _REPEAT.fullmatch(t):
            return None
        out.append(pattern[at : m.start()])
        out.append("a" if t[:2] in ("\\p", "\\P") and len(t) > 2 else t)
        at = m.end()
    out.append(pattern[at:])
    return "".join(out)


def _reach(sub: Any) -> float:
    total = 0.0
    for op, av in sub:
        total += _node(op, av)
    return total


def _node(op: Any, av: Any) -> float:
    if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY):
        return 1.0
    if op is _c.AT:
        return 0.0
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        direction, body = av
        return _reach(body) if direction == 1 else _ahead(body)
    if op is _c.SUBPATTERN:
        return _reach(av[-1])
    if op is _c.ATOMIC_GROUP:
        return _reach(av)
    if op is _c.BRANCH:
        return max((_reach(b) for b in av[1]), default=0.0)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        _lo, hi, body = av
        inner = _reach(body)
        if inner == 0.0:
            return 0.0
        return _INF if hi == _c.MAXREPEAT else hi * inner
    if op is _c.GROUPREF_EXISTS:
        _group, yes, no = av
        return max(_reach(yes), _reach(no) if no is not None else 0.0)
    return _INF  # a back-reference, or anything this does not know


def _ahead(sub: Any) -> float:
    """How far past its position a lookbehind reads: nothing, but for the lookaheads inside it, which start at
    or before that position and read forwards."""
    most = 0.0
    for op, av in sub:
        if op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, body = av
            got = _reach(body) if direction == 1 else _ahead(body)
        else:
            got = max((_ahead(s) for s in _subs(av)), default=0.0)
        most = max(most, got)
    return most


def before_behind(pattern: str, flags: int = 0, first: str | None = None) -> int | None:
    """The most characters a path of `pattern` reads from its start before it reaches a positive lookbehind, or
    None if some path can end (or grows without bound) without reaching one, or the pattern is unknown.

    Why: a path that got that far has asked its lookbehind (the label before a `LABELED_SECRET` value), so with
    more text than this after a start, the engine's answer there depends on that lookbehind; with less, the path
    may be open at the end of the text before it (tests/redact/test_label_near.py). With `first` (characters),
    only the top-level alternatives that may start at one of them are read (one that starts with another
    literal character is left out)."""
    if flags & regex.FULLCASE:
        return None
    plain = _plain(pattern)
    if plain is None:
        return None
    try:  # named groups as plain ones: the standard parser refuses a name used twice (`v` in each alternative)
        tree = _p.parse(re.sub(r"(?<!\\)\(\?P<\w+>", "(?:", plain))
    except (re.error, OverflowError, RecursionError):
        return None
    if first is not None and len(tree) == 1 and tree[0][0] is _c.BRANCH:
        alts = [b for b in tree[0][1][1] if not (len(b) and b[0][0] is _c.LITERAL and chr(b[0][1]) not in first)]
        tree = [(_c.BRANCH, (None, alts))] if alts else []
    hit, through = _behind_seq(tree)
    if through != -_INF or hit == _INF:
        return None
    return int(hit) + MARGIN


def behind_split(pattern: str, flags: int, chars: str) -> tuple[int, str] | None:
    """For starts at `chars` where some top-level alternatives reach a positive lookbehind (a label before the
    value) and others need not (`if ("…" == password)`: the label comes after the value): (the most characters
    the former read before their lookbehind, with the margin; the text of the latter, as one pattern), or None
    where there is no such split (no alternative of either kind, or the text and the tree disagree).

    Why: at such a start with no label word before it and more than that many characters after it, only the
    latter can match, so a necessary condition for them alone (their shape, shape.py) rules the start out
    (tests/redact/test_label_near.py checks it against the engine)."""
    if flags & regex.FULLCASE:
        return None
    plain = _plain(pattern)
    texts = alternatives(pattern)
    if plain is None or texts is None:
        return None
    try:
        tree = _p.parse(re.sub(r"(?<!\\)\(\?P<\w+>", "(?:", plain))
    except (re.error, OverflowError, RecursionError):
        return None
    if len(tree) != 1 or tree[0][0] is not _c.BRANCH or len(tree[0][1][1]) != len(texts):
        return None
    most, rest = -_INF, []
    for alt, text in zip(tree[0][1][1], texts, strict=True):
        if len(alt) and alt[0][0] is _c.LITERAL and chr(alt[0][1]) not in chars:
            continue  # starts at another character
        hit, through = _behind_seq(alt)
        if through == -_INF and hit != _INF:
            most = max(most, hit)
        else:
            rest.append(text)
    if most == -_INF or not rest:
        return None
    return int(most) + MARGIN, "|".join(rest)


def _behind_seq(sub: Any) -> tuple[float, float]:
    """(the most read by the paths of `sub` that reach a positive lookbehind, up to it; the most read by the
    paths that pass through without one), each -inf if there is no such path."""
    hit, acc = -_INF, 0.0
    for op, av in sub:
        h, t = _behind_node(op, av)
        hit = max(hit, acc + h)
        acc = acc + t
        if acc == -_INF:
            break
    return hit, acc


def _behind_node(op: Any, av: Any) -> tuple[float, float]:
    if op is _c.ASSERT and av[0] == -1:
        return _ahead(av[1]), -_INF
    if op is _c.SUBPATTERN:
        return _behind_seq(av[-1])
    if op is _c.ATOMIC_GROUP:
        return _behind_seq(av)
    if op is _c.BRANCH:
        got = [_behind_seq(b) for b in av[1]]
        return max(h for h, _ in got), max(t for _, t in got)
    if any(o is _c.ASSERT and a[0] == -1 for s in _subs(av) for o, a in _walk_ops(s)):
        return _INF, _INF  # a lookbehind inside a repeat or another assertion: not worth reading
    return -_INF, _node(op, av)


def _walk_ops(sub: Any) -> Any:
    for op, av in sub:
        yield op, av
        for s in _subs(av):
            yield from _walk_ops(s)
