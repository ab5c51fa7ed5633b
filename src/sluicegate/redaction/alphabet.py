"""Which characters a path of a detector's pattern can read: a bound on an open start for a detector without a
`reach` (reach.py), found by looking backwards from the end of the buffer instead of scanning the held text.

Why: a path still open at the end of an `n`-character buffer started at some q and read every character of
[q, n) (consumed it, or peeked at it with a lookahead: a lookbehind only reads behind the position it is at).
If every such character is in the set the pattern's consuming nodes and lookaheads can match (its alphabet),
no open start is at or before the last character outside that set, so the probe may start right after it. A
token or an address is a run of a small alphabet, so on prose that character is a few places back, where a
forward `partial=True` search from the start of 8 KiB of held text tries all 8 KiB.

The alphabet is read off the pattern's parse tree with the standard library's parser (as reach.py does), each
`\\p{...}` class kept whole; anything it cannot bound (`.`, a negated class or category, a lookahead inside a
lookbehind, syntax it does not know) gives no alphabet. tests/redact/test_alphabet.py checks the result
against the engine on random texts.
"""

from __future__ import annotations

import re
from typing import Any

import regex

from .parsetree import REPEAT as _REPEAT
from .parsetree import TOKEN as _TOKEN
from .parsetree import _Unbounded
from .parsetree import constants as _c
from .parsetree import has_lookahead as _has_lookahead
from .parsetree import parser as _p

_CATEGORY = {"CATEGORY_DIGIT": r"\d", "CATEGORY_SPACE": r"\s", "CATEGORY_WORD": r"\w"}
# Placeholders for the `\\p{...}` classes while the standard parser reads the pattern (a plane-15 private use
# character is not in any built-in pattern; a pattern that holds one gets no alphabet).
_PLACEHOLDER = 0xF0000


_Unknown = _Unbounded  # the parse-tree walks share one: the same meaning


def stop_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str] | None:
    """A reverse-searching pattern for one character no path of `pattern` reads, or None if there is no such
    bound (or it is unknown). `stop.search(view, s)` gives the last such character at or after `s`."""
    got = alphabet(pattern, flags)
    if got is None:
        return None
    plain, folded = got
    cls = f"[^{''.join(plain)}]" if plain else r"[\s\S]"
    if folded:
        cls = f"(?!(?i:[{''.join(folded)}])){cls}"
    return regex.compile(f"(?r){cls}")


def alphabet(pattern: str, flags: int = 0) -> tuple[list[str], list[str]] | None:
    """The class items (in `regex` syntax) a path of `pattern` can read: (matched as written, matched
    case-insensitively), or None if unbounded or unknown."""
    if flags & regex.FULLCASE or chr(_PLACEHOLDER) <= max(pattern, default="\0"):
        return None
    classes: list[str] = []
    out: list[str] = []
    at = 0
    for m in _TOKEN.finditer(pattern):
        t = m.group()
        if t[0] == "{" and not _REPEAT.fullmatch(t):
            return None
        out.append(pattern[at : m.start()])
        if t[:2] in ("\\p", "\\P", "\\N") and len(t) > 2:
            if t[:2] != "\\p":  # a negated property or a named character: not worth knowing
                return None
            out.append(chr(_PLACEHOLDER + len(classes)))
            classes.append(t)
        else:
            out.append(t)
        at = m.end()
    out.append(pattern[at:])
    try:
        tree = _p.parse("".join(out))
    except (re.error, OverflowError, RecursionError):
        return None
    plain: set[str] = set()
    folded: set[str] = set()
    ci = bool(flags & regex.IGNORECASE) or bool(tree.state.flags & re.IGNORECASE)
    try:
        _walk(tree, ci, plain, folded, classes)
    except _Unknown:
        return None
    return sorted(plain), sorted(folded)


def _char(c: int, classes: list[str]) -> str:
    k = c - _PLACEHOLDER
    if 0 <= k < len(classes):
        return classes[k]
    return f"\\U{c:08x}"


def _walk(sub: Any, ci: bool, plain: set[str], folded: set[str], classes: list[str]) -> None:
    into = folded if ci else plain
    for op, av in sub:
        if op is _c.LITERAL:
            into.add(_char(av, classes))
        elif op is _c.IN:
            for kind, arg in av:
                if kind is _c.LITERAL:
                    into.add(_char(arg, classes))
                elif kind is _c.RANGE:
                    lo, hi = arg
                    if lo >= _PLACEHOLDER or hi >= _PLACEHOLDER:
                        raise _Unknown
                    into.add(f"{_char(lo, classes)}-{_char(hi, classes)}")
                elif kind is _c.CATEGORY and str(arg) in _CATEGORY:
                    into.add(_CATEGORY[str(arg)])
                else:  # NEGATE, a negated category
                    raise _Unknown
        elif op is _c.CATEGORY and str(av) in _CATEGORY:
            into.add(_CATEGORY[str(av)])
        elif op is _c.AT:
            continue
        elif op is _c.GROUPREF:  # it reads what its group read, unless case folding lets it read more
            if ci:
                raise _Unknown
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, body = av
            if direction == 1:
                _walk(body, ci, plain, folded, classes)
            elif _has_lookahead(body):  # it may read forward from behind the start, up to the end
                raise _Unknown
        elif op is _c.SUBPATTERN:
            _group, add, delete, body = av
            inner = (ci or bool(add & re.IGNORECASE)) and not delete & re.IGNORECASE
            _walk(body, inner, plain, folded, classes)
        elif op is _c.ATOMIC_GROUP:
            _walk(av, ci, plain, folded, classes)
        elif op is _c.BRANCH:
            for b in av[1]:
                _walk(b, ci, plain, folded, classes)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            _walk(av[2], ci, plain, folded, classes)
        elif op is _c.GROUPREF_EXISTS:
            _group, yes, no = av
            _walk(yes, ci, plain, folded, classes)
            if no is not None:
                _walk(no, ci, plain, folded, classes)
        else:  # ANY, NOT_LITERAL, or anything this does not know
            raise _Unknown
