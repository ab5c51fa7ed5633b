"""The alphabet bound (redaction/alphabet.py) against the engine: no open start of a detector is at or before a
character its `stop` pattern finds, on random texts and every prefix of planted values. The tracker starts its
open-start probe after that character (tracker.py), so a wrong alphabet would hide an open value; a long
whole text through the Redactor is compared with the straightforward path that asks every detector.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor
from sluicegate.redaction.alphabet import stop_pattern
from sluicegate.redaction.detector import Detector
from sluicegate.redaction.registry import BUILTIN

from .corpus import CHINESE, ENGLISH, FUZZ_VALUES, PERSIAN

STOPPED = [d for d in BUILTIN if d.stop is not None]


def _check(d: Detector, view: str) -> None:
    """Every open start q has no stop character in view[q:]."""
    assert d.stop is not None
    p = 0
    while p <= len(view):
        m = d.probe.search(view, p, partial=True)
        if m is None or m.start() >= len(view):
            return
        k = d.stop.search(view, m.start())
        assert k is None, (d.entity, m.start(), k.start(), view)
        p = m.start() + 1


def test_the_unbounded_builtins_have_an_alphabet() -> None:
    # The ones whose probe scanned the whole held text on prose (DISCORD, EMAIL, MAC) must be covered.
    assert {"DISCORD_BOT_TOKEN", "EMAIL_ADDRESS", "MAC_ADDRESS", "JWT", "GITHUB_TOKEN"} <= {d.entity for d in STOPPED}
    assert {"IBAN_CODE", "IP_ADDRESS", "CREDIT_CARD"} <= {d.entity for d in STOPPED}  # bounded ones too


_CHARS = list("0123456789abcdefABCDEFxyzXYZ@.:-_/+=() \n\r\t\u00a0\u00b7ſKéé'!#$%&*^~") + ["::", "00:1A:", "eyJ"]
_PROSE = [ENGLISH, CHINESE, PERSIAN]
_PIECE = st.one_of(
    st.sampled_from(_CHARS),
    st.sampled_from(FUZZ_VALUES),
    st.builds(lambda p, a, b: p[a : a + b], st.sampled_from(_PROSE), st.integers(0, 200), st.integers(0, 40)),
    st.text(st.sampled_from(list("0123456789abcdefABCDEF:.-_@")), min_size=1, max_size=40),
    st.text(max_size=4),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECE, max_size=20).map("".join), st.lists(st.integers(0, 10_000), max_size=4))
def test_no_open_start_before_a_stop_character(text: str, cuts: list[int]) -> None:
    views = {text} | {text[: c % (len(text) + 1)] for c in cuts}
    for view in views:
        for d in STOPPED:
            _check(d, view)


@pytest.mark.parametrize("d", STOPPED, ids=lambda d: d.entity)
def test_every_prefix_of_every_value_has_no_stop_after_its_open_start(d: Detector) -> None:
    for v in FUZZ_VALUES:
        for prose in ("", "see ", ENGLISH[:40] + " ", "a:", "x@"):
            text = prose + v + " and more"
            for k in range(len(prose), len(text) + 1):
                _check(d, text[:k])


# stop_pattern() itself on small patterns.


@pytest.mark.parametrize(
    ("pattern", "inside", "outside"),
    [
        ("[a-c]+x", "abcx", "dX -"),
        (r"[\p{Greek}0-9]+@", "αβ09@", "a-"),
        ("a+(?=b+c)", "abc", "d"),  # a lookahead reads forward: its characters count
        ("(?<=z)a+", "a", "z"),  # a lookbehind reads behind the start: its do not
        ("(?i:k)+x", "kK\u212ax", "y"),  # case folding: the Kelvin sign reads as k
        (r"(?P<s>[:\-])a(?P=s)", ":-a", "b"),
        (r"\d+", "0١", "a"),
    ],
)
def test_stop_characters_of_small_patterns(pattern: str, inside: str, outside: str) -> None:
    stop = stop_pattern(pattern)
    assert stop is not None
    for ch in inside:
        assert stop.search(ch) is None, (pattern, ch)
    for ch in outside:
        assert stop.search(ch) is not None, (pattern, ch)


@pytest.mark.parametrize(
    "pattern",
    ["a.+", "[^a]+", r"\D+", r"\P{L}+", "(?<=(?=ab)x)a+", r"(a)(?i:\1)+", "(?:a){e<=1}", r"\N{BULLET}+"],
)
def test_no_alphabet_when_unbounded_or_unknown(pattern: str) -> None:
    assert stop_pattern(pattern) is None


def test_the_last_stop_character_is_found_from_the_end() -> None:
    stop = stop_pattern("[a-z]+")
    assert stop is not None
    m = stop.search("ab cd-efg", 0)
    assert m is not None and m.start() == 5
    assert stop.search("ab cd-efg", 6) is None


class _Straight(Redactor):
    _FAST = False
    _NATIVE = False


class _Pure(Redactor):
    _COMPILED = False
    _NATIVE = False


def test_whole_long_text_equals_the_straightforward_path() -> None:
    # Held text far past the threshold where the tracker looks backwards: long runs of each alphabet, prose.
    parts = []
    for v in FUZZ_VALUES:
        parts += [ENGLISH[:300], v, "x" * 300, v + "-" * 5, PERSIAN[:200], "a@b." * 80, v, CHINESE[:100]]
    text = " ".join(parts)
    for max_hold in (8192, 700):
        for make in (_Pure, Redactor):
            a, b = make(max_hold=max_hold), _Straight(max_hold=max_hold)
            sa, sb = a.feed(text), b.feed(text)
            assert (sa, a.held) == (sb, b.held)
            assert a.flush() == b.flush()
