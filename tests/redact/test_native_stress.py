"""Stress tests for the branches of the compiled feed (redaction/_native.c) that the random differential test
(test_native.py) reaches rarely, each compared with a `_NATIVE = False` twin feed by feed:
- more detectors than a 64-bit mask holds (the compiled feed must hand them all to Python), and exactly 64 with
  a trusted built-in on the top bit;
- the candidate list (at most 256 starts kept) overflowing while a PEM block holds a long run of candidates;
- pieces that alternate between the compiled path and the Python one (normalized non-ASCII, str subclasses,
  pieces past `max_hold`), so the candidate list must notice that Python saw text it did not;
- feeds after `flush()` and after a stop; tiny `max_hold`;
- a subclass that overrides a method the compiled feed would otherwise do itself;
- reference leaks: the refcounts of shared objects and the traced memory stay flat over many streams.
"""

from __future__ import annotations

import functools
import gc
import sys
import tracemalloc
import weakref
from collections.abc import Callable
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction.registry import BUILTIN

from .corpus import ENGLISH, FUZZ_VALUES, PEM, PERSIAN
from .corpus import feed_steps as _steps
from .test_incremental import _BITS, _PIECE


class _NoNative(Redactor):
    _NATIVE = False


class _NativePure(Redactor):
    """Without the prefilter (an install without the `[fast]` extra): long new text stays on the compiled path."""

    _COMPILED = False


class _NoNativePure(Redactor):
    _NATIVE = False
    _COMPILED = False


_PAIRS: tuple[tuple[type[Redactor], type[Redactor]], ...] = ((Redactor, _NoNative), (_NativePure, _NoNativePure))


_FACTORIES: dict[type[Redactor], Callable[[], Redactor]] = {}


def _maker(cls: type[Redactor], opts: dict[str, object]) -> Callable[[], Redactor]:
    """Fresh Redactors of `cls`: from one factory per class without options (the same output as `cls()`,
    test_factory.py, without compiling the detectors for each of the thousands of cuts), else `cls(**opts)`."""
    if opts or cls.__init__ is not Redactor.__init__:
        return functools.partial(cls, **opts)
    if cls not in _FACTORIES:
        _FACTORIES[cls] = cls.factory()
    return _FACTORIES[cls]


def _same(
    pieces: list[str], make: type[Redactor] | None = None, twin: type[Redactor] | None = None, **opts: object
) -> None:
    """Feed by feed equal to the Python twin: with and without the prefilter unless a pair is given."""
    for a_cls, b_cls in _PAIRS if make is None or twin is None else ((make, twin),):
        got = _steps(_maker(a_cls, opts), pieces)
        want = _steps(_maker(b_cls, opts), pieces)
        for k, (a, b) in enumerate(zip(got, want, strict=True)):
            assert a == b, (a_cls.__name__, k, pieces[max(0, k - 3) : k + 1], a, b)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _compiled_ran(r: Redactor) -> bool:
    # The compiled feed (a `_native.Feed`, fastpath.py) says whether its open point ran, not handed to Python.
    quick = r._quick_native
    return quick is not None and bool(quick.__self__.ran)


def _customs(n: int) -> list[tuple[str, str]]:
    return [(f"C{k}", rf"\bZ{k}Q[0-9]{{3}}\b") for k in range(n)]


def _many_text(n: int) -> str:
    return " ".join(f"Z{k}Q123 a@b.cc 4111 1111 1111 1111 192.168.1.{k} Z{k}Q1" for k in range(0, n, 3)) + " end"


@pytest.mark.parametrize("extra", [62 - len(BUILTIN), 63 - len(BUILTIN), 64 - len(BUILTIN), 65 - len(BUILTIN), 40])
def test_more_detectors_than_mask_bits(extra: int) -> None:
    custom = _customs(extra)
    text = _many_text(extra)
    r = Redactor(custom=custom)
    for p in text[:200]:
        r.feed(p)
    assert len(r._engine.detectors) == len(BUILTIN) + extra
    # Up to 64 detectors the compiled open point runs; past that it hands every check to Python.
    assert _compiled_ran(r) == (len(BUILTIN) + extra <= 64)
    for size in (1, 3, 8):
        _same(_chunks(text, size), custom=custom)


@pytest.mark.parametrize("total", [63, 64, 65])
def test_a_trusted_builtin_on_the_top_mask_bit(total: int) -> None:
    # Built-in Detector objects passed as custom ones stay trusted (pair table, candidates, quads): put a card,
    # an address and a phone on bits 61..63 (or past them), after custom detectors that are always asked.
    extras = [d for d in BUILTIN if d.entity in ("CREDIT_CARD", "EMAIL_ADDRESS", "PHONE_NUMBER")]
    custom: list[object] = [*_customs(total - 1 - len(extras)), *extras]
    opts: dict[str, object] = {"entities": ["IP_ADDRESS"], "custom": custom}
    text = " ".join(f"pay 4111 1111 1111 1111 or +1 415 555 2671, mail a{k}@b.cc, Z{k}Q123 1.2.3.{k}" for k in range(6))
    r = Redactor(**opts)  # type: ignore[arg-type]
    for p in text[:120]:
        r.feed(p)
    assert len(r._engine.detectors) == total
    assert _compiled_ran(r) == (total <= 64)
    for size in (1, 2, 5):
        _same(_chunks(text, size), **opts)


def _candidates(text: str, lo: int, hi: int) -> int:
    """How many positions of text[lo:hi] some trusted built-in may start at after the character before."""
    table = Redactor()._engine.starters
    assert table is not None
    return sum(1 for j in range(max(lo, 1), hi) if table._pair(text[j - 1], text[j], table.mask(text[j])) != 0)


_HEAD = "hi 4111 1111 1111 1111 and -----BEGIN RSA PRIVATE KEY-----\n"
_TAIL = "\n-----END RSA PRIVATE KEY----- then a@b.cc 4111 1111 1111 1111 --- -:-: ok"
_DENSE = ["-", "-:", "-(1", "-a:", "-1:", "-::"]  # a trusted built-in may start at nearly every character


@pytest.mark.parametrize("unit", _DENSE)
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_candidate_list_grows_inside_a_held_block(unit: str, size: int) -> None:
    # A PEM block holds everything after its opener; a run where almost every character may start a built-in
    # grows the compiled feed's candidate list (past several reallocations) while it checks on every piece.
    body = unit * (700 // len(unit))
    text = _HEAD + body + _TAIL
    start = text.index("-----BEGIN")
    assert _candidates(text, start, start + 330) > 256
    _same(_chunks(text, size))
    # The same runs outside a block: candidates are released (and dropped) as they settle.
    _same(_chunks(body[:400] + " " + FUZZ_VALUES[0] + " " + body[:300], size))


@pytest.mark.parametrize("unit", ["-", "-(1", "-::"])
@pytest.mark.parametrize("size", [1, 9, 100])
def test_candidate_list_overflows_inside_a_long_held_block(unit: str, size: int) -> None:
    # Past its cap (CANDS_MAX in _native.c, 8192) the list restarts after the position it could not keep, and a
    # detector whose bound is before that is searched instead: 12,000 candidates held in one block. With the
    # prefilter, a check of 512 new characters or more goes to Python (and the list restarts there), so the cap
    # is reached without it (the default install); both are compared.
    body = unit * (12_000 // len(unit))
    text = _HEAD + body + _TAIL + " " + body[:200] + " a@b.cc"
    start = text.index("-----BEGIN")
    assert _candidates(text, start, start + len(body)) > 9_000
    custom = [("WORD_CODE", r"\bQX[0-9]{3}\b")]
    _same(_chunks(text, size), max_hold=40_000)
    _same(_chunks(text, size), max_hold=40_000, custom=custom)


@pytest.mark.parametrize("size", [1, 4])
def test_candidate_list_overflows_with_competing_open_starts(size: int) -> None:
    # Several detectors open at once inside a long URL credential (held up to its '@'), their bounds on either
    # side of where the list restarted after overflowing.
    text = "x postgres://u:" + "-:1 2 ::" * 40 + "@db ok; then ::ffff:1.2.3.4 and 4111 1111 1111 1111."
    _same(_chunks(text, size))
    _same(_chunks(text, size), max_hold=300)


_BLOCKS = [
    ("-----BEGIN RSA PRIVATE KEY-----\n", "-----END RSA PRIVATE KEY-----"),
    ("-----BEGIN PRIVATE KEY-----", "-----end private key-----"),
    ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n", "---- END SSH2 ENCRYPTED PRIVATE KEY ----"),
    ("PuTTY-User-Key-File-2: ssh-rsa\n", "Private-MAC: 0a9f"),
]


@pytest.mark.parametrize(("opener", "end"), _BLOCKS)
def test_a_held_block_ends_at_every_cut(opener: str, end: str) -> None:
    # A held block is not re-matched while no trigger character ('-' or 'P') has come within k characters
    # (Detector.steady). An end line whose last trigger came just before a check, completed by text without one
    # (`-----end` then a newline), must still be seen at the next check: every cut, next pieces of 1-3 chars.
    bodies = ("AbCd" * 30, "x" * 17 + "-" + "y" * 20, "P" + "q" * 15 + "Pr", "a\n" * 40 + "----" + "b" * 16)
    tails = (
        end + " after a@b.cc",
        end + "\nafter a@b.cc ok",
        end[:8] + "\nnext line",
        end[:-3] + " x\nmore",
        "---END later " + end + " z",
    )
    for body in bodies:
        for tail in tails:
            text = "pre " + opener + body + tail
            for cut in range(len(text) - len(tail) - 18, len(text)):
                for k in (1, 2, 3):
                    _same([text[:cut], text[cut : cut + k], text[cut + k :]])
            _same(list(text))


class _Str(str):
    """A str subclass: the compiled feed declines it, so the Python path sees this piece."""


_NORMALIZING = ["\u00a0", "\u200b", "\u2009", "\uff10", "\uff20", "\u06f1", "\u2011", "\u00ad", "\ufe52"]
_PLAIN_NON_ASCII = ["é", "谢", "ſ", "K", "\u00b7", "\U0001f600", "：", "ی"]
_MIXED = st.one_of(
    st.sampled_from(_BITS),
    st.sampled_from(FUZZ_VALUES).map(lambda v: v[:10]),
    st.sampled_from(_NORMALIZING),
    st.sampled_from(_PLAIN_NON_ASCII),
    st.text(max_size=3),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_MIXED, st.booleans()), max_size=60), st.sampled_from([8192, 40, 7]))
def test_compiled_and_python_pieces_interleave(pieces: list[tuple[str, bool]], max_hold: int) -> None:
    # Normalizing pieces switch the view map on (Python path) until it is released; str subclasses and pieces
    # past max_hold go to Python too; the rest are compiled. Every switch must leave the same state.
    plain = [p for p, _ in pieces]
    mixed = [_Str(p) if sub else p for p, sub in pieces]
    _same(plain, max_hold=max_hold)
    _same(mixed, max_hold=max_hold)


@pytest.mark.parametrize("size", [1, 2, 5])
def test_alternating_ascii_and_normalizing_pieces_on_values(size: int) -> None:
    parts = []
    for k, v in enumerate(FUZZ_VALUES):
        sep = _NORMALIZING[k % len(_NORMALIZING)]
        parts.append(f"{ENGLISH[k % 50 : k % 50 + 20]}{sep}{v}{sep if k % 3 else ' '}{PERSIAN[k % 40 : k % 40 + 8]} ")
    pieces = []
    for k, chunk in enumerate(_chunks("".join(parts), size)):
        pieces.append(chunk)
        if k % 7 == 3:
            pieces.append(_NORMALIZING[k % len(_NORMALIZING)])
    _same(pieces)
    _same(pieces, max_hold=64)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECE, max_size=30).map("".join), st.data(), st.integers(1, 12))
def test_tiny_max_hold(text: str, data: st.DataObject, max_hold: int) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=20)))
    pieces = [text[a:b] for a, b in pairwise([0, *cuts, len(text)])]
    _same(pieces, max_hold=max_hold)
    _same(list(text), max_hold=max_hold)


def _after_end(make: type[Redactor], pieces: list[str], truncated: bool) -> list[tuple[str, bool, tuple, int]]:
    r = make(max_hold=60)
    out = []
    for k, p in enumerate(pieces):
        s = r.feed(p)
        out.append((s.text, s.stopped, tuple(s.events), r.held))
        if k == len(pieces) // 2:
            s = r.flush(truncated=truncated)
            out.append((s.text, s.stopped, tuple(s.events), r.held))
    return out


@pytest.mark.parametrize("truncated", [False, True])
@pytest.mark.parametrize("text", [ENGLISH, "mail a@b.cc, key " + PEM, "ghp_" + "a1" * 40 + " ok " + ENGLISH])
def test_feeds_after_flush_and_after_a_stop(text: str, truncated: bool) -> None:
    pieces = _chunks(text, 3)
    for make, twin in _PAIRS:
        assert _after_end(make, pieces, truncated) == _after_end(twin, pieces, truncated)


class _Upper(Redactor):
    """Overrides `_render`, which the compiled feed's no-findings release does itself."""

    def _render(self, cut: int, findings: list) -> str:  # type: ignore[type-arg]
        return super()._render(cut, findings).upper()


class _UpperNoNative(_Upper):
    _NATIVE = False


def test_a_subclass_overriding_a_method_the_compiled_feed_inlines() -> None:
    text = "hello world, mail a@b.cc and pay 4111 1111 1111 1111 ok " * 3
    for size in (1, 4):
        _same(_chunks(text, size), make=_Upper, twin=_UpperNoNative)
    assert "HELLO WORLD" in "".join(s[0] for s in _steps(_Upper, _chunks(text, 1)))
    # Such a subclass takes the Python path; one that only sets the class switches keeps the compiled one.
    assert _Upper()._quick_native is None
    assert _NativePure()._quick_native is not None


_TEXT = "\n".join(ENGLISH[:60] + " " + v + " ok" for v in FUZZ_VALUES[:40])
_PIECES = _chunks(_TEXT, 3)


def _streams(n: int, pieces: list[str] = _PIECES) -> None:
    for _ in range(n):
        r = Redactor(custom=[("ORDER_ID", r"(?<=order=)[0-9]{4,}")])
        for p in pieces:
            r.feed(p)
        r.flush()


def test_no_reference_leaks_over_many_feeds() -> None:
    # Every object the compiled feed passes to or gets from Python (None/True as arguments, small ints as
    # detector indexes and bounds, the piece itself) keeps its refcount; a leaked match object or view would
    # also show as traced memory that grows with the number of streams.
    shared: dict[str, object] = {"None": None, "True": True, "False": False}
    shared.update({f"int{i}": i for i in (0, 1, 2, 5, 19, 20, 28, 30, 63, 64, 100, 255)})
    piece = _PIECES[7]
    _streams(3)
    # (each stream's custom detector is a new selection: fastpath's per-selection cache, bounded, holds its
    # tuples of None; emptied at both counts so that only what the feeds themselves keep is compared)
    fastpath._per_detector.cache_clear()
    gc.collect()
    before = {k: sys.getrefcount(v) for k, v in shared.items()}
    piece_before = sys.getrefcount(piece)
    _streams(10)
    fastpath._per_detector.cache_clear()
    gc.collect()
    after = {k: sys.getrefcount(v) for k, v in shared.items()}
    assert after == before
    assert sys.getrefcount(piece) == piece_before
    tracemalloc.start()
    try:
        _streams(3)
        fastpath._per_detector.cache_clear()
        gc.collect()
        low = tracemalloc.get_traced_memory()[0]
        _streams(20)
        fastpath._per_detector.cache_clear()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - low
    finally:
        tracemalloc.stop()
    assert grown < 16_384, grown  # 20 streams of ~1,000 feeds: a leak per feed would be megabytes


def test_the_redactor_and_its_tracker_are_freed() -> None:
    r = Redactor()
    for p in _PIECES:
        r.feed(p)
    assert _compiled_ran(r)
    refs = (weakref.ref(r), weakref.ref(r._tracker))
    del r
    assert [w() for w in refs] == [None, None]  # freed by refcount alone: nothing holds a stray reference
