"""The common feed's fixed costs of stop 34 (issue 27) against the feed before them and the pure path.

The compiled feed built by default (`fastpath.compiled_feed`, `fixed` on) is claimed to give the same answers and
leave the same state as one built with `fixed_off=True` (the feed as before) and as the pure path: it looks up the
instance dict and `_raw` once a feed, checks a non-ASCII piece for characters to normalize through a memo of
`normalize._SPECIAL`'s answer per character, reads `prefilter.MIN_RANGE` once a feed from the module's dict, and
merges the starters' bounds into the tracker's `_lb` from one read of it. So: the Steps (text, stop flag, events),
`held` and the tracker's state after every feed, then the flush, are compared on the four issue 27 corpora, issue
17's texts, every case of the five suites and Hypothesis texts at random chunkings (with lookaheads, a small
`max_hold`, non-ASCII and characters to normalize), with and without `[fast]`.
"""

from __future__ import annotations

import ast
import inspect
import random
from typing import Any

import pytest
import regex
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, prefilter
from sluicegate.redaction.normalize import _SPECIAL, TABLE
from tests.benchmarks.corpora27 import CORPORA

from . import sameness
from .sameness import Make


def _native() -> Any:
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    return fastpath.native


def _subjects(fast: bool, max_hold: int = 8192) -> dict[str, Make]:
    """ "on" (the default build), "off" (its compiled feed rebuilt with `fixed_off=True`); `same` adds the pure
    path (compared on the steps and the held text: its tracker is not driven by candidates)."""
    return {
        "on": sameness.variant(fast, max_hold),
        "off": sameness.variant(fast, max_hold, feed=(("fixed_off", True),)),
    }


def _state(r: Redactor) -> tuple[Any, ...]:
    """What a later feed reads: the held text, the view, and the tracker's bounds (sorted: their order is never
    read) where the compiled feeds keep them the same way (not the pure path, which has no candidate list)."""
    t = r._tracker
    tracked = None if t is None else (t._origin, sorted(t._lb.items()), t._seen, t._unsure)
    return r._raw, r._view, r._base, r._next_check, r._positions, tracked


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_and_state_on_the_corpora(fast: bool) -> None:
    sameness.on_corpora(_subjects, fast, 34, state=_state)


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_and_state_on_the_suites(fast: bool) -> None:
    sameness.on_suites(_subjects, fast, 17, state=_state)


_PIECES = st.one_of(
    st.sampled_from(
        ['{"name": "', '"token": "', '", ', "password", "api_key = ", "a@b.co", "4111 1111 1111 1111", "10.0.0.1"]
        + ["AKIAQAVSYEEFNPAXX3I4", "-----BEGIN RSA PRIVATE KEY-----\n", "é", "ß", "日本", "\u200b", "\uff14", "\u2013"]
        + ["\u00a0", "\U0001f600", "\u06f4", "Ä", "\ufe6b"]
    ),
    st.text(st.sampled_from(list("aZ0_-.:=\"',( \né\u200b\uff11\u00a0")), max_size=6),
)


@sameness.chunkings(_PIECES, max_examples=150)
def test_the_same_steps_and_state_on_generated_texts(
    text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool
) -> None:
    sameness.on_chunking(_subjects, text, sizes, aheads, max_hold, truncated, state=_state)


def test_special_is_a_one_character_class() -> None:
    # The claim the memo rests on: a piece has a character to normalize where one of its characters is one, so
    # `_SPECIAL.search(piece)` is known from its characters' answers.
    assert regex.fullmatch(r"\[.*\]", _SPECIAL.pattern, regex.S)
    rng = random.Random(5)
    pool = [chr(cp) for cp in TABLE] + ["\u200b", "\u2060", "\ufe0f", "é", "日", "a", " ", "\U0001f600", "\U000e0041"]
    for _ in range(3000):
        piece = "".join(rng.choice(pool) for _ in range(rng.randint(1, 6)))
        by_char = any(_SPECIAL.search(ch) is not None for ch in piece)
        assert (_SPECIAL.search(piece) is not None) == by_char, piece


def test_a_non_ascii_piece_asks_special_once_per_character() -> None:
    # Not vacuous: with the fixed costs off, `special` is asked of every non-ASCII piece; on, of each character
    # once (then remembered), and a character to normalize still sends the piece to the Python path.
    from sluicegate._stream import EMPTY_STEP, Step
    from sluicegate.redaction import redactor, starters
    from sluicegate.redaction.detector import LOOKBEHIND

    asked: list[str] = []

    def special(text: str) -> object:
        asked.append(text)
        return _SPECIAL.search(text)

    args = (Step, EMPTY_STEP, LOOKBEHIND, redactor._EAGER, starters._PER_CHAR, starters._PAIRS_MAX)
    _native().configure(prefilter, special, *args)
    try:
        on, off = _subjects(True)["on"](), _subjects(True)["off"]()
        pieces = ["héllo ", "wörld ", "é ", "\u200bx"]
        got_off = [off.feed(p) for p in pieces]
        assert asked == pieces  # off: each non-ASCII piece
        asked.clear()
        got_on = [on.feed(p) for p in pieces]
        assert asked == ["é", "ö", "\u200b"]  # on: each character once
        assert got_on == got_off and _state(on) == _state(off)
    finally:
        redactor.configure_native()


def test_min_range_is_read_in_every_feed() -> None:
    # `MIN_RANGE` is read once a feed (not once a Feed): a test that changes it between feeds is seen at once.
    old = prefilter.MIN_RANGE
    try:
        for value in (old, 1, 10_000):
            prefilter.MIN_RANGE = value
            text = CORPORA["logs"](3000)
            # (the pure path's steps computed again at each value, not the session's: it may read the setting)
            sameness.same(_subjects(True), sameness.cut(text, [4, 7, 1]), True, state=_state, cached=False)
    finally:
        prefilter.MIN_RANGE = old


def _writes(fn: ast.FunctionDef, names: frozenset[str] = frozenset({"lb", "still", "fresh"})) -> tuple[bool, bool]:
    """Whether `fn` changes the bounds (assigns `self._lb`, or sets or deletes an item of `lb`/`self._lb`/`still`/
    `fresh`, or calls a changing method on one) and whether it assigns `self._seen`."""

    def bounds(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in names) or (
            isinstance(node, ast.Attribute) and node.attr == "_lb"
        )

    lb = seen = False
    for node in ast.walk(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for t in targets:
            for x in [t, *(t.elts if isinstance(t, ast.Tuple) else [])]:
                if isinstance(x, ast.Attribute) and x.attr == "_lb":
                    lb = True
                if isinstance(x, ast.Subscript) and bounds(x.value):
                    lb = True
                if isinstance(x, ast.Attribute) and x.attr == "_seen":
                    seen = True
        changers = {"update", "pop", "popitem", "clear", "setdefault", "__setitem__", "__delitem__"}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and bounds(node.func.value):
            lb = lb or node.func.attr in changers
    return lb, seen


def test_every_python_method_that_changes_the_bounds_writes_seen() -> None:
    # The claim the kept mirror rests on (`LbMirror` in _native.c): the tracker's `_lb` is changed only by its own
    # Python methods, and each that changes it also writes `_seen` (a new int), so the compiled feed reads the dict
    # again whenever `_seen` is not the int it wrote.
    from sluicegate.redaction import tracker

    tree = ast.parse(inspect.getsource(tracker))
    changing = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            lb, seen = _writes(fn)
            if lb and fn.name != "__init__":
                changing.append(fn.name)
                assert seen, f"{cls.name}.{fn.name} changes the bounds without writing _seen"
    assert set(changing) == {"open_from", "_open_compiled"}  # not vacuous: the two that change them
    # and nothing outside tracker.py touches them: settle_short only reads those `bounds()` hands it
    import pathlib

    from sluicegate.redaction import settle

    for fn in (n for n in ast.walk(ast.parse(inspect.getsource(settle))) if isinstance(n, ast.FunctionDef)):
        assert _writes(fn, frozenset({"bounds"})) == (False, False), fn.name

    src = pathlib.Path(tracker.__file__).parent.parent
    for path in src.rglob("*.py"):
        if path.name != "tracker.py":
            assert "._lb" not in path.read_text(encoding="utf-8"), path


class _Boom(Exception):
    pass


def _raising(fns: tuple[Any, ...], after: int) -> tuple[Any, ...]:
    """`fns` (the tracker's anchored matches) that raise `_Boom` on the `after`-th call made through any of them."""
    calls = [0]

    def wrap(fn: Any) -> Any:
        def match(*args: Any) -> Any:
            calls[0] += 1
            if calls[0] == after:
                raise _Boom
            return fn(*args)

        return match

    return tuple(wrap(fn) for fn in fns)


@pytest.mark.parametrize("after", [1, 7, 40, 200])
def test_an_error_in_the_bound_loop_leaves_the_bounds_as_before(after: int) -> None:
    # The mirror is written back also when an engine call raises: the exception reaches the caller, and the
    # tracker's bounds are what the feed before this round left (it wrote them as it went).
    text = CORPORA["code"](3000)
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    got = {}
    for off in (False, True):
        # (the near answers shared by the process would spare the second subject calls the first one made)
        fastpath._per_detector.cache_clear()
        fastpath._near_cache.cache_clear()
        r = Redactor()
        t = r._tracker
        assert t is not None
        t._match = _raising(t._match, after)
        r._quick_native = fastpath.compiled_feed(t, r._max_hold, fixed_off=off)
        with pytest.raises(_Boom):
            for p in pieces:
                r.feed(p)
        got[off] = (_state(r), sorted(t._lb.items()))
    assert got[False] == got[True]
