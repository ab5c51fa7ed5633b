"""A label detector's label gap, read off its pattern: how far after its label word's end a match may start.

Why its own module: the value is a pure function of the built-in patterns and this code, so shapecache.py keeps it
in its data file, keyed by a hash of this file's source (with parsetree.py, reach.py and labels.py); here, and not
in wholedb.py (the hyperscan database's module, edited often), an edit elsewhere does not make the file stale.
wholedb.py uses it (the one pass's label words) and re-exports `label_gap`; fastpath.py reads it once a process.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from . import labels
from .detector import Detector


def label_gap(d: Detector) -> int | None:
    """The most characters a match of label detector `d` can start after the end of the label word that one of
    its positive lookbehinds holds, read off its parse tree: a lookbehind anchored at p >= the start s holds
    the label word, then a part Y up to p, so the word ends at p - |Y| >= s - |Y|, and the gap is the longest Y
    (a suffixed label's suffix counted in it). Every top-level alternative must pass such a lookbehind, but the
    reversed comparison (`near_rest`, the label after the value), whose starts `_opens` finds. None where the
    tree says otherwise or is not read (then the whole `LOOKBEHIND` window is used)."""
    from . import parsetree as _t
    from . import reach as _r

    plain = _r._plain(d.pattern)
    texts = _t.alternatives(d.pattern)
    if plain is None or texts is None:
        return None
    try:
        tree = _t.parser.parse(_UNNAME.sub("(?:", plain))
        marks = _label_marks()
    except (re.error, OverflowError, RecursionError):
        return None
    c = _t.constants
    if len(tree) != 1 or tree[0][0] is not c.BRANCH or len(tree[0][1][1]) != len(texts):
        return None
    most, rest = 0.0, []
    for alt, text in zip(tree[0][1][1], texts, strict=True):
        got = _cover(alt, marks)
        if got is None:
            rest.append(text)
        else:
            most = max(most, got)
    if rest and (d.near_rest is None or "|".join(rest) != d.near_rest[2]):
        return None
    return None if most == float("inf") else int(most) + _r.MARGIN


_UNNAME = re.compile(r"(?<!\\)\(\?P<\w+>")


@lru_cache(maxsize=1)
def _label_marks() -> dict[str, float]:
    """The label groups as the parser reads them (`repr` of the node), each with the most characters its paths
    read after the word itself (a suffixed label's `labels.SUFFIX`)."""
    from . import parsetree as _t
    from . import reach as _r

    suffix = _r._reach(_t.parser.parse(labels.SUFFIX))
    out: dict[str, float] = {}
    for text, after in (
        (f"(?i:{labels.alternation()})", suffix),
        (f"(?i:{labels.alternation(suffixes=False)})", 0.0),
        (f"(?i:{labels.lookbehind_alternation()})", suffix),  # (the same words, as the lookbehinds hold them)
        (f"(?i:{labels.lookbehind_alternation(suffixes=False)})", 0.0),
        ("(?:" + "|".join(labels.CAMEL_WORDS) + ")", 0.0),
    ):
        node = _t.parser.parse(text)
        assert len(node) == 1
        out[repr(node[0])] = after
    return out


def _cover(seq: Any, marks: dict[str, float]) -> float | None:
    """The least, over the positive lookbehinds every path of `seq` passes, of the most characters after the
    label word inside one (`_after`); None if some path passes none."""
    from . import parsetree as _t

    c = _t.constants

    def rule(op: Any, av: Any) -> float | None:
        return _after(av[1], marks) if op is c.ASSERT and av[0] == -1 else None

    def least(_seq: Any, answers: Iterator[tuple[int, float | None]]) -> float | None:
        best: float | None = None
        for _, got in answers:
            if got is not None and (best is None or got < best):
                best = got
        return best

    return _t.fold_groups(seq, rule, least)


def _after(seq: Any, marks: dict[str, float]) -> float | None:
    """The most characters the paths of `seq` read after a label group (its suffix included), or None if some
    path holds none."""
    from . import parsetree as _t
    from . import reach as _r

    def first(sub: Any, answers: Iterator[tuple[int, float | None]]) -> float | None:
        for j, inner in answers:
            if inner is not None:
                rest = _r._reach(sub[j + 1 :]) if j + 1 < len(sub) else 0.0
                return inner + rest
        return None

    return _t.fold_groups(seq, lambda op, av: marks.get(repr((op, av))), first)
