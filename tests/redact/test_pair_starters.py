"""`Starters.bounds` (redaction/starters.py) against the engine: the bound it gives a detector is never after a
position where that detector can start (a complete match, or a path that runs into the end of the view). The
tracker probes a detector only from its bound (tracker.py), so a bound past a real start would hide a value.
The pair table (the character before and the character) and the context detectors' `first` classes are what
is checked here, on views rich in near-values and on arbitrary unicode.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction.detector import Detector, custom_detector
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.starters import BUILTIN_IDS, Starters, starters_for

from .corpus import CUSTOM_DETECTORS, FUZZ_VALUES

CUSTOM = tuple(custom_detector(c) for c in CUSTOM_DETECTORS)


def _fresh(detectors: tuple[Detector, ...]) -> Starters:
    # Built like `starters_for`, but with empty tables, so that each test learns its own pairs.
    return Starters(detectors, [id(d) in BUILTIN_IDS and not d.context for d in detectors])


def _can_start(d: Detector, view: str, q: int) -> bool:
    return d.probe.match(view, q, partial=True) is not None or d.compiled.match(view, q) is not None


def _covered(table: Starters, detectors: tuple[Detector, ...], view: str, seen: int) -> dict[int, int]:
    got = table.bounds(view, seen)
    for q in range(seen, len(view)):
        for i, d in enumerate(detectors):
            if _can_start(d, view, q):
                assert i in got and got[i] <= q, (d.entity, q, got.get(i), view, seen)
    for i, at in got.items():
        assert seen <= at <= len(view), (detectors[i].entity, at, view, seen)
    return got


_NEAR = list("ab@.-:/=(_ 0123456789+AKIAghp_sk-eyJxoxSGMNOfF\n\t\u00a0\u200b\u00b7：＠谢ſKé'") + [
    "-----BEGIN ",
    "PRIVATE KEY-----",
    "sk-ant-",
    "sk_live_",
    "ghp_",
    "github_pat_",
    "glpat-",
    "AKIA",
    "AIza",
    "npm_",
    "pypi-",
    "eyJ",
    "xoxb-",
    "xapp-",
    "SG.",
    "password: ",
    "password=",
    "API_KEY=",
    "secret:",
    "https://",
    "postgres://",
    "user:pw@",
    "fe80::",
    "::ffff:",
    "00:1A:",
    "001a.",
    "4111 ",
    "+1 ",
    "+44 ",
    "(415) ",
    "DE89 ",
    "GB82",
    "536-",
    "192.168.",
    "bc1q",
    "Bearer ",
    "basic ",
    "пароль: ",
    "密码：",
    "githubToken=",
    "aws_secret=",
    "090-",
    "\u0664",
]
_CTX = st.text(st.sampled_from(list("a0:.- 谢ſ@_=\nfFxK+(")), max_size=8)
_NEW = st.lists(
    st.one_of(st.sampled_from(_NEAR), st.sampled_from(FUZZ_VALUES).map(lambda v: v[:12]), st.text(max_size=3)),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_CTX, _NEW, st.text(max_size=3))
def test_bounds_cover_every_start_a_builtin_can_make(ctx: str, new: str, tail: str) -> None:
    # `ctx` was seen on an earlier feed; `new + tail` arrived now (at most 64 characters: the per-character path).
    table = _fresh(BUILTIN)
    view = (ctx + new + tail)[: len(ctx) + 64]
    _covered(table, BUILTIN, view, len(ctx))
    # The same view once the tables have learnt it (cached pairs answer), and from every later `seen`.
    _covered(table, BUILTIN, view, len(ctx))
    for seen in range(len(ctx) + 1, len(view) + 1, 5):
        _covered(table, BUILTIN, view, seen)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=6), st.text(min_size=1, max_size=20))
def test_bounds_cover_every_start_on_arbitrary_unicode(ctx: str, new: str) -> None:
    _covered(starters_for(BUILTIN), BUILTIN, ctx + new, len(ctx))


def test_bounds_cover_every_start_in_and_around_every_value() -> None:
    table = _fresh(BUILTIN)
    for v in FUZZ_VALUES:
        for before in ("", "a", "0", " ", ":", "x:", "1 ", "谢", "ſ", "key="):
            text = (before + v + " ok")[:120]
            for seen in range(0, len(text), 7):
                _covered(table, BUILTIN, text[: seen + 40], seen)


@settings(max_examples=150, deadline=None)
@given(_CTX, _NEW, st.booleans())
def test_custom_detectors_are_bounded_by_seen(ctx: str, new: str, first: bool) -> None:
    # A custom detector may use a positive lookbehind or `\b` (CUSTOM_DETECTORS do): it may start anywhere, so
    # its bound is always `seen`, mixed with the built-ins before or after it. A custom detector that says it
    # is a context detector is not trusted for its `first` class either: only built-ins are.
    extra = (Detector("CTX", r"(?<=key=)[a-z]{3,}", first="[a-z]", context=True),)
    detectors = CUSTOM + BUILTIN + extra if first else BUILTIN + CUSTOM + extra
    table = _fresh(detectors)
    view = (ctx + new)[: len(ctx) + 64]
    seen = len(ctx)
    got = _covered(table, detectors, view, seen)
    for i, d in enumerate(detectors):
        if d in CUSTOM or d in extra:
            assert got[i] == seen, (d.entity, got.get(i), view, seen)
    # The shared table for the same tuple gives the same answer.
    assert starters_for(detectors).bounds(view, seen) == got


@settings(max_examples=150, deadline=None)
@given(_CTX, _NEW, st.integers(0, 10**9))
def test_offset_shifts_every_bound(ctx: str, new: str, k: int) -> None:
    for detectors in (BUILTIN, BUILTIN + CUSTOM):
        table = starters_for(detectors)
        for view in (ctx + new, (ctx + new) * 3):
            plain = table.bounds(view, len(ctx))
            assert table.bounds(view, len(ctx), k) == {i: at + k for i, at in plain.items()}


@settings(max_examples=100, deadline=None)
@given(_CTX, st.lists(st.one_of(st.sampled_from(_NEAR), st.sampled_from(FUZZ_VALUES)), min_size=1, max_size=20))
def test_long_new_text_gets_seen_for_every_starter(ctx: str, pieces: list[str]) -> None:
    new = "".join(pieces)
    while len(new) <= 64:
        new += new + " "
    view = ctx + new
    seen = len(ctx)
    for detectors in (BUILTIN, BUILTIN + CUSTOM):
        table = starters_for(detectors)
        got = table.bounds(view, seen)
        assert got == dict.fromkeys(table.bits(table.mask(view[seen:])), seen)
        # `mask` over a long text is its set of characters: still every detector that can start in it.
        for q in range(seen, len(view), 3):
            for i, d in enumerate(detectors):
                if _can_start(d, view, q):
                    assert got.get(i) == seen, (d.entity, q, view)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([*FUZZ_VALUES, " ", "谢谢", "abc ", "0", ":"]), max_size=60).map("".join), st.data())
def test_mask_of_after_long_bounds_covers_the_mask_of_the_range(view: str, data: st.DataObject) -> None:
    # Settling a long range reuses the mask `bounds` computed for the new text of the same view: it may ask
    # more detectors than the range needs, never fewer.
    table = Starters(BUILTIN, [True] * len(BUILTIN))
    seen = data.draw(st.integers(0, len(view)))
    lo = data.draw(st.integers(0, seen))
    hi = data.draw(st.integers(lo, len(view)))
    table.bounds(view, seen)
    exact = table.mask(view[lo:hi])
    got = table.mask_of(view, lo, hi)
    assert got & exact == exact
    assert table.mask_of(view + "", lo, hi) == got  # the same object: `view + ""` is `view`
    assert Starters(BUILTIN, [True] * len(BUILTIN)).mask_of(view, lo, hi) == exact  # nothing remembered
