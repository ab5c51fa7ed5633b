"""Issue 27, stop 35: the one pass of `redact(text)` (whole.py) with fewer engine calls, against the reference.

Two switches, each compared on against off against the stream (`feed(text)` + `flush()`; and the pure path:
`_WHOLE = False`, and `_COMPILED = False, _NATIVE = False`), byte for byte with the counts:
- `whole.STDLIB`: a built-in detector whose pattern (or, for an alternation, its first alternative) the stdlib
  `re` engine reads as the `regex` package does is asked with `re` at its candidates (`whole._quick`); checked
  here also engine against engine at every position of generated texts and of the corpora;
- `whole.QUIET_FARS`: `certified` first tries its places with the trigger reach of the detectors wholedb.py's
  pass found no trigger of, in place of their `far`;
- `wholedb.NATIVE_MERGE`: candidates merged by the compiled `_wholec.merge` in place of `prefilter._merge`,
  and `certified`'s runs of matches by `_wholec.runs` (both also compared with the Python forms on Hypothesis
  lists of pairs);
- `wholedb.NATIVE_COLLECT`: the hyperscan hits kept by the compiled `_wholec.Collector` in place of a Python
  handler (also the candidates compared, on the corpora and Hypothesis texts, and the type's refusals);
- `whole.NATIVE_MATCHES`: `prefilter.matches_in`'s loop in C (`_wholec.matches_in`; also compared with it
  detector by detector on Hypothesis texts and spans, and on the corpora);
- `whole.LEAN_LOCATE`: a card's windows by `windows.card_windows_lean` (also compared with `card_windows` on
  Hypothesis runs);
- `whole.BY_ID`, `wholedb.BY_ID`: the plan of `certified`, `_quick`'s patterns and wholedb's databases remembered
  by the identity of the detector selection (or detector) as well as by their caches' keys.
On the four corpora of tests/benchmarks/corpora27.py, issue 17's texts, every case of the five suites strung
together, a view that drops characters, options and subclasses (test_whole_lean.py's helpers), and Hypothesis
texts.
"""

from __future__ import annotations

import contextlib
import os
from array import array
from unittest import mock

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Hash, Redactor, fastpath, prefilter, whole, wholedb, windows
from sluicegate.redaction.detector import LOOKBEHIND

from . import suite_cases
from .test_whole_candidates import LABEL_FORM, TEXTS
from .test_whole_candidates import PIECES as CANDIDATE_PIECES
from .test_whole_lean import _PIECES, CORPORA, DROPPING, OwnKeep, _classes, _hide, all_set, one_pass, streamed

SWITCHES = (
    (whole, "STDLIB"),
    (whole, "QUIET_FARS"),
    (wholedb, "NATIVE_MERGE"),
    (wholedb, "NATIVE_COLLECT"),
    (whole, "NATIVE_MATCHES"),
    (whole, "LEAN_LOCATE"),
    (whole, "BY_ID"),
    (wholedb, "BY_ID"),
)


def switched(on: bool) -> contextlib.AbstractContextManager[None]:
    return all_set(SWITCHES, on)


class Streamed(Redactor):
    _WHOLE = False


class Plain(Redactor):
    _WHOLE = False
    _COMPILED = False
    _NATIVE = False


def check(text: str, cls: type[Redactor], *, taken: bool = False, **kw: object) -> None:
    """Switches on == switches off == the stream == the pure stream, text and counts."""
    with switched(True):
        on = one_pass(cls, text, **kw)
    with switched(False):
        off = one_pass(cls, text, **kw)
    assert on == off
    if taken:
        assert on[0] is not None, "the one pass declined a text it should certify"
    if on[0] is not None:
        want = streamed(Streamed, text, **kw) if cls is Redactor else streamed(cls, text, **kw)
        assert on == want
        if cls is Redactor:
            assert on == streamed(Plain, text, **kw)


def test_the_quick_forms_are_found() -> None:
    """The forms this rests on are still read off the detectors (a pattern change that loses them shows here,
    not as a silent slowdown)."""
    engine = Redactor()._engine
    quick = {d.entity for d in engine.detectors if whole._quick(d) is not None}
    assert {"US_SSN", "PHONE_NUMBER", "IP_ADDRESS"} <= quick
    assert not quick & {"EMAIL_ADDRESS", "CREDIT_CARD", "LABELED_SECRET"}  # (`\p{…}`, a variable lookbehind)


def test_what_is_not_handed_to_the_stdlib_engine() -> None:
    v0 = regex.V0 | regex.UNICODE
    assert whole._stdlib(r"(?<![0-9])[0-9]{3}-[0-9]{4}(?![0-9])", v0) is not None
    for pattern in (r"\d{3}", r"\bx", r"\p{Latin}", r"(?i:ab)", r"a{1,3}+b", r"(?>ab)", r"a*?b", "é", r"(?<=a|bc)x"):
        assert whole._stdlib(pattern, v0) is None, pattern
    assert whole._stdlib(r"[0-9]{3}", v0 | regex.IGNORECASE) is None
    assert whole._stdlib(r"[+?]{2}x", v0) is not None  # (a class that holds `+?`: not a quantifier)
    # What `regex` reads and `re` takes for literals: POSIX classes and fuzzy constraints (review 35).
    for pattern in (r"[[:alpha:]]", r"[^[:space:]]", r"[a[:digit:]]", r"(?:ab){e<=1}", r"(?:ab){1<=e<=2}", r"a{e}"):
        assert whole._stdlib(pattern, v0) is None, pattern
    for pattern in (r"a{x}", r"a{ 1}", r"a{1, 2}", r"a{1,2", r"a{}", r"a{,}"):  # (a brace not a count: refused)
        assert whole._stdlib(pattern, v0) is None, pattern
    for pattern in (r"a{3}", r"a{1,}", r"a{,2}", r"a{1,2}", r"[{:]x", r"\{e<=1\}", r"[\[:]x"):
        assert whole._stdlib(pattern, v0) is not None, pattern
    assert whole._first_alternative(r"(?=[0-9])(?:(?:ab|cd)|ef)") == r"(?=[0-9])(?:(?:ab|cd))"
    assert whole._first_alternative(r"(?=[0-9])(?:(?:ab|cd)x)") is None  # (something after the alternation)
    assert whole._first_alternative(r"(?=[0-9])(?:(?:ab|cd))") == r"(?=[0-9])(?:ab)"
    assert whole._first_alternative(r"(?:ab|cd)x") is None


def _same_matches(text: str) -> None:
    """`_quick(d)(text, q)` is `d.compiled.match(text, q)` (span and groups) at every position."""
    for d in Redactor()._engine.detectors:
        quick = whole._quick(d)
        if quick is None:
            continue
        for q in range(len(text) + 1):
            a, b = quick(text, q), d.compiled.match(text, q)
            assert (a is None) == (b is None), (d.entity, q, text[max(0, q - 10) : q + 40])
            if a is not None and b is not None:
                assert a.span() == b.span() and a.groups() == b.groups(), (d.entity, q)
                assert a.groupdict() == b.groupdict(), (d.entity, q)


_DIGITS = st.sampled_from(
    list("0123456789 .-:/()+aAfF%x_\n") + ["::", "1.2.3.4", "192.168.", "415-555-", "+1 ", "0532 ", "\u0663"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_DIGITS, max_size=40).map("".join))
def test_hypothesis_the_two_engines_match_alike(text: str) -> None:
    _same_matches(text)


@pytest.mark.parametrize("name", ["logs", "json", "multilingual", "code"])
def test_the_two_engines_match_alike_on_the_corpora(name: str) -> None:
    _same_matches(CORPORA[name][:6000])


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_corpora(name: str) -> None:
    for cls in _classes():
        check(CORPORA[name], cls, taken=True)
        check(CORPORA[name], cls, operator=_hide)


def test_a_view_that_drops_and_maps_characters_and_options() -> None:
    text = CORPORA["multilingual"][:8000] + DROPPING
    for cls in _classes():
        check(text, cls, taken=True, operator="mask")
    text = CORPORA["json"][:12000] + CORPORA["logs"][:12000] + DROPPING[:3000]
    custom = [("TICKET", r"\bT-[0-9]{5}\b")]
    for cls in [*_classes(), OwnKeep]:
        check(text + " T-12345 " * 40, cls, operator=Hash(key=b"k" * 32), allow=["10.0.0.1"], custom=custom)


@pytest.mark.parametrize("suite", suite_cases.NAMES)
def test_every_suite_strung_together(suite: str) -> None:
    joined = "\n".join(c["text"] for c in suite_cases.load(suite))
    for cls in _classes():
        check(joined, cls, operator=_hide)
        check(joined, cls, max_hold=512)


@settings(max_examples=80, deadline=None)
@given(st.lists(_PIECES | _DIGITS, max_size=200).map("".join))
def test_hypothesis_texts(text: str) -> None:
    for cls in _classes():
        check(text, cls)


_SPAN = st.tuples(st.integers(-5, 60), st.integers(-5, 60))


@settings(max_examples=500, deadline=None)
@given(st.lists(_SPAN, max_size=40), st.integers(-3, 30))
def test_the_compiled_merge_is_prefilters(spans: list[tuple[int, int]], lo: int) -> None:
    assert fastpath.wholec is not None or os.environ.get("SLUICEGATE_PURE") == "1"
    if fastpath.wholec is not None:
        assert fastpath.wholec.merge(list(spans), lo) == prefilter._merge(spans, lo)
    assert wholedb.merge(list(spans), lo) == prefilter._merge(spans, lo)


@settings(max_examples=500, deadline=None)
@given(st.lists(_SPAN, max_size=40))
def test_the_compiled_runs_are_the_python_ones(spans: list[tuple[int, int]]) -> None:
    with mock.patch.object(wholedb, "NATIVE_MERGE", False):
        want = whole._runs(list(spans))
    assert whole._runs(list(spans)) == want
    if fastpath.wholec is not None:
        assert fastpath.wholec.runs(list(spans)) == want
        with pytest.raises(TypeError):
            fastpath.wholec.runs([(1, 2, 3)])


def test_the_compiled_merge_refuses_what_is_not_pairs_of_ints() -> None:
    if fastpath.wholec is None:
        return
    for bad in ([(1, 2, 3)], [[1, 2]], [(1, "2")], [(1.0, 2)]):
        with pytest.raises(TypeError):
            fastpath.wholec.merge(bad, 0)
    with pytest.raises(OverflowError):
        fastpath.wholec.merge([(1 << 70, 1)], 0)
    with pytest.raises(TypeError):
        fastpath.wholec.merge((1, 2), 0)
    assert wholedb.merge([(1 << 70, 1 << 71)], 0) == [(1 << 70, 1 << 71)]  # (the Python form then)
    top = (1 << 63) - 1  # (LLONG_MAX: `b + 1` would overflow in C, so refused there and merged in Python)
    for spans in ([(0, top), (top, top)], [(top, top)], [(top, 1)]):
        with pytest.raises(OverflowError):
            fastpath.wholec.merge(list(spans), 0)
        with pytest.raises(OverflowError):
            fastpath.wholec.runs(list(spans))
        assert wholedb.merge(list(spans), 0) == prefilter._merge(spans, 0)
        with mock.patch.object(wholedb, "NATIVE_MERGE", False):
            want = whole._runs(list(spans))
        assert whole._runs(list(spans)) == want
    assert fastpath.wholec.merge([(0, top - 1), (top - 1, top - 1)], 0) == [(0, top - 1)]
    assert fastpath.wholec.merge([], 5) == []


def _both_ways(view: str) -> None:
    """`Candidates._candidates` with the compiled `Collector` is the Python handler's, for windows 0 and the
    label detectors' (a view the two scans find nothing in included)."""
    db = wholedb.shared(Redactor()._engine.detectors)
    if db is None:
        return
    for window in (0, LOOKBEHIND):
        with mock.patch.object(wholedb, "NATIVE_COLLECT", True):
            on = db._candidates(view, window)
        with mock.patch.object(wholedb, "NATIVE_COLLECT", False):
            off = db._candidates(view, window)
        assert on == off


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_the_collector_gives_the_python_handlers_candidates_on_the_corpora(name: str) -> None:
    _both_ways(TEXTS[name])


@settings(max_examples=300, deadline=None)
@given(st.lists(LABEL_FORM | st.sampled_from(CANDIDATE_PIECES) | _DIGITS, max_size=60).map("".join))
def test_hypothesis_the_collector_gives_the_python_handlers_candidates(text: str) -> None:
    _both_ways(text)


def test_the_collector_refuses_what_it_cannot_keep() -> None:
    helper = fastpath.wholec
    if helper is None:
        assert os.environ.get("SLUICEGATE_PURE") == "1"
        return
    col = helper.Collector(3)
    with pytest.raises(ValueError):
        col(0, 0, 1, 0, None)  # (no meta yet)
    with pytest.raises(TypeError):
        col.use(b"\x00" * 5)
    with pytest.raises(ValueError):
        col.use(array("i", [3, 0, 0, 0]).tobytes())  # (a slot outside the three)
    with pytest.raises(ValueError):
        col.use(array("i", [0, 4, 0, 0]).tobytes())  # (no mode 4)
    col.use(array("i", [0, 0, 2, 1, 1, 1, 0, 3, 2, 3, 0, 0]).tobytes())
    assert col(0, 5, 9, 0, None) is False and col(1, 0, 4, 0, None) is False and col(1, 7, 12, 0, None) is False
    assert col(2, 3, 8, 0, None) is False
    assert col.pairs(0) == [(3, 8)] and col.pairs(1) == [(0, 1), (8, 9)] and col.pairs(2) == [(8, 0)]
    assert col.count(1) == 2 and col.merged(1, 0) == [(0, 1), (8, 9)] and col.merged(1, 9) == [(9, 9)]
    with pytest.raises(ValueError):
        col(3, 0, 1, 0, None)  # (an expression id outside the meta)
    with pytest.raises(IndexError):
        col.pairs(3)
    with pytest.raises(TypeError):
        col(0, 1)
    with pytest.raises(ValueError):
        helper.Collector(-1)


def _spans_of(text: str, picks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    n = len(text)
    return prefilter._merge([(a % (n + 1), a % (n + 1) + w) for a, w in picks], 0) if n else []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_DIGITS | st.sampled_from(CANDIDATE_PIECES), max_size=80).map("".join),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 300)), max_size=12),
    st.integers(0, 20),
    st.integers(0, 40),
)
def test_hypothesis_the_compiled_loop_is_matches_in(
    text: str, picks: list[tuple[int, int]], first: int, cut: int
) -> None:
    """`_wholec.matches_in` finds what `prefilter.matches_in` finds (the same Match objects' spans), for every
    detector, with and without `_quick`'s patterns, for spans short and long (`LONG_SPAN` lowered to reach
    the search branch), from `first` to `point`."""
    helper = fastpath.wholec
    if helper is None:
        assert os.environ.get("SLUICEGATE_PURE") == "1"
        return
    spans = _spans_of(text, picks)
    point = max(0, len(text) - cut)
    for d in Redactor()._engine.detectors:
        parts = whole._quick_parts(d)
        for long_span in (prefilter.LONG_SPAN, 8):
            with mock.patch.object(prefilter, "LONG_SPAN", long_span):
                want = [m.span() for m in prefilter.matches_in(d, text, spans, first, point)]
            got = helper.matches_in(d.compiled.match, None, d.compiled.search, text, spans, first, point, long_span)
            assert [m.span() for m in got] == want, d.entity
            if parts is not None:
                got = helper.matches_in(parts[0], parts[1], d.compiled.search, text, spans, first, point, long_span)
                assert [m.span() for m in got] == want, d.entity


def test_the_compiled_loop_stops_at_a_match_past_its_span_or_point() -> None:
    """A long span's search finds a match that starts one past the span's end (clipped at `point - 1`, or the
    span's own last position): not kept, as `prefilter.matches_in` keeps none (review 35: `ms > end` there)."""
    helper = fastpath.wholec
    if helper is None:
        assert os.environ.get("SLUICEGATE_PURE") == "1"
        return
    (d,) = [d for d in Redactor()._engine.detectors if d.entity == "US_SSN"]
    text = "a" * 30 + " 123-45-6789 tail"
    at = text.index("1")
    cases = [
        ([(0, len(text) - 1)], at, []),  # (the span clipped to end at point - 1, the match starting at point)
        ([(0, at - 1)], len(text), []),  # (the span ends one before the match)
        ([(0, at - 1), (at + 4, at + 6)], len(text), []),  # (and the next span starts inside it)
        ([(0, len(text) - 1)], at + 1, [(at, at + 11)]),  # (not vacuous: one more and it is found)
        ([(0, at)], len(text), [(at, at + 11)]),
    ]
    for spans, point, want in cases:
        for long_span in (8, prefilter.LONG_SPAN):
            with mock.patch.object(prefilter, "LONG_SPAN", long_span):
                assert [m.span() for m in prefilter.matches_in(d, text, spans, 0, point)] == want, (spans, point)
            got = helper.matches_in(d.compiled.match, None, d.compiled.search, text, spans, 0, point, long_span)
            assert [m.span() for m in got] == want, (spans, point, long_span)


def test_the_compiled_loop_on_the_corpora_and_its_refusals() -> None:
    helper = fastpath.wholec
    if helper is None:
        return
    db = wholedb.shared(Redactor()._engine.detectors)
    for name in ("logs", "json"):
        view = TEXTS[name]
        hits = db.hits(view) if db is not None else {}
        for i, d in enumerate(Redactor()._engine.detectors):
            spans = hits.get(i)
            if not spans:
                continue
            want = [m.span() for m in prefilter.matches_in(d, view, spans, 0, len(view))]
            got = helper.matches_in(d.compiled.match, None, d.compiled.search, view, spans, 0, len(view), 256)
            assert [m.span() for m in got] == want
    d = Redactor()._engine.detectors[0]
    with pytest.raises(TypeError):
        helper.matches_in(d.compiled.match, None, d.compiled.search, "x", ((0, 0),), 0, 1, 256)
    with pytest.raises(TypeError):
        helper.matches_in(d.compiled.match, None, d.compiled.search, "x", [(0, 0, 0)], 0, 1, 256)
    with pytest.raises(ZeroDivisionError):
        helper.matches_in(lambda v, s: 1 / 0, None, d.compiled.search, "x", [(0, 0)], 0, 1, 256)


# Runs that reach each branch of the lean form: a `+` run whose first group is more than the stray digits allowed
# (kept: a country code), dotted runs (only a whole-run grouping counts), several candidates (`_pick`), and stray
# digits either side (the run refused).
_CARD_RUNS = [
    "+12345 4111 1111 1111 1111",
    "+12345 4111 1111 1111 1111 12345",
    "+1 4111 1111 1111 1111",
    "+4111 1111 1111 1111",
    "+12345.4111.1111.1111.1111",
    "4111.1111.1111.1111",
    "4111.111.11111.1111",
    "4111\u00b71111\u00b71111\u00b71111",
    "4111 1111 1111 1111 4111 1111 1111 1111",
    "4111 1111 1111 1111 5 4111 1111 1111 1111",
    "4111111111111111 4111 1111 1111 1111",
    "12345 4111 1111 1111 1111",
    "4111 1111 1111 1111 12345",
    "12345 4111 1111 1111 1111 67890",
    "1 4111 1111 1111 1111 2",
    "1234 4111 1111 1111 1111 5678",
]


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["4111", "1111", "4", "12", "123", "12345", "0", "5", "+", " ", "-", ".", "\t", "\u00b7", "a", "\u0663"]
        ),
        max_size=14,
    ).map("".join)
    | st.text(st.sampled_from(list("0123456789 -.+\u00b7")), max_size=30)
    | st.sampled_from(_CARD_RUNS)
)
def test_card_windows_lean_is_card_windows(run: str) -> None:
    assert windows.card_windows_lean(run) == windows.card_windows(run)


@pytest.mark.parametrize("run", _CARD_RUNS)
def test_card_windows_lean_is_card_windows_on_each_branch(run: str) -> None:
    assert windows.card_windows_lean(run) == windows.card_windows(run)


def test_the_card_runs_reach_the_branches() -> None:
    # Not vacuous: some of the runs above are windows, some are refused, and a `+` run keeps its long first group.
    found = [windows.card_windows(run) for run in _CARD_RUNS]
    assert found[0] == [(7, 26)] and [] in found and sum(len(f) > 1 for f in found) >= 1


def test_card_windows_lean_on_the_corpora_runs() -> None:
    seen = 0
    suites = ["\n".join(c["text"] for c in suite_cases.load(suite)) for suite in suite_cases.NAMES]
    for text in [*CORPORA.values(), *suites]:
        for m in regex.finditer(r"\+?[0-9](?:[ \t.\-\u00b7]?[0-9]){12,75}", text):
            assert windows.card_windows_lean(m.group()) == windows.card_windows(m.group())
            seen += 1
    assert seen > 50
