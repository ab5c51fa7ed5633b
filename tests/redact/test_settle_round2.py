"""The settling feed's second round (stop 34, issue 27) against the lean release of stop 33 and the pure path.

Two changes to `Redactor._release_step`'s lean release, each claimed to give the same answers:
- `Redactor._LAZY_CHOOSE`: among several matches, `Engine._choose_lazy` (validators and `locate` asked only where
  the choice can depend on them) instead of `Engine._choose`;
- `Redactor._REUSE_MATCH`: the compiled feed asks each detector's `match`/`search` through a `_native.Keeper`,
  and a settle takes the complete match the check has just found (`settle._reused`) instead of searching again.

So: the Steps (text, stop flag, events) and `held` after every feed, then the flush, are the same with both off,
with each one off, and on the pure path, on the four issue 27 corpora, issue 17's texts, every case of the five
suites and Hypothesis texts at random chunkings (lookaheads, a small `max_hold`), with and without `[fast]`; every
lazy choice the streams make is `_choose`'s; every match `_reused` accepts is the search it stands in for; and the
`regex` package's fact it rests on (a `partial=True` call's complete answer is the plain call's) holds at every
position the detectors match in those texts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction import settle as settle_module
from sluicegate.redaction.detector import Detector
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.settle import Engine
from tests.benchmarks.corpora27 import CORPORA

from . import sameness
from .sameness import Make, corpus_texts, suite_texts
from .test_feed_lean import _PIECES

_SWITCHES = ("_LAZY_CHOOSE", "_REUSE_MATCH", "_C_RELEASE")


def _native() -> Any:
    if fastpath.native is None:
        pytest.fail("the compiled feed is not built: python setup.py build_ext --inplace")
    return fastpath.native


def _subjects(fast: bool, max_hold: int = 8192) -> dict[str, Make]:
    """ "on" (the default build), "off" (both switches off: stop 33's lean release) and each switch alone off;
    `same` adds the pure path (no compiled feed)."""
    _native()
    offs = [("on", ()), ("off", _SWITCHES), *((f"no{s}", (s,)) for s in _SWITCHES)]
    return {name: sameness.variant(fast, max_hold, tuple((s, False) for s in off)) for name, off in offs}


def test_the_switches_are_on_and_the_keepers_are_handed_to_the_feed() -> None:
    # Not vacuous: the default build takes both parts (the Keepers are this stream's own, one pair per detector).
    _native()
    assert Redactor._LAZY_CHOOSE and Redactor._REUSE_MATCH
    a, b = Redactor(), Redactor()
    assert a._kept is not None and b._kept is not None and a._tracker is not None
    assert len(a._kept) == len(a._tracker._detectors)
    assert all(type(k).__name__ == "Keeper" for pair in a._kept for k in pair)
    assert a._kept[0][0] is not b._kept[0][0]

    class Off(Redactor):
        _REUSE_MATCH = False

    class Pure(Redactor):
        _NATIVE = False

    assert Off()._kept is None and Pure()._kept is None


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_corpora(fast: bool) -> None:
    sameness.on_corpora(_subjects, fast, 34)


@pytest.mark.parametrize("fast", [True, False])
def test_the_same_steps_on_the_suites(fast: bool) -> None:
    sameness.on_suites(_subjects, fast, 340)


@sameness.chunkings(_PIECES, max_examples=150)
def test_the_same_steps_on_generated_texts(
    text: str, sizes: list[int], aheads: list[int], max_hold: int, truncated: bool
) -> None:
    sameness.on_chunking(_subjects, text, sizes, aheads, max_hold, truncated)


class _PythonRelease(Redactor):
    """The round with its Python parts only: `_native.release_one` (which does the commonest case itself, tested in
    lockstep below) off, so that every lean release goes through `settle_short`."""

    _C_RELEASE = False


def _stream_all(texts: list[str], size: int = 4) -> None:
    for text in texts:
        r = _PythonRelease()
        for i in range(0, len(text), size):
            r.feed(text[i : i + size])
        r.flush()


def test_every_lazy_choice_is_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not vacuous: the streams choose among several matches (a token and its label, a card and the SSN shape in
    # its digits, two windows of one run), and `keep`/`locate` are asked fewer times than `_choose` asks them.
    _native()
    lazy = Engine._choose_lazy
    asked = {"lazy": 0, "eager": 0}
    n = 0

    def checked(self: Engine, view: str, point: int, final: bool, keep: Any, per: Any) -> Any:
        nonlocal n
        n += 1

        def counting(which: str) -> Callable[[Any, str], bool]:
            def k(d: Any, value: str) -> bool:
                asked[which] += 1
                return bool(keep(d, value))

            return k

        got = lazy(self, view, point, final, counting("lazy"), per)
        want = self._choose(view, point, final, counting("eager"), per)
        assert got == want, (view, point)
        return got

    monkeypatch.setattr(Engine, "_choose_lazy", checked)
    _stream_all(corpus_texts() + [make(30000) for make in CORPORA.values()])
    _stream_all(suite_texts(), 3)
    assert n > 100 and asked["lazy"] < asked["eager"]


def test_every_reused_match_is_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not vacuous: most lean settles take a kept match, and every one is compared with the search it replaces
    # (span, the value group's span, pattern and string); some kept matches are refused (stale: another view).
    _native()
    reused = settle_module._reused
    took = refused = 0

    def checked(m: Any, view: str, pattern: Any, at: int) -> Any:
        nonlocal took, refused
        got = reused(m, view, pattern, at)
        if got is None:
            refused += m is not None
            return None
        took += 1
        want = pattern.search(view, at)
        assert want is not None and got.span() == want.span() and got.re is want.re and got.string is want.string
        assert got.regs == want.regs and got.groupdict() == want.groupdict()
        return got

    monkeypatch.setattr(settle_module, "_reused", checked)
    _stream_all(corpus_texts() + [make(30000) for make in CORPORA.values()])
    _stream_all(suite_texts(), 3)
    assert took > 300


def _positions(text: str, detector: Any) -> list[int]:
    """Where `detector` matches in `text`, and a few positions before and in each match."""
    out: set[int] = set()
    for m in detector.compiled.finditer(text):
        out.update({max(0, m.start() - 3), m.start(), (m.start() + m.end()) // 2})
    return sorted(out)


def test_a_partial_calls_complete_answer_is_the_plain_calls() -> None:
    # The fact `_reused` rests on (the regex package's `do_match`: a plain match first, the partial one only where
    # that fails), at every start and a few positions around each match of every built-in in the corpora and the
    # suites' texts, with the text cut at several ends (so that some matches run into the end). Not vacuous: most
    # partial answers there are complete, some partial.
    complete = partial = 0
    texts = corpus_texts() + suite_texts()
    for text in texts:
        for d in BUILTIN:
            for v in _positions(text, d):
                for end in {len(text), min(len(text), v + 12), min(len(text), v + 40)}:
                    view = text[:end]
                    for call in (d.compiled.match, d.compiled.search):
                        got = call(view, v, None, False, True)
                        if got is None or got.partial:
                            partial += got is not None
                            continue
                        complete += 1
                        want = call(view, v)
                        assert want is not None and got.regs == want.regs, (d.entity, view, v)
    assert complete > 1000 and partial > 100


def test_the_keeper_calls_through_and_keeps_the_last_answer() -> None:
    native = _native()
    pattern = regex.compile(r"b+")
    k = native.Keeper(pattern.search)
    assert k.last is None and k.fn == pattern.search
    m = k("abbc", 0, None, False, True)
    assert m is not None and m.span() == (1, 3) and k.last is m
    assert k("xyz") is None and k.last is m  # None is not kept: the last match stays
    m2 = k(string="xb")  # keywords are passed on
    assert m2 is not None and m2.span() == (1, 2) and k.last is m2
    with pytest.raises(TypeError):
        k(1)
    assert k.last is m2
    k.last = None
    assert k.last is None
    with pytest.raises(TypeError):
        native.Keeper(3)
    short = native.Keeper(pattern.search, 3)  # kept only on a view of at most 3 characters
    assert short("xbbbb") is not None and short.last is None
    m3 = short("xb")
    assert m3 is not None and short.last is m3
    assert short("abbbbbbb") is not None and short.last is m3
    assert all(
        k.last is None or len(k.last.string) <= fastpath.KEEP_LIMIT for pair in Redactor()._kept or () for k in pair
    )


def test_reused_refuses_what_is_not_the_search() -> None:
    pattern = regex.compile(r"(?P<v>[0-9]+)\.")
    other = regex.compile(r"(?P<v>[0-9]+)[.]")  # (the same text would be the cached pattern itself)
    view = "ab 12. 34."
    m = pattern.search(view, 0)
    assert m is not None and m.start() == 3
    reused = settle_module._reused
    assert reused(m, view, pattern, 0) is m and reused(m, view, pattern, 3) is m
    assert reused(m, view, pattern, 4) is None  # past its start: the search from there finds 34.
    assert reused(m, "".join(["ab 12. ", "34."]), pattern, 0) is None  # the same text, another string object
    assert reused(m, view, other, 0) is None
    a = pattern.match(view, 3)
    assert reused(a, view, pattern, 3) is a and reused(a, view, pattern, 2) is None  # a match: only at its pos
    assert reused(pattern.search(view, 0, 9), view, pattern, 0) is None  # to another end
    p = pattern.match("ab 12", 3, None, False, True)
    assert p is not None and p.partial and reused(p, "ab 12", pattern, 3) is None
    assert reused(None, view, pattern, 0) is None


def _windows(run: str) -> list[tuple[int, int]]:
    """A `locate` with adjacent and overlapping-looking windows: each maximal run of digits, split in threes."""
    out = []
    for m in regex.finditer(r"[0-9]+", run):
        out += [(a, min(a + 3, m.end())) for a in range(m.start(), m.end(), 3)]
    return out


_SYNTHETIC = (
    Detector("TRIPLE", r"[0-9]{3}"),  # adjacent matches: 123456 -> 123, 456
    Detector("RUN", r"[0-9a-c][0-9a-c ]{2,12}[0-9]", locate=_windows),  # windows inside a run, adjacent too
    Detector("VALUE", r"[=:] ?(?P<v>[0-9a-c]{2,})"),  # a value group after its operator
    Detector("WORD", r"[a-c0-9]{2,}"),
)


@settings(max_examples=400, deadline=None)
@given(
    st.text(st.sampled_from(list("0123456789abc =:x")), min_size=1, max_size=40),
    st.integers(0, 2**16),
    st.booleans(),
    st.integers(0, 40),
)
def test_the_lazy_choice_is_chooses_on_generated_matches(text: str, salt: int, final: bool, cut: int) -> None:
    # A pure `keep` that drops about a third of the values (by a hash of the value and the salt), over matches of
    # four detectors that produce adjacent, nested and equal spans, with and without `locate`; the point anywhere.
    # Then also the number of `keep` calls: never more than `_choose`'s.
    engine = Engine(_SYNTHETIC, fast=False)
    point = min(len(text), cut)
    per = [(d, [m for m in d.compiled.finditer(text) if m.start() < point]) for d in _SYNTHETIC]
    per = [(d, found) for d, found in per if found]
    calls = {"lazy": 0, "eager": 0}

    def keep(which: str) -> Callable[[Detector, str], bool]:
        def k(d: Detector, value: str) -> bool:
            calls[which] += 1
            return hash((value, d.entity, salt)) % 3 != 0

        return k

    got = engine._choose_lazy(text, point, final, keep("lazy"), per)
    want = engine._choose(text, point, final, keep("eager"), per)
    assert got == want
    assert calls["lazy"] <= calls["eager"]


def test_every_lean_settle_is_the_same_without_the_round(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each `settle_short` the default streams make (lazy choice and kept matches: the one-match paths of a windowed
    # detector included), against the same call with both off and against `Engine.settle`. Not vacuous: many
    # calls, windowed detectors among them.
    _native()
    short = Engine.settle_short
    n = windowed = 0

    def checked(self: Engine, view: str, pos: int, point: int, hint: int, keep: Any, *rest: Any) -> Any:
        nonlocal n, windowed
        got = short(self, view, pos, point, hint, keep, *rest)
        assert rest[2:] and rest[2] is True and rest[3] is not None  # (lazy, kept): the round is on
        want = short(self, view, pos, point, hint, keep, rest[0], rest[1], False, None)
        assert got == want, (view, pos, point)
        if got is not None:
            n += 1
            windowed += any(d.locate is not None for d in self._pick(hint))
            assert got == self.settle(view, pos, point, final=False, keep=keep, hint=hint)
        return got

    monkeypatch.setattr(Engine, "settle_short", checked)
    _stream_all(corpus_texts() + [make(30000) for make in CORPORA.values()])
    _stream_all(suite_texts(), 3)
    assert n > 500 and windowed > 100


_QUADS = st.one_of(
    st.lists(st.integers(0, 300).map(str), min_size=4, max_size=4).map(".".join),
    st.lists(
        st.sampled_from(["0", "00", "01", "255", "256", "99", "1", "249", "1\n", "٣", " 1", "+1"]),
        min_size=3,
        max_size=5,
    ).map(".".join),
    st.text(st.sampled_from(list("0123456789.")), max_size=16),
)


@settings(max_examples=2000, deadline=None)
@given(_QUADS)
def test_the_dotted_quad_match_is_the_loop(value: str) -> None:
    from sluicegate.redaction import validators

    assert validators.FAST
    assert validators._dotted_quad(value) == validators._dotted_quad_parts(value)


def _state(r: Redactor) -> tuple[Any, ...]:
    t = r._tracker
    assert t is not None
    return (r._raw, r._view, r._base, r._next_check, r._positions, dict(r._counts), t._origin, dict(t._lb), t._seen)


@pytest.mark.parametrize("fast", [True, False])
def test_the_compiled_release_leaves_the_state_the_python_one_does(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # `_native.release_one` against the Python lean release, in lockstep: the Step and every state field the release
    # reads or writes (held and view text, base, next check, counts, the tracker's origin and bounds) after every
    # feed. Not vacuous: the compiled release answers on every corpus with findings, and declines too.
    native = _native()
    answered = declined = 0
    release_one = native.release_one

    def counted(*args: Any) -> Any:
        nonlocal answered, declined
        got = release_one(*args)
        answered += got is not None
        declined += got is None
        return got

    monkeypatch.setattr(native, "release_one", counted)
    on = type("On", (Redactor,), {"_COMPILED": fast})
    off = type("Off", (Redactor,), {"_COMPILED": fast, "_C_RELEASE": False})
    for text in corpus_texts() + suite_texts():
        a, b = on(), off()
        for i in range(0, len(text), 4):
            sa, sb = a.feed(text[i : i + 4]), b.feed(text[i : i + 4])
            assert sa == sb and _state(a) == _state(b), (text, i)
        assert a.flush() == b.flush()
    assert answered > 1000 and declined > 10


def test_an_overridden_keep_is_asked_of_every_match_as_choose_does() -> None:
    """A subclass's `_keep` (it may count or log what it is asked) is asked what `_choose` asks it, in that
    order: the lazy choice, Python's or `_native.release_one`'s, asks only of the winner, so it is not taken."""

    def recording(lazy: bool) -> list[tuple[str, str]]:
        asked: list[tuple[str, str]] = []

        class Asked(Redactor):
            _LAZY_CHOOSE = lazy

            def _keep(self, detector: Detector, value: str) -> bool:
                asked.append((detector.entity, value))
                return super()._keep(detector, value)

        for text in corpus_texts():
            r = Asked()
            for i in range(0, len(text), 4):
                r.feed(text[i : i + 4])
            r.flush()
        return asked

    got = recording(True)
    assert got and got == recording(False)
