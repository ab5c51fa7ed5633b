"""The compiled feed's label pre-check (`Detector.near`, `labels.label_near`, `_native.c`) against the engine.

The compiled feed skips a candidate start `v` of a label detector at one of its `near` characters when no label
word's tail occurs in the `LOOKBEHIND` characters before it: with more than `near_k` characters after `v` it
takes the engine's answer there to be "no match"; with fewer it answers as the engine did for the same text
`view[v:]` at an earlier such start. Both must hold wherever the engine is asked, so: at every such start with no
tail before it, the engine finds no match (more than `near_k` after it) or an open one that the same text after a
different label-less context gives too; the C check agrees with the Python reference; and the outputs are
unchanged (test_oracle.py, test_native.py compare the paths).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from sluicegate.redaction import Redactor, fastpath, labels
from sluicegate.redaction.detector import LOOKBEHIND
from sluicegate.redaction.parsetree import alternatives
from sluicegate.redaction.reach import before_behind, behind_split
from sluicegate.redaction.registry import BUILTIN
from sluicegate.redaction.shape import shape
from tests.benchmarks import corpus as C
from tests.benchmarks.corpora27 import CORPORA

from .suite_cases import NAMES, load

_NEAR = tuple(d for d in BUILTIN if d.near is not None)
_WORDS = [w for w, _ in labels.words()][:40] + list(labels.CAMEL_WORDS) + ["api_key", "ApiKey", "db_pass", "x"]
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(
        [":", "=", "==", ":=", "=>", ",", "(", ")", '"', "'", "`", " ", "  ", "\t", "\n", "[25]", "<", ">", "@"]
        + ["!=", "===", "!==", "&&", "||", '"s3cr3t"', '"a b"', "my.", "cfg_", "{", "}"]
    ),
    st.sampled_from(["string", "const", "var", "&str", "sku", "qty", "SKU-1234", "s3cr3tVALUE9", "_prod", "1"]),
    st.text(st.sampled_from(list("aZ0_-.é密 :=\"',(")), max_size=4),
)


def _tail_near(text: str, v: int) -> bool:
    return labels.label_near(text, v, LOOKBEHIND)


def _check(text: str, near: Callable[[str, int], bool] = _tail_near) -> int:
    """Assert the claim at every `near` start of `text` where `near` says no label may end before it (by
    default: no tail); return how many were checked."""
    checked = 0
    for d in _NEAR:
        assert d.near_k is not None
        for v, ch in enumerate(text):
            if ch not in d.near or near(text, v):
                continue
            checked += 1
            m = d.compiled.match(text, v, partial=True)
            if len(text) - v > d.near_k:
                assert m is None, (d.pattern[:40], text, v)
            else:  # open before its lookbehind: the same after any context with no label in it
                assert m is None or m.partial, (text, v)
                tail = text[v:]
                for ctx in ("", "x" * LOOKBEHIND, "\n{ 12, "):
                    other = d.compiled.match(ctx + tail, len(ctx), partial=True)
                    assert (other is None) == (m is None), (text, v, ctx)
    return checked


_REST = tuple(d for d in BUILTIN if d.near_rest is not None)


def _rest(d: object) -> tuple[str, int, regex.Pattern[str], object]:
    assert d.near_rest is not None  # type: ignore[attr-defined]
    chars, k, rest = d.near_rest  # type: ignore[attr-defined]
    flags = d.compiled.flags  # type: ignore[attr-defined]
    return chars, k, regex.compile(rest, flags), shape(rest, flags, fastpath.REST_PLACES)


def _check_rest(text: str, near: Callable[[str, int], bool] = _tail_near) -> int:
    """Assert `near_rest`'s claims at every such start of `text` with no tail before it (and of each prefix of
    `text` within the rest's reach): (whole text, whole.py) a match there is a match of the rest; (the compiled
    feed) where the rest's shape rules the start out, no match with more than k characters after it, else the
    engine's answer depends on the text after it alone. Return how many were checked."""
    checked = 0
    for d in _REST:
        chars, k, rest_rx, rest_shape = _rest(d)
        assert rest_shape is not None
        for v, ch in enumerate(text):
            if ch not in chars or near(text, v):
                continue
            checked += 1
            if d.compiled.match(text, v) is not None:
                assert rest_rx.match(text, v) is not None, (text, v)
            for end in {len(text), *(min(len(text), v + j) for j in (1, 2, 3, 4, 5, 8, 16, 40, 64, 70))}:
                cut = text[:end]
                if not rest_shape.rules_out(cut, v):  # type: ignore[attr-defined]
                    continue
                assert rest_rx.match(cut, v, partial=True) is None, (cut, v)
                m = d.compiled.match(cut, v, partial=True)
                if end - v > k:
                    assert m is None, (cut, v)
                else:
                    assert m is None or m.partial, (cut, v)
                    for ctx in ("", "x" * LOOKBEHIND, "\n{ 12, "):
                        other = d.compiled.match(ctx + cut[v:], len(ctx), partial=True)
                        assert (other is None) == (m is None), (cut, v, ctx)
    return checked


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_no_start_without_a_label_tail(text: str) -> None:
    _check(text)
    _check_rest(text)


def test_on_the_corpora_and_the_suites() -> None:
    checked = rest = 0
    texts = [make(6000) for make in CORPORA.values()] + [C.planted(6000).text, C.prose(6000)]
    texts += [case["text"] for name in NAMES for case in load(name)]
    for text in texts:
        checked += _check(text)
        rest += _check_rest(text)
    assert checked > 1000
    assert rest > 1000


def test_the_rest_is_the_reversed_comparison() -> None:
    """`LABELED_IN_CODE`'s claim at `"`: read off the pattern, its forms there with the label after the value."""
    from sluicegate.redaction.secrets import _REVERSED, LABELED_IN_CODE

    assert LABELED_IN_CODE.near_rest == ('"', 3, _REVERSED)
    assert behind_split(r"a(?<=x)b|\"(?<=y)c|\"d|e", 0, '"') == (3, r"\"d")
    assert behind_split(r"a(?<=x)b|e", 0, '"') is None  # nothing at `"` needs a lookbehind
    assert behind_split(r"\"(?<=x)b|\"(?<=y)", 0, '"') is None  # nothing at `"` without one
    assert behind_split(r"(?:a|b)", 0, "a") is None  # one top-level group, not an alternation
    assert alternatives(r"a[|(]\|b|(c|d)|\p{L}") == [r"a[|(]\|b", "(c|d)", r"\p{L}"]
    assert alternatives(r"[]|]x|y") == ["[]|]x", "y"]
    assert alternatives(r"(?i)a|b") is None


@pytest.mark.skipif(fastpath.native is None, reason="the compiled feed is not built (SLUICEGATE_PURE or no compiler)")
@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_compiled_rest_shape_is_the_reference(text: str) -> None:
    quick = Redactor()._quick_native
    assert quick is not None
    feed = quick.__self__  # type: ignore[attr-defined]
    for i, d in enumerate(BUILTIN):
        if d.near_rest is None:
            continue
        rest_shape = _rest(d)[3]
        for v in range(len(text)):
            assert feed.rules_out(text, v, i, True) == rest_shape.rules_out(text, v), (text, v)  # type: ignore[attr-defined]


def test_tails_are_in_every_label_word() -> None:
    """Each label word (in the forms the pattern takes: case, `_`/`-`/space joints or none) holds a tail."""
    rng = random.Random(5)
    for word in [w for w, _ in labels.words()] + list(labels.CAMEL_WORDS):
        parts = [p for p in regex.split(r"[_ \-]", word) if p]
        for _ in range(4):
            form = parts[0] + "".join(rng.choice(["", "_", "-", " "]) + p for p in parts[1:])
            form = "".join(c.upper() if rng.random() < 0.5 else c for c in form)
            assert labels.label_near(form, len(form), LOOKBEHIND), form
        for joint in ("", "_", "-", " "):  # every joint before the last part, the one the tail may hold
            form = "".join(p + "_" for p in parts[:-2]) + joint.join(parts[-2:])
            assert labels.label_near(form, len(form), LOOKBEHIND), form
            assert labels.label_near(form.upper() + " x", len(form), LOOKBEHIND), form
    # A short last part carries the end of the one before (`tax id`: `x id`, not `id`, so `"id":` has none).
    assert "id" not in labels.tails()
    assert not labels.label_near('{"id": 1, "created_at": ', 24, LOOKBEHIND)
    # An ASCII text never matches a non-ASCII tail character case-insensitively (the check lowercases ASCII only).
    for t in labels.tails():
        for ch in t:
            if not ch.isascii():
                assert not any(regex.fullmatch(f"(?i){regex.escape(ch)}", chr(a)) for a in range(128)), ch


def test_before_behind() -> None:
    assert before_behind(r"ab(?<=b)c") == 4
    assert before_behind(r"a|b(?<=b)") is None  # `a` ends without a lookbehind
    assert before_behind(r"a(?<=a)|\"b", first="a") == 3  # the alternative at `"` is left out
    assert before_behind(r"x\s{0,3}(?:\"(?<=x)|y(?<=y))") == 7
    assert before_behind(r"(?:a(?<=a))+") is None


@pytest.mark.skipif(fastpath.native is None, reason="the compiled feed is not built (SLUICEGATE_PURE or no compiler)")
@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_the_compiled_check_is_the_reference(text: str) -> None:
    r = Redactor()
    assert r._tracker is not None
    # the tails' check alone (by default a tail counts only as a whole word: tests/redact/test_label_word.py)
    quick = fastpath.compiled_feed(r._tracker, r._max_hold, word_off=True)
    feed = quick.__self__  # type: ignore[attr-defined]
    for v in range(len(text) + 1):
        assert feed.label_near(text, v) >= labels.label_near(text, v, LOOKBEHIND), (text, v)
