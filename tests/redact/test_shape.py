"""The compiled feed's shape check (redaction/shape.py, `shape_rules_out` in _native.c) against the engine.

The compiled feed skips a candidate start `v` of a detector when its shape rules it out (no path of the pattern
reads what the text has in the first `PLACES` characters from `v`), taking the engine's answer there to be "no
match". So: wherever the shape rules a start out, the engine's anchored `partial=True` match there is None (on
generated texts cut at every length, the four issue 27 corpora, issue 17's corpus and all five suites' cases);
the C check agrees with the Python reference; and the released text is the same with the check and without it,
at random chunkings, with and without the `[fast]` prefilter (test_oracle.py and test_native.py compare the
compiled feed with the pure path as well).
"""

from __future__ import annotations

import random

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.shape import PLACES, shape
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from .suite_cases import NAMES, load

_SHAPED = tuple((d, s) for d in BUILTIN if (s := shape(d.compiled.pattern, d.compiled.flags)) is not None)
_native = pytest.mark.skipif(fastpath.native is None, reason="the compiled feed is not built (SLUICEGATE_PURE)")

# Pieces that make the dense detectors' near misses and hits: digits and their separators, hex groups and colons,
# addresses, token prefixes, quotes, a non-ASCII letter, digit and space.
_PIECES = st.one_of(
    st.text(st.sampled_from(list("0123456789 -.:()+/")), max_size=6),
    st.text(st.sampled_from(list("0123456789abcdefABCDEF:.-")), max_size=6),
    st.sampled_from(
        [
            "@",
            "a.b@example.com",
            "x@y.",
            "://",
            "https://u:p@h",
            "sk-",
            "ghp_",
            "AKIA",
            "eyJ",
            "xoxb-",
            "SG.",
            "2026-12-02T10:31:07Z",
            "192.168.1.1",
            "::1",
            "fe80::1%eth0",
            "00:1A:2b:3C:4d:5E",
            "+44 20 7946 0958",
            "(415) 555-2671",
            "4111 1111 1111 1111",
            "DE89 3704 0044 0532 0130 00",
            "é",
            "٣",
            "\u00a0",
            '"',
            "'",
            "\n",
        ]
    ),
    st.text(max_size=3),
)


def _check(text: str) -> int:
    """Assert the claim at every start of `text` (and of each of its prefixes within reach) that a shape rules out;
    return how many were checked."""
    checked = 0
    for d, s in _SHAPED:
        for v in range(len(text)):
            for end in {len(text), *(min(len(text), v + k) for k in (1, 2, 4, 8, PLACES))}:
                if s.rules_out(text[:end], v):
                    checked += 1
                    assert d.compiled.match(text[:end], v, partial=True) is None, (d.entity, text[:end], v)
    return checked


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=10).map("".join))
def test_a_start_ruled_out_has_no_match(text: str) -> None:
    _check(text)


def _feed() -> object:
    quick = Redactor()._quick_native
    assert quick is not None
    return quick.__self__  # type: ignore[attr-defined]


@_native
def test_on_the_corpora_and_the_suites() -> None:
    """At every start a shape rules out (as the C check makes it) of the corpora and the suites' cases, the engine
    finds no match; and most of the dense detectors' starts on logs are ruled out."""
    feed = _feed()
    index = {id(d): i for i, d in enumerate(Redactor()._engine.detectors)}
    texts = [make(6000) for make in CORPORA.values()]
    texts += [C.planted(6000).text, C.prose(3000)]
    texts += [case["text"][:1500] for name in NAMES for case in load(name)]
    checked = 0
    for text in texts:
        for d, _s in _SHAPED:
            i = index[id(d)]
            for v in range(len(text)):
                if feed.rules_out(text, v, i):  # type: ignore[attr-defined]
                    checked += 1
                    assert d.compiled.match(text, v, partial=True) is None, (d.entity, text[v : v + 40])
    assert checked > 100_000


@_native
@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join), st.integers(0, 40))
def test_the_compiled_check_is_the_reference(text: str, cut: int) -> None:
    feed = _feed()
    index = {id(d): i for i, d in enumerate(Redactor()._engine.detectors)}
    text = text[: max(1, len(text) - cut)] if text else "x"
    for d, s in _SHAPED:
        for v in range(len(text)):
            assert feed.rules_out(text, v, index[id(d)]) == s.rules_out(text, v), (d.entity, text, v)  # type: ignore[attr-defined]


def test_the_shapes_are_read_off_the_patterns() -> None:
    """Every token and personal-data built-in gets a shape, and a few hand-checked ones say what they should."""
    entities = {d.entity for d, _ in _SHAPED}
    for name in ("CREDIT_CARD", "PHONE_NUMBER", "IP_ADDRESS", "MAC_ADDRESS", "EMAIL_ADDRESS", "URL_CREDENTIALS"):
        assert name in entities
    ip = shape(r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}")
    assert ip is not None
    assert ip.rules_out("2026-12-02", 0)  # a '-' where a digit or '.' must come
    assert not ip.rules_out("10.0.0.1", 0)
    assert not ip.rules_out("10.0", 0)  # open at the end
    ab = shape(r"a(?=bc)")
    assert ab is not None and not ab.rules_out("ax", 0)  # complete at `a`; the lookahead only forbids
    back = shape(r"([:\-])x(?P=g)".replace("(", "(?P<g>", 1))
    assert back is not None and back.rules_out(":x.", 0) and not back.rules_out(":x-", 0)
    ci = shape(r"(?i:abc)")
    assert ci is not None and not ci.rules_out("ABC", 0) and not ci.rules_out("\u212abc", 0)  # KELVIN SIGN
    assert shape(r"(?:ab){e<=1}") is None  # a fuzzy constraint
    # A lookahead inside a lookbehind may read forward: the start is kept while the text ends inside its reach
    # (the engine says None there today; kept anyway), ruled out once the text goes past it.
    ahead = shape(r"(?<=a(?=bcd))bx")
    assert ahead is not None
    assert not ahead.rules_out("abc", 1)
    assert ahead.rules_out("abcdqqqq", 1) and regex.match(r"(?<=a(?=bcd))bx", "abcdqqqq", 1, partial=True) is None
    assert shape(r"a*") is None  # matches the empty string


@pytest.mark.parametrize("fast", [True, False])
@_native
def test_the_output_is_the_same_with_and_without_the_check(fast: bool) -> None:
    class Subject(Redactor):
        _COMPILED = fast

    rng = random.Random(27)
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text, C.prose(3000)]
    for text in texts:
        for sizes in ([4], [1], [7, 1, 30], [rng.randint(1, 64) for _ in range(50)]):
            outs = []
            for off in (False, True):
                r = Subject()
                if off:
                    assert r._tracker is not None
                    r._quick_native = fastpath.compiled_feed(r._tracker, r._max_hold, shape_off=True)
                out, at, k = [], 0, 0
                while at < len(text):
                    n = sizes[k % len(sizes)]
                    out.append(r.feed(text[at : at + n]).text)
                    at += n
                    k += 1
                out.append(r.flush().text)
                outs.append("".join(out))
            assert outs[0] == outs[1]
