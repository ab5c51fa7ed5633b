"""The reach bound (redaction/reach.py) against the engine: a detector's leftmost open start is never more than
`reach` characters from the end of the view, and no complete match is longer than `reach`. The tracker starts
its open-start probe `reach` characters from the end (tracker.py), so a wrong bound would hide an open value.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction.detector import Detector
from sluicegate.redaction.reach import MARGIN, reach
from sluicegate.redaction.registry import BUILTIN

from .corpus import CHINESE, ENGLISH, FUZZ_VALUES, PERSIAN

BOUNDED = [d for d in BUILTIN if d.reach is not None]


def _check(d: Detector, view: str) -> None:
    r = d.reach
    assert r is not None
    n = len(view)
    m = d.probe.search(view, 0, partial=True)
    if m is not None and m.start() < n:
        assert m.start() >= n - r, (d.entity, r, m.start(), view)
    for c in d.compiled.finditer(view):
        assert c.end() - c.start() <= r, (d.entity, r, c.group(), view)


def test_most_builtins_have_a_bound() -> None:
    # The test below is only worth something if it covers detectors; the unbounded ones are probed from the
    # bound the starters give instead.
    assert len(BOUNDED) >= 12
    assert {"CREDIT_CARD", "PHONE_NUMBER", "IP_ADDRESS", "AWS_ACCESS_KEY", "URL_CREDENTIALS"} <= {
        d.entity for d in BOUNDED
    }


_CHARS = list("0123456789abcdefABCDEFxyzXYZ@.:-_/+=() \n\t\u00a0\u00b7ſKé") + ["::", "ffff:", "1.", "255."]
_PROSE = [ENGLISH, CHINESE, PERSIAN]


def _run(ch: str, k: int) -> str:
    return ch * k


_PIECE = st.one_of(
    st.sampled_from(_CHARS),
    st.sampled_from(FUZZ_VALUES),
    st.builds(lambda p, a, b: p[a : a + b], st.sampled_from(_PROSE), st.integers(0, 200), st.integers(0, 40)),
    st.builds(_run, st.sampled_from(list("09aF:.- ")), st.integers(1, 200)),
    st.text(st.sampled_from(list("0123456789")), min_size=1, max_size=40),
    st.text(st.sampled_from(list("0123456789abcdefABCDEF:.-")), min_size=1, max_size=40),
    st.text(max_size=4),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECE, max_size=30).map("".join), st.lists(st.integers(0, 10_000), max_size=6))
def test_open_starts_and_matches_are_within_reach(text: str, cuts: list[int]) -> None:
    # Every prefix of the text is a view the stream may hold (a value cut anywhere).
    views = {text} | {text[: c % (len(text) + 1)] for c in cuts}
    for view in views:
        for d in BOUNDED:
            _check(d, view)


@pytest.mark.parametrize("d", BOUNDED, ids=lambda d: d.entity)
def test_every_prefix_of_every_value_is_within_reach(d: Detector) -> None:
    for v in FUZZ_VALUES:
        for prose in ("", "see ", ENGLISH[:60] + " ", "0", "1 ", "a:"):
            text = prose + v + " and more"
            for k in range(len(prose), len(text) + 1):
                _check(d, text[:k])


@pytest.mark.parametrize("d", BOUNDED, ids=lambda d: d.entity)
def test_long_runs_are_within_reach(d: Detector) -> None:
    assert d.reach is not None
    for ch in "0123456789aAfF:.- +(":
        for n in (d.reach - 3, d.reach, d.reach + 1, d.reach + 50):
            _check(d, ch * max(n, 1))
    for unit in ("1 ", "12.", "1:", "ab:", "a1", "1-", "00:1A:", "4111 ", "1.2."):
        _check(d, unit * (d.reach + 10))


# reach() itself on small patterns: the bound read off the parse tree, plus MARGIN.


@pytest.mark.parametrize(
    ("pattern", "width"),
    [
        ("abc", 3),
        ("[a-z]", 1),
        ("[^a-z]", 1),
        (".", 1),
        (r"\d\w\s", 3),
        ("a{3}", 3),
        ("a{2,5}", 5),
        ("(?:ab){0,4}c", 9),
        ("a{2,5}?", 5),
        ("a{2,5}+", 5),
        ("(?>ab|c)d", 3),
        ("(?=abcd)a", 5),  # the lookahead counted as if consumed
        ("(?!abcd)a", 5),
        ("(?<=abcd)a", 1),  # a lookbehind reads backwards
        ("(?<!abcd)a", 1),
        ("ab|cdef|g", 4),  # the widest alternative
        (r"\p{Latin}", 1),
        (r"\p{Latin}{3}", 3),
        (r"[\p{Latin}\p{Greek}0-9]x", 2),
        (r"\P{L}", 1),
        (r"a\b", 1),
        ("(?i:abc)", 3),
        ("(?P<v>ab)(?(v)cd|e)", 4),
        ("(?:)a", 1),
    ],
)
def test_reach_of_small_patterns(pattern: str, width: int) -> None:
    assert reach(pattern) == width + MARGIN


@pytest.mark.parametrize(
    "pattern",
    [
        "a+",
        "a*b",
        "a{2,}",
        "(?:ab)+?",
        "a++",
        r"(a)\1",
        r"(?P<x>a)(?P=x)",
        "(?=a+)b",  # an unbounded lookahead
        "x|a*",
        r"\X",  # `regex`-only syntax
        r"\pL",
        "(?V1)a",
        "(?f)a",
    ],
)
def test_reach_is_none_when_unbounded_or_unknown(pattern: str) -> None:
    assert reach(pattern) is None


def test_fullcase_flag_gives_no_bound() -> None:
    # With full case folding 'ß' matches "ss": one pattern character, two text characters.
    assert reach("(?i)ß") == 1 + MARGIN
    assert reach("(?i)ß", regex.IGNORECASE | regex.FULLCASE) is None
    assert regex.compile("(?i)ß", regex.FULLCASE).fullmatch("ss") is not None


def test_a_detectors_reach_includes_its_first_prefix() -> None:
    d = Detector("T", "[0-9]{3}", first="[0-9]")
    assert d.reach == reach("(?=[0-9])(?:[0-9]{3})") == 3 + 1 + MARGIN
    assert Detector("U", "[0-9]+").reach is None


# The same fact as for the built-ins, for small patterns a custom detector may use.

_SMALL = [
    "abc",
    "(?=abcd)a",
    "(?<=ab)c",
    "[0-9]{2,4}(?![0-9])",
    "ab(?!cde)",
    r"\bQX[0-9]{3}\b",
    "(?<=order=)[0-9]{4}",
    "a(?:bc|d{1,3})",
    r"[\p{Latin}0-9]{1,3}@",
    "(?i:abc)",
    "a(?=b(?=cd))",
    "(?>a{1,3})b",
    r"(?<![0-9])[0-9]{3}(?:[ \-]?[0-9]){2}",
]


@pytest.mark.parametrize("pattern", _SMALL)
def test_small_patterns_are_within_reach_on_every_text(pattern: str) -> None:
    d = Detector("T", pattern)
    assert d.reach is not None
    alphabet = sorted(set("".join(_SMALL)) - set("()?[]{}\\<=!>|^:+-,") | set("abcd0123 =-"))
    texts = ["".join(alphabet[(i * 7 + j * 3) % len(alphabet)] for j in range(i % 13)) for i in range(400)]
    texts += ["order=12345", "QX123", "abcd", "ab cde", "1234567 89", "a" * 20, "abcdcd", "abbbcd"]
    for t in texts:
        for k in range(len(t) + 1):
            _check(d, t[:k])


# Patterns a custom detector may use whose reach the parse tree once under-counted (each a counterexample the
# engine confirms: an open start or a match further from the end than the bound said).


def test_a_lookahead_inside_a_lookbehind_reads_forward() -> None:
    # The lookbehind starts at the current position and the lookahead in it peeks past it: on "abcdef" the
    # path from 1 is open at the end (it wants the "g"), 5 characters from its start.
    for pattern in ("(?<=a(?=bcdefg))b", "(?<!a(?!bcdefg))b", "(?<=(?<=(?=bcdefg)a)b)c"):
        d = Detector("T", pattern)
        for t in ("abcdef", "abcdefg", "xabcdefgh", "ab"):
            for k in range(len(t) + 1):
                if d.reach is not None:
                    _check(d, t[:k])
    assert reach("(?<=a(?=bcdefg))b") == 1 + 6 + MARGIN
    assert reach("(?<=a)b") == 1 + MARGIN


def test_an_escaped_backslash_before_p_is_not_a_property() -> None:
    # `\\p{Latin}` is a backslash, then the literal text "p{Latin}": nine characters, not one. (A brace group
    # that is not a repeat count now gives no bound at all, which is also safe.)
    d = Detector("T", r"\\p{Latin}x")
    assert d.compiled.fullmatch("\\p{Latin}x") is not None
    assert d.reach is None or d.reach >= 10 + MARGIN
    got = reach(r"\\p{Latin}")
    assert got is None or got >= 9 + MARGIN
    assert reach(r"\\\p{Latin}") == 2 + MARGIN
    assert reach(r"\\p") == 2 + MARGIN


def test_fuzzy_matching_gives_no_bound() -> None:
    # `{i<=20}` lets the engine insert 20 characters; the standard parser reads it as literal text.
    assert regex.compile("(?:ab){i<=20}").fullmatch("a" + "x" * 20 + "b") is not None
    assert reach("(?:ab){i<=20}") is None
    assert reach("(?:ab){e<=1}") is None
    assert reach("a{,5}") == 5 + MARGIN
