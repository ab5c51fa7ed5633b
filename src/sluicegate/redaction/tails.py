"""How far a path of a detector's pattern can read in a known text: a bound for patterns with no `reach`.

Why: a whole string (`redact(text)`) is settled in one pass (whole.py) only if the stream would never stop on
it, i.e. if at every `max_hold` check some place before the end of the held text is out of every open path's
way. A path that starts at q and reads (tries) position j has accepted every character of [q, j): consumed it,
or matched it in a lookahead (a lookbehind only reads behind positions already reached). Split the pattern's
nodes into its unbounded repeats and the rest: the rest accept at most `w` characters on one path, and an
unbounded repeat only characters of its body's alphabet `A`. So [q, j) holds at most `w` characters outside `A`,
and a path from q or before cannot read past the (w+1)-th character outside `A` at or after q. A token has a
small alphabet and `LABELED_SECRET`'s unquoted value stops at a space or a quote: in most texts that character
is a few places away.

A pattern is read as a list of (w, A) pairs, one per kind of path (a top-level alternative each, so that a
bounded alternative with a long `{1,256}` does not count against an unbounded one); each is turned into a
regex that, matched at q, ends right after the (w+1)-th character outside `A` (`Tail.ends`). Anything the
parser does not know, a back-reference or a lookahead inside a lookbehind gives no bound (None). Checked
against the engine's partial searches in tests/redact/test_whole.py.
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
from .reach import _ahead

# Placeholders for the `\\p{...}` classes while the standard parser reads the pattern (as alphabet.py does).
_PLACEHOLDER = 0xF0000
# More kinds of path than this: merged into one (the bound is then looser, never wrong).
_MOST_PAIRS = 16
# One more character than the argument needs: a margin costs only a slightly later first safe place.
_MARGIN = 1
_CATEGORY = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


_Unknown = _Unbounded  # the parse-tree walks share one: the same meaning


Pair = tuple[int, frozenset[str]]  # (characters accepted outside unbounded repeats, the repeats' alphabet atoms)


def pairs(pattern: str, flags: int = 0) -> list[Pair] | None:
    """The (w, A) pairs of `pattern` (A as regex atoms, each matching one character), or None if unknown. A
    built-in's are read off once and kept in shapecache.py's file (by pattern and flags): the whole-text pass's
    first call would parse ~15 patterns again."""
    from .shapecache import far_pairs

    stored, got = far_pairs(pattern, flags)
    if stored:
        return None if got is None else list(got)
    return _pairs(pattern, flags)


def _pairs(pattern: str, flags: int) -> list[Pair] | None:
    got = parsed(pattern, flags)
    if got is None:
        return None
    tree, ci, classes = got
    try:
        return _seq(tree, ci, classes)
    except _Unknown:
        return None


def parsed(pattern: str, flags: int = 0) -> tuple[Any, bool, list[str]] | None:
    """The standard parser's tree of `pattern` with each `\\p{...}` class a placeholder character (`classes`
    holds them, in order), and whether it is matched case-insensitively; None if it cannot be read so."""
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
        if t[:2] in ("\\p", "\\P") and len(t) > 2:
            out.append(chr(_PLACEHOLDER + len(classes)))
            classes.append(t)
        elif t[:2] == "\\N":
            return None
        else:
            out.append(t)
        at = m.end()
    out.append(pattern[at:])
    plain = re.sub(r"(?<!\\)\(\?P<\w+>", "(?:", "".join(out))  # `v` is named in several alternatives
    try:
        tree = _p.parse(plain)
    except (re.error, OverflowError, RecursionError):
        return None
    ci = bool(flags & regex.IGNORECASE) or bool(tree.state.flags & re.IGNORECASE)
    return tree, ci, classes


def _merge(ps: list[Pair]) -> list[Pair]:
    if len(ps) <= _MOST_PAIRS:
        return ps
    atoms: frozenset[str] = frozenset().union(*(a for _, a in ps))
    return [(max(w for w, _ in ps), atoms)]


def _seq(sub: Any, ci: bool, classes: list[str]) -> list[Pair]:
    got: list[Pair] = [(0, frozenset())]
    for op, av in sub:
        node = _node(op, av, ci, classes)
        got = _merge(sorted({(w1 + w2, a1 | a2) for w1, a1 in got for w2, a2 in node}, key=_key))
    return got


def _key(p: Pair) -> tuple[int, tuple[str, ...]]:
    return p[0], tuple(sorted(p[1]))


def _node(op: Any, av: Any, ci: bool, classes: list[str]) -> list[Pair]:
    if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY):
        return [(1, frozenset())]
    if op is _c.AT:
        return [(0, frozenset())]
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        direction, body = av
        if direction == 1:  # a lookahead accepts what its body does, and the path reads them again after
            return _seq(body, ci, classes)
        # It reads behind the position, but the lookaheads inside it read forward, at most this far past it.
        ahead = _ahead(body)
        if ahead == float("inf"):
            raise _Unknown
        return [(int(ahead), frozenset())]
    if op is _c.SUBPATTERN:
        _group, add, delete, body = av
        inner = (ci or bool(add & re.IGNORECASE)) and not delete & re.IGNORECASE
        return _seq(body, inner, classes)
    if op is _c.ATOMIC_GROUP:
        return _seq(av, ci, classes)
    if op is _c.BRANCH:
        return _merge(sorted({p for b in av[1] for p in _seq(b, ci, classes)}, key=_key))
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        _lo, hi, body = av
        if hi == _c.MAXREPEAT:
            atoms: set[str] = set()
            _alphabet(body, ci, classes, atoms)
            return [(0, frozenset(atoms))]
        kinds = _seq(body, ci, classes)
        union: frozenset[str] = frozenset().union(*(a for _, a in kinds))
        return [(hi * max(w for w, _ in kinds), union)]
    if op is _c.GROUPREF_EXISTS:
        _group, yes, no = av
        return _merge([*_seq(yes, ci, classes), *(_seq(no, ci, classes) if no is not None else [(0, frozenset())])])
    raise _Unknown  # a back-reference, or anything this does not know


def _char(c: int, classes: list[str]) -> str:
    k = c - _PLACEHOLDER
    if 0 <= k < len(classes):
        return classes[k]
    return f"\\U{c:08x}"


def _alphabet(sub: Any, ci: bool, classes: list[str], atoms: set[str]) -> None:
    """Every character the nodes of `sub` can accept, as atoms (one-character regexes)."""

    def add(atom: str) -> None:
        atoms.add(f"(?i:{atom})" if ci else atom)

    for op, av in sub:
        if op is _c.LITERAL:
            add(f"[{_char(av, classes)}]")
        elif op is _c.NOT_LITERAL:
            add(f"[^{_char(av, classes)}]")
        elif op is _c.ANY:
            atoms.add(r"[\s\S]")
        elif op is _c.IN:
            items = []
            negate = False
            for kind, arg in av:
                if kind is _c.NEGATE:
                    negate = True
                elif kind is _c.LITERAL:
                    items.append(_char(arg, classes))
                elif kind is _c.RANGE:
                    lo, hi = arg
                    if lo >= _PLACEHOLDER or hi >= _PLACEHOLDER:
                        raise _Unknown
                    items.append(f"{_char(lo, classes)}-{_char(hi, classes)}")
                elif kind is _c.CATEGORY and str(arg) in _CATEGORY:
                    items.append(_CATEGORY[str(arg)])
                else:
                    raise _Unknown
            add(f"[{'^' if negate else ''}{''.join(items)}]")
        elif op is _c.CATEGORY:
            if str(av) not in _CATEGORY:
                raise _Unknown
            add(_CATEGORY[str(av)])
        elif op is _c.AT:
            continue
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            direction, body = av
            if direction == 1 or _has_lookahead(body):  # (a lookbehind's lookaheads: read all it may read)
                _alphabet(body, ci, classes, atoms)
        elif op is _c.SUBPATTERN:
            _group, add_f, delete, body = av
            _alphabet(body, (ci or bool(add_f & re.IGNORECASE)) and not delete & re.IGNORECASE, classes, atoms)
        elif op is _c.ATOMIC_GROUP:
            _alphabet(av, ci, classes, atoms)
        elif op is _c.BRANCH:
            for b in av[1]:
                _alphabet(b, ci, classes, atoms)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            _alphabet(av[2], ci, classes, atoms)
        elif op is _c.GROUPREF_EXISTS:
            _group, yes, no = av
            _alphabet(yes, ci, classes, atoms)
            if no is not None:
                _alphabet(no, ci, classes, atoms)
        else:  # a back-reference, or anything this does not know
            raise _Unknown


class Tail:
    """For one pattern: `far(view, q)`, a position no path starting at q or before reads (tries) beyond, or
    None where no such position is known before the end of the view."""

    def __init__(self, ps: list[Pair]) -> None:
        # Bounded kinds of path: a constant; the others: one regex each, `(?:A*+[\s\S]){w+1}` (the possessive
        # repeat stops only at a character outside A, which the next item takes).
        self._fixed = max((w for w, a in ps if not a), default=0) + _MARGIN
        self._ends = tuple(
            regex.compile(f"(?:{_one_of(a)}*+[\\s\\S]){{{w + _MARGIN}}}", regex.V1).match
            for w, a in sorted({p for p in ps if p[1]}, key=_key)
        )

    def far(self, view: str, q: int) -> int | None:
        most = q + self._fixed
        for end in self._ends:
            m = end(view, q)
            if m is None:
                return None
            if m.end() > most:
                most = m.end()
        return most if most <= len(view) else None


def _one_of(atoms: frozenset[str]) -> str:
    """One character of any of the atoms: a single set (`regex`'s V1 union of nested sets) for those matched as
    written, one for those matched case-insensitively (an alternation of atoms cost 10x more)."""
    plain = sorted(a for a in atoms if not a.startswith("(?i:"))
    folded = sorted(a[4:-1] for a in atoms if a.startswith("(?i:"))
    parts = [f"[{''.join(_as_set(a) for a in plain)}]"] if plain else []
    if folded:
        parts.append(f"(?i:[{''.join(_as_set(a) for a in folded)}])")
    return parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"


def _as_set(atom: str) -> str:
    """An atom as a nested set: `[...]` stays, a category (`\\s`) or property (`\\p{L}`) gets brackets."""
    return atom if atom.startswith("[") else f"[{atom}]"


def tail(pattern: str, flags: int = 0) -> Tail | None:
    ps = pairs(pattern, flags)
    return None if ps is None else Tail(ps)
