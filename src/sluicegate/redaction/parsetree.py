"""The standard library's regex parser, read for what a detector's paths can do (reach.py: how far; alphabet.py:
over which characters).

Why: the `regex` package has no width or alphabet query, and its syntax is close enough to the standard one for
the detectors' patterns once property classes and fuzzy-constraint braces are dealt with, which each caller does
its own way with `TOKEN` and `REPEAT`. The parser is not in the typed stubs, hence `Any`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

parser: Any = importlib.import_module("re._parser")
constants: Any = importlib.import_module("re._constants")

# An escape (a `\\p{...}`, `\\P{...}` or `\\N{...}` whole, so an escaped backslash before a `p` is not read as
# one), or a brace group: one that is not a repeat count may be a fuzzy constraint (`{e<=1}`), which reads more
# than the pattern shows.
TOKEN = re.compile(r"\\(?:[pPN]\{[^}]*\}|.)|\{[^}]*\}?", re.S)
REPEAT = re.compile(r"\{[0-9]*(?:,[0-9]*)?\}")


def subpatterns(av: Any) -> Iterator[Any]:
    """The parsed sub-patterns inside a node's argument, however deeply it nests them in tuples and lists."""
    if isinstance(av, parser.SubPattern):
        yield av
    elif isinstance(av, (tuple, list)):
        for x in av:
            yield from subpatterns(x)


def fold_groups(
    seq: Any,
    rule: Callable[[Any, Any], float | None],
    combine: Callable[[Any, Iterator[tuple[int, float | None]]], float | None],
) -> float | None:
    """`combine(seq, answers)` of a parsed sequence, where `answers` yields each node's index and answer, lazily:
    `rule(op, av)` where that is not None, else through the groups: a group's (SUBPATTERN, ATOMIC_GROUP) is
    its body's `combine`, a BRANCH's the most over its alternatives, or None if one of them has none; any
    other node's is None.

    Why: questions such as "over which lookbehinds does every path pass" (wholedb.py's `_cover`) and "how far
    after the first label group" (its `_after`) walk the groups alike and differ only in what a node answers
    and how a sequence's answers make one."""

    def answers(sub: Any) -> Iterator[tuple[int, float | None]]:
        for j, (op, av) in enumerate(sub):
            got = rule(op, av)
            if got is None:
                if op is constants.SUBPATTERN:
                    got = fold(av[-1])
                elif op is constants.ATOMIC_GROUP:
                    got = fold(av)
                elif op is constants.BRANCH:
                    each = [fold(b) for b in av[1]]
                    got = None if any(g is None for g in each) else max(g for g in each if g is not None)
            yield j, got

    def fold(sub: Any) -> float | None:
        return combine(sub, answers(sub))

    return fold(seq)


class _Unbounded(Exception):
    """A pattern holds something a walk over its parse tree cannot bound (the walk then claims nothing)."""


def has_lookahead(sub: Any) -> bool:
    """Whether a parsed sub-pattern holds a lookahead anywhere (a path that may read past where it stands)."""
    for op, av in sub:
        if op in (constants.ASSERT, constants.ASSERT_NOT) and av[0] == 1:
            return True
        for s in subpatterns(av):
            if has_lookahead(s):
                return True
    return False


def alternatives(pattern: str) -> list[str] | None:
    """The top-level alternatives of `pattern` as text (split at each `|` outside groups and classes), or None
    where the text and the parse tree disagree (the parser merged some alternatives, or a global flag group).

    Why: a part of a pattern (the alternatives that start at a quote, say) is checked as a pattern of its own
    (reach.py's `behind_split`, shape.py), which needs its text, and the parse tree keeps none."""
    if re.search(r"\(\?[a-zA-Z]+\)", pattern):
        return None
    out: list[str] = []
    depth, at, j, n = 0, 0, 0, len(pattern)
    while j < n:
        ch = pattern[j]
        if ch == "\\":
            m = TOKEN.match(pattern, j)
            j = m.end() if m else j + 2
            continue
        if ch == "[":  # a class: `]` first (after an optional `^`) is a member
            j += 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            j += 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[at:j])
            at = j + 1
        j += 1
    out.append(pattern[at:])
    return out if depth == 0 else None
